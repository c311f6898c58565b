/**
 * A process that starts a one-child sandbox pool, prints the child's pid and
 * waits to be killed (the orphan tests). With `busy` as its argument the child
 * is the test child, kept in a long synchronous loop (`spin`) when the pid is
 * printed, as a child is in the middle of a parse.
 */
import { fileURLToPath } from 'node:url';
import { SandboxPool } from '../../worker/sandbox/sandbox-pool.js';

const busy = process.argv[2] === 'busy';
const childModule = busy ? fileURLToPath(new URL('./sandbox-test-child.ts', import.meta.url)) : undefined;
const pool = new SandboxPool({ size: 1, childModule, limits: { timeoutMs: 120_000, memoryMb: 512, maxTextChars: 1000, maxPdfPages: 1 } });
await pool.ready();
if (busy) {
  void pool.extract(Buffer.from('spin:60000'), {}).catch(() => undefined);
  // The child's event loop is blocked once its spin starts; give the request time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
process.stdout.write(`${pool.pids[0]}\n`);
setInterval(() => undefined, 60_000);
