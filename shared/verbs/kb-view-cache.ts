import type { SourceStatus } from '../schemas/knowledge-base.js';
import type { JsonPieces } from './json-pieces.js';

/** One source as a knowledge base's answer lists it: its JSON (encoded), and what the answer counts of it. */
export interface SourceRow {
  json: Buffer;
  status: SourceStatus;
  /** The chunking tag its chunks were cut with (for `rechunkingSources`). */
  chunking?: string;
}

/**
 * A knowledge base's source rows, as read at its `sourceSeq` (see
 * KeySpace.changedSources): a later read takes again only the sources
 * changed since, and those the rows lack.
 */
export interface KbRows {
  /** The knowledge base's creation time: one created again under the same id starts anew. */
  createdAt: string;
  sourceSeq: number;
  rows: Map<string, SourceRow>;
}

/** A row's weight against the bound: its JSON's bytes, and some for the record around it. */
const rowChars = (row: SourceRow): number => row.json.length + 64;

interface Entry {
  stamp?: string;
  body?: JsonPieces;
  rows?: KbRows;
  chars: number;
}

/**
 * What an API process keeps of the knowledge bases it answers, by id, least
 * recently used dropped first past `maxChars` (counted in bytes of JSON):
 *
 * - the JSON body of a settled one, by revision. Every change of a knowledge
 *   base or of one of its sources bumps its revision (the ETag's promise:
 *   one revision, one representation), except a processing source's
 *   `progress`. So a knowledge base with no active source and no site
 *   discovering answers the same body for as long as its revision stays, and
 *   a GET of it reads its meta hash alone. The revision and creation time are
 *   read from Redis on each GET, so every API replica stays exact with a
 *   cache of its own.
 * - its source rows (see {@link KbRows}), so that a GET or a PATCH answer of
 *   an active knowledge base reads only the sources changed since the last.
 */
export class KbViewCache {
  private readonly entries = new Map<string, Entry>();
  private size = 0;

  /**
   * `maxChars`: what is kept together at most, in characters (0 keeps none).
   * `verify`: every answer built from kept rows is checked against a read of
   * every source, when nothing changed meanwhile (tests; it costs that read).
   */
  constructor(
    private readonly maxChars: number,
    readonly verify = false,
  ) {}

  get enabled(): boolean {
    return this.maxChars > 0;
  }

  /** True when a body of this knowledge base is kept, whatever its revision. */
  has(kbId: string): boolean {
    return this.entries.get(kbId)?.body !== undefined;
  }

  /** The body kept for this knowledge base at `stamp` (see {@link viewStamp}), else undefined; a hit becomes the newest entry. */
  get(kbId: string, stamp: string): JsonPieces | undefined {
    const entry = this.entries.get(kbId);
    if (entry?.stamp !== stamp || entry.body === undefined) return undefined;
    this.touch(kbId, entry);
    return entry.body;
  }

  /** Keeps `body` for this knowledge base at `stamp`, dropping the least recently used entries past the bound. */
  set(kbId: string, stamp: string, body: JsonPieces): void {
    const entry = this.entries.get(kbId);
    this.put(kbId, { ...(entry?.rows && { rows: entry.rows }), ...(body.bytes <= this.maxChars && { stamp, body }) });
  }

  /** The source rows kept for this knowledge base, else undefined; a hit becomes the newest entry. */
  rows(kbId: string): KbRows | undefined {
    const entry = this.entries.get(kbId);
    if (!entry?.rows) return undefined;
    this.touch(kbId, entry);
    return entry.rows;
  }

  /** Keeps these rows (and a kept body, still checked by its stamp), dropping the least recently used entries past the bound. */
  setRows(kbId: string, rows: KbRows): void {
    const entry = this.entries.get(kbId);
    this.put(kbId, { ...(entry?.body !== undefined && { stamp: entry.stamp, body: entry.body }), rows });
  }

  /** Forgets the body kept for this knowledge base (its rows stay). */
  delete(kbId: string): void {
    const entry = this.entries.get(kbId);
    if (!entry) return;
    this.put(kbId, { ...(entry.rows && { rows: entry.rows }) });
  }

  /** Forgets all that is kept of this knowledge base. */
  forget(kbId: string): void {
    const entry = this.entries.get(kbId);
    if (!entry) return;
    this.entries.delete(kbId);
    this.size -= entry.chars;
  }

  /** Characters kept (for tests and metrics). */
  get chars(): number {
    return this.size;
  }

  private touch(kbId: string, entry: Entry): void {
    this.entries.delete(kbId);
    this.entries.set(kbId, entry);
  }

  private put(kbId: string, e: Omit<Entry, 'chars'>): void {
    this.forget(kbId);
    let chars = e.body?.bytes ?? 0;
    if (e.rows) for (const row of e.rows.rows.values()) chars += rowChars(row);
    if (chars === 0 || chars > this.maxChars) return;
    this.entries.set(kbId, { ...e, chars });
    this.size += chars;
    for (const [id, entry] of this.entries) {
      if (this.size <= this.maxChars) break;
      this.entries.delete(id);
      this.size -= entry.chars;
    }
  }
}

/**
 * What a cached body is valid for: the knowledge base's revision, and its
 * creation and update times, so that a knowledge base created again under
 * the same id, or a Redis restored from an older snapshot whose revisions
 * then repeat, does not meet a body of another state under the same number.
 */
export const viewStamp = (kb: { createdAt: string; updatedAt: string }, rev: number): string => `${kb.createdAt}/${kb.updatedAt}/${rev}`;
