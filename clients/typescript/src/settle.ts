import type { components } from './schema.js';

export type KnowledgeBase = components['schemas']['KnowledgeBase'];

/** How {@link waitUntilSettled} polls. */
export interface SettleOptions {
  /** Give up after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
  /** First pause between polls (default 250 ms); it doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  /** Longest pause between polls (default 5 s). */
  maxDelayMs?: number;
  /** Called with each knowledge base read, for progress. */
  onPoll?: (kb: KnowledgeBase) => void;
  signal?: AbortSignal;
}

/** True when no source of the knowledge base is pending or processing. */
export const isSettled = (kb: KnowledgeBase): boolean => kb.status !== 'in_progress';

/**
 * Reads the knowledge base with `read` until no source is pending or
 * processing, pausing with exponential backoff (with jitter, so many clients
 * do not poll in step) between reads; returns the settled knowledge base or
 * throws when `timeoutMs` passes.
 */
export async function waitUntilSettled(read: () => Promise<KnowledgeBase>, opts: SettleOptions = {}): Promise<KnowledgeBase> {
  const { timeoutMs = 600_000, initialDelayMs = 250, maxDelayMs = 5_000, onPoll, signal } = opts;
  const deadline = Date.now() + timeoutMs;
  let delay = initialDelayMs;
  for (;;) {
    signal?.throwIfAborted();
    const kb = await read();
    onPoll?.(kb);
    if (isSettled(kb)) return kb;
    if (Date.now() + delay > deadline) throw new Error(`knowledge base ${kb.kbId} did not settle within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, delay * (0.8 + Math.random() * 0.4)));
    delay = Math.min(maxDelayMs, delay * 2);
  }
}
