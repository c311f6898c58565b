/**
 * Ends a sandbox child whose parent is gone, even while its event loop is
 * blocked in a long synchronous parse. The IPC channel's `disconnect` event
 * only fires once the main thread yields, which can be a whole timeout later.
 * Where util-linux `setpriv` is found, the child starts with a parent-death
 * signal (`prctl(PR_SET_PDEATHSIG, SIGKILL)`): the kernel kills it the moment
 * the parent dies, at no cost to the child. Elsewhere a small thread of its
 * own watches the parent pid instead and SIGKILLs the child once it is
 * re-parented (some 9 MB of resident memory and tens of ms of start-up).
 */
import { Worker } from 'node:worker_threads';
import { isExecutable } from './executable.js';

/** How often the watchdog thread compares the parent pid (ms). */
export const ORPHAN_POLL_MS = 100;

/** The argument a child is started with when the kernel kills it with its parent. */
export const PARENT_DEATH_SIGNAL_ARG = 'pdeathsig';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];
let setpriv: string | null | undefined;

/**
 * The command line that starts `argv` with SIGKILL as its parent-death
 * signal (setpriv execs the program, which keeps its pid), or undefined
 * where setpriv is not found.
 */
export function withParentDeathSignal(argv: [string, ...string[]]): [string, ...string[]] | undefined {
  setpriv ??= SETPRIV.find(isExecutable) ?? null;
  return setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', ...argv] : undefined;
}

// CommonJS source for an eval worker: no loader, no import of this project's modules.
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.parentPid) process.kill(workerData.pid, 'SIGKILL');
}, workerData.pollMs);
`;

/**
 * Starts the watchdog thread for this process. It holds the event loop open
 * for nothing (unref), and its heap is bounded to a few MB so a child's
 * memory accounting barely moves.
 */
export function exitWhenOrphaned(pollMs = ORPHAN_POLL_MS): void {
  const watchdog = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { parentPid: process.ppid, pid: process.pid, pollMs },
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2, codeRangeSizeMb: 4, stackSizeMb: 1 },
    env: {},
    stdout: true,
    stderr: true,
  });
  watchdog.unref();
}
