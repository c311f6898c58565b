import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A worker started as its own process (`worker/main.ts`), with what it has logged so far. */
export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Every JSON log line so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Whether it is still running. */
  alive(): boolean;
}

/**
 * Starts `worker/main.ts` in a process of its own and resolves once it logs
 * that it has started (its signal handlers are in place). `env` is the whole
 * role environment besides the parent's (REDIS_URL, REDIS_KEY_PREFIX, ...).
 * The child is added to `children` so a test can kill whatever it left.
 */
export async function startWorkerProcess(env: Record<string, string>, children: Set<ChildProcess>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    log += d.toString();
    if (process.env.TEST_WORKER_LOG) process.stderr.write(d);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${log}`)), 60_000);
    const onData = (): void => {
      if (log.includes('"worker started"')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${log}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    lines: () =>
      log
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}

/** One request the origin holds open until the test answers it. */
export interface HeldRequest {
  url: string;
  answer(title: string, paragraph: string): void;
}

/**
 * A loopback origin that answers nothing by itself: every request waits in
 * `held` until the test calls `answer`, so a job is reliably mid-fetch for
 * as long as the test needs.
 */
export interface HoldingOrigin {
  port: number;
  /** Every request so far, answered or not, in order. */
  held: HeldRequest[];
  url(path: string): string;
  /** Answers every held request, and from now on every new one at once, with this page. */
  release(title: string, paragraph: string): void;
  close(): Promise<void>;
}

export async function startHoldingOrigin(): Promise<HoldingOrigin> {
  const held: HeldRequest[] = [];
  let released: [string, string] | undefined;
  const server = http.createServer((req, res) => {
    let answered = false;
    const request: HeldRequest = {
      url: req.url ?? '',
      answer: (title, paragraph) => {
        if (answered) return;
        answered = true;
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${title}</title><p>${paragraph}</p>`);
      },
    };
    held.push(request);
    if (released) request.answer(...released);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    held,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    release(title, paragraph) {
      released = [title, paragraph];
      for (const r of held) r.answer(title, paragraph);
    },
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
