import type { Extraction } from '../extractors/index.js';
import { SandboxPool, type SandboxLimits, type SandboxStats } from './sandbox-pool.js';

export { SandboxPool, type SandboxLimits, type SandboxPoolOptions, type SandboxStats } from './sandbox-pool.js';

/**
 * Runs one extraction in a child process of its own, started for this call
 * and gone when it returns, under the same limits as the worker's
 * {@link SandboxPool}. For one-off callers (the admin tools, tests); the
 * worker keeps a warm pool instead, since a cold child costs about half a
 * second before any parsing.
 */
export async function extractInSandbox(
  bytes: Uint8Array,
  hints: { filename?: string; declaredType?: string },
  limits: SandboxLimits,
  observe?: (stats: SandboxStats) => void,
): Promise<Extraction> {
  const pool = new SandboxPool({ size: 1, limits, maxJobs: 1, warm: false });
  try {
    return await pool.extract(bytes, hints, observe);
  } finally {
    await pool.close();
  }
}
