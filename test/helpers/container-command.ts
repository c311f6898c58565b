import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Compiles the sources to dist/ as the image's build stage does (`npm run build`). */
export function buildDist(root: string): Promise<void> {
  // The package's own build: tsc, then the Lua scripts copied beside the compiled store.
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', '-s', 'build'], { cwd: root }, (err, stdout, stderr) =>
      err ? reject(new Error(`build failed:\n${stdout}${stderr}`)) : resolve(),
    );
  });
}

export interface StopResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The `msg` of every JSON log line, in order. */
  messages: string[];
  /** Processes started by the command (found by an environment marker) still running after it exited. */
  leftBehind: string[];
}

/**
 * Starts `argv` as a container engine would (no shell, no npm added), waits
 * for the log line `ready`, sends SIGTERM to exactly that process, and waits
 * for it to exit. Every process the command started inherits a unique
 * environment marker, which is how one still running afterwards is found;
 * those are killed before returning so nothing outlives the test.
 */
export async function runUntilStopped(opts: { cwd: string; argv: string[]; env: Record<string, string>; ready: string }): Promise<StopResult> {
  const marker = `kb-stop-${randomUUID()}`;
  const [program, ...args] = opts.argv;
  if (program === undefined) throw new Error('empty command');
  const child = spawn(program, args, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...opts.env, KB_STOP_PROBE: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const msg = parseMessage(line);
        if (msg === undefined) return;
        messages.push(msg);
        if (msg === opts.ready) resolve();
      });
      child.once('error', reject);
      void exited.then(({ code, signal }) => reject(new Error(`exited (${code ?? signal}) before "${opts.ready}":\n${stderr}`)));
    });
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    return { code, signal, messages, leftBehind: commandLines(processesWith(marker)) };
  } finally {
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function parseMessage(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown };
    return typeof entry.msg === 'string' ? entry.msg : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of live processes whose environment holds `marker` (only this user's processes are readable). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`KB_STOP_PROBE=${marker}`)) found.push(Number(entry));
    } catch {
      // gone already, or another user's process
    }
  }
  return found;
}

function commandLines(pids: number[]): string[] {
  return pids.map((pid) => {
    try {
      return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`;
    } catch {
      return String(pid);
    }
  });
}
