/**
 * The JSON of settled knowledge bases as GET answers them, kept in the API
 * process by knowledge-base id while their revision holds.
 *
 * Every change of a knowledge base or of one of its sources bumps its
 * revision (the ETag's promise: one revision, one representation), except a
 * processing source's `progress`. So a knowledge base with no active source
 * and no site discovering answers the same body for as long as its revision
 * stays, and a GET of it reads its meta hash alone instead of every source.
 * The revision and creation time are read from Redis on each GET, so every
 * API replica stays exact with a cache of its own.
 */
export class KbViewCache {
  private readonly entries = new Map<string, { stamp: string; body: string }>();
  private size = 0;

  /** `maxChars`: the bodies kept together at most, in characters (0 keeps none). */
  constructor(private readonly maxChars: number) {}

  get enabled(): boolean {
    return this.maxChars > 0;
  }

  /** True when a body of this knowledge base is kept, whatever its revision. */
  has(kbId: string): boolean {
    return this.entries.has(kbId);
  }

  /** The body kept for this knowledge base at `stamp` (see {@link viewStamp}), else undefined; a hit becomes the newest entry. */
  get(kbId: string, stamp: string): string | undefined {
    const entry = this.entries.get(kbId);
    if (entry?.stamp !== stamp) return undefined;
    this.entries.delete(kbId);
    this.entries.set(kbId, entry);
    return entry.body;
  }

  /** Keeps `body` for this knowledge base at `stamp`, dropping the least recently used bodies past the bound. */
  set(kbId: string, stamp: string, body: string): void {
    this.delete(kbId);
    if (body.length > this.maxChars) return;
    this.entries.set(kbId, { stamp, body });
    this.size += body.length;
    for (const [id, entry] of this.entries) {
      if (this.size <= this.maxChars) break;
      this.entries.delete(id);
      this.size -= entry.body.length;
    }
  }

  delete(kbId: string): void {
    const entry = this.entries.get(kbId);
    if (!entry) return;
    this.entries.delete(kbId);
    this.size -= entry.body.length;
  }

  /** Characters kept (for tests and metrics). */
  get chars(): number {
    return this.size;
  }
}

/**
 * What a cached body is valid for: the knowledge base's revision, and its
 * creation and update times, so that a knowledge base created again under
 * the same id, or a Redis restored from an older snapshot whose revisions
 * then repeat, does not meet a body of another state under the same number.
 */
export const viewStamp = (kb: { createdAt: string; updatedAt: string }, rev: number): string => `${kb.createdAt}/${kb.updatedAt}/${rev}`;
