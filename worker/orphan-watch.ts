/**
 * Ends a sandbox child whose parent is gone, even while its event loop is
 * blocked in a long synchronous parse. The IPC channel's `disconnect` event
 * only fires once the main thread yields, which can be a whole timeout later;
 * a small thread of its own watches the parent pid instead and SIGKILLs the
 * child the moment it is re-parented.
 */
import { Worker } from 'node:worker_threads';

/** How often the watchdog thread compares the parent pid (ms). */
export const ORPHAN_POLL_MS = 100;

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
