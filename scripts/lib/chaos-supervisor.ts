import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';

/** How to start one supervised process; resolves once it runs (and, where it matters, is ready). */
export type Starter = () => Promise<ChildProcess>;

type State = 'starting' | 'up' | 'frozen' | 'down';

/**
 * One process kept running like a container with a restart policy: when it
 * exits on its own it is started again (after a short, growing pause) and the
 * exit is counted. Exits the supervisor caused itself are not restarts of
 * that kind: whoever killed it decides when it comes back.
 */
export class Supervised {
  private proc: ChildProcess | undefined;
  private state: State = 'down';
  private expectingExit = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private backoffMs = 1000;
  private upSince = 0;
  /** Exits nobody asked for. */
  selfExits = 0;
  /** Starts that failed (the process could not come up) and were tried again. */
  failedStarts = 0;

  constructor(
    readonly name: string,
    private readonly starter: Starter,
    private readonly say: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get isUp(): boolean {
    return this.state === 'up';
  }

  get isFrozen(): boolean {
    return this.state === 'frozen';
  }

  /**
   * Starts the process, trying again (1 to 5 s apart) until it comes up or
   * the supervisor closes; with `failFast`, a failed first start throws instead.
   */
  async start(failFast = false): Promise<void> {
    this.state = 'starting';
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        const proc = await this.starter();
        if (this.closed) {
          proc.kill('SIGKILL');
          return;
        }
        this.watch(proc);
        return;
      } catch (err) {
        if (failFast) throw err;
        this.failedStarts += 1;
        this.say(`${this.name} did not start (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); trying again`);
        await new Promise((r) => setTimeout(r, Math.min(1000 * (attempt + 1), 5000)));
      }
    }
  }

  private watch(proc: ChildProcess): void {
    this.proc = proc;
    this.state = 'up';
    this.expectingExit = false;
    this.upSince = Date.now();
    proc.once('exit', (code, signal) => {
      if (this.proc !== proc) return;
      this.state = 'down';
      if (this.closed || this.expectingExit) return;
      this.selfExits += 1;
      // A process that keeps failing at once waits longer each time; one that ran a while starts again soon.
      if (Date.now() - this.upSince > 15_000) this.backoffMs = 1000;
      this.say(`${this.name} exited on its own (${signal ?? `code ${code}`}); restarting in ${this.backoffMs} ms`);
      this.restartTimer = setTimeout(() => void this.start(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, 8000);
    });
  }

  /** SIGKILL; it comes back after `restartAfterMs`. Resolves once it has exited. */
  async kill(restartAfterMs: number): Promise<void> {
    const proc = this.proc;
    if (!proc || this.state === 'down') return;
    this.expectingExit = true;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
    this.state = 'down';
    this.restartTimer = setTimeout(() => void this.start(), restartAfterMs);
  }

  /** SIGSTOP, then SIGCONT after `forMs`. */
  freeze(forMs: number): void {
    const proc = this.proc;
    if (!proc || this.state !== 'up') return;
    proc.kill('SIGSTOP');
    this.state = 'frozen';
    this.restartTimer = setTimeout(() => this.thaw(), forMs);
  }

  private thaw(): void {
    if (this.state !== 'frozen') return;
    this.proc?.kill('SIGCONT');
    this.state = 'up';
  }

  /** Waits until the process is up (restarts included), or fails after `timeoutMs`. */
  async waitUp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.state !== 'up') {
      if (Date.now() > deadline) throw new Error(`${this.name} did not come back within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** No more restarts from now on (the supervisor is shutting down); pending thaws still happen in stop(). */
  hold(): void {
    this.closed = true;
    clearTimeout(this.restartTimer);
  }

  /** Ends supervision: thaws, then SIGTERM to its process group, SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.hold();
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    signalTree(proc, 'SIGCONT');
    signalTree(proc, 'SIGTERM');
    const timer = setTimeout(() => signalTree(proc, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    // Sandbox children leave with their parent; anything left in the group goes now.
    signalTree(proc, 'SIGKILL');
  }

  /** Last resort at process exit: no waiting, no restarts. */
  killNow(): void {
    this.closed = true;
    clearTimeout(this.restartTimer);
    if (this.proc) signalTree(this.proc, 'SIGKILL');
  }
}

/** Signals a process started with `detached: true` and everything in its group; the process alone otherwise. */
function signalTree(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(detachedPids.has(proc.pid) ? -proc.pid : proc.pid, signal);
  } catch {
    // already gone
  }
}

const detachedPids = new Set<number>();

/**
 * Spawns `node ...args` in a process group of its own (a Ctrl-C in the
 * terminal reaches only the supervisor, which stops everything in order),
 * with an explicit environment, appending its output to `logPath`. With
 * `readyText`, resolves once its output shows it; rejects if it exits first.
 */
export async function spawnNode(args: string[], env: Record<string, string>, logPath: string, readyText?: string, readyTimeoutMs = 60_000): Promise<ChildProcess> {
  const log: WriteStream = createWriteStream(logPath, { flags: 'a' });
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) detachedPids.add(child.pid);
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  child.once('exit', () => {
    if (child.pid !== undefined) detachedPids.delete(child.pid);
    // Let the pipes drain before the file closes.
    setTimeout(() => log.end(), 100);
  });
  if (!readyText) return child;
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`not ready within ${readyTimeoutMs} ms`)), readyTimeoutMs);
    const onData = (d: Buffer): void => {
      seen = (seen + d.toString()).slice(-4096);
      if (seen.includes(readyText)) done();
    };
    const onExit = (code: number | null, signal: string | null): void => fail(new Error(`exited (${signal ?? `code ${code}`}) before it was ready`));
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
    };
    const done = (): void => {
      cleanup();
      resolve();
    };
    const fail = (err: Error): void => {
      cleanup();
      child.kill('SIGKILL');
      reject(err);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
  return child;
}
