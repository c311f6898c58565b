import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A child process whose output is collected as it comes, and its exit code. */
export interface WatchedChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `command` with `args`, collecting what it prints on stdout and stderr. */
export function spawnWatched(command: string, args: string[], opts: SpawnOptions = {}): WatchedChild {
  const child = spawn(command, args, opts);
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, stdout: () => out, stderr: () => err, exited };
}
