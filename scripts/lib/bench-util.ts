import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const MB = 1024 * 1024;

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The files of one corpus folder (`pdf`, `docx`, ...), sorted, with their sizes. */
export function folderFiles(root: string, folder: string): { path: string; name: string; bytes: number }[] {
  const dir = join(root, folder);
  return readdirSync(dir)
    .sort()
    .map((name) => ({ path: join(dir, name), name, bytes: statSync(join(dir, name)).size }))
    .filter((f) => statSync(f.path).isFile());
}

/** VmRSS of a process and all its descendants, in MB; 0 once it is gone. */
export function treeRssMb(pid: number): number {
  let kb = 0;
  const visit = (p: number): void => {
    try {
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${p}/task`)) {
        const children = readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const c of children ? children.split(/\s+/) : []) visit(Number(c));
      }
    } catch {
      // the process ended while we looked
    }
  };
  visit(pid);
  return kb / 1024;
}

/** CPU time (user and system) a process has used so far, in seconds, from /proc; 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    // The fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Samples the peak tree RSS of some processes every 100 ms until stopped. */
export function rssSampler(pids: () => number[]): { stop(): number } {
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, pids().reduce((sum, pid) => sum + treeRssMb(pid), 0));
  };
  const timer = setInterval(sample, 100);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** True when `cmd` runs (`cmd -v`). */
export async function hasTool(cmd: string): Promise<boolean> {
  try {
    await run(cmd, ['-v']);
    return true;
  } catch (err) {
    // pdftotext -v prints its version and exits 0 on new versions, 99 on old ones.
    return (err as { code?: unknown }).code !== 'ENOENT';
  }
}

/** Seconds for a reference tool to convert every file, one process per file as a user would run it. */
export async function referenceSeconds(tool: 'pdftotext' | 'pandoc', files: { path: string }[]): Promise<{ seconds: number; failures: number }> {
  let failures = 0;
  const started = performance.now();
  for (const f of files) {
    const args = tool === 'pdftotext' ? ['-q', f.path, '-'] : ['-f', 'docx', '-t', 'plain', f.path];
    try {
      await run(tool, args, { maxBuffer: 256 * MB });
    } catch {
      failures++;
    }
  }
  return { seconds: (performance.now() - started) / 1000, failures };
}

/**
 * Starts `node ...args` with an explicit environment and waits until its
 * stdout shows `readyText` (when given). BENCH_NODE_ARGS, when set, go before
 * the script (split on spaces): `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * profiles every API and worker process of a run.
 */
export async function startNode(args: string[], env: Record<string, string>, readyText?: string): Promise<ChildProcess> {
  const script = args.join(' ');
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    if (log.length < 100_000) log += d.toString();
  });
  if (readyText) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script} did not start`)), 60_000);
      const onData = (): void => {
        if (log.includes(readyText)) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited with ${code} before starting`));
      });
    });
  }
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await once(child, 'exit');
  clearTimeout(timer);
}

export async function waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string, pauseMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
