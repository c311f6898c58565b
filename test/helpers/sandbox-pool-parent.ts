/** A process that starts a one-child sandbox pool, prints the child's pid and waits to be killed (the orphan test). */
import { SandboxPool } from '../../worker/sandbox-pool.js';

const pool = new SandboxPool({ size: 1, limits: { timeoutMs: 20_000, memoryMb: 512, maxTextChars: 1000, maxPdfPages: 1 } });
await pool.ready();
process.stdout.write(`${pool.pids[0]}\n`);
setInterval(() => undefined, 60_000);
