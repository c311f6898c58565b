import { chunkView } from '../chunking/chunk-view.js';
import type { Chunk, StoredChunk } from '../schemas/chunk.js';
import type { Metadata } from '../schemas/metadata.js';
import { parseSource } from '../store/kb-records.js';
import type { StoreRedis } from '../store/commands.js';
import type { KeySpace } from '../store/keys.js';
import type { IndexHit, MemoryIndex } from './memory-index.js';

/** A chunk as a search reads it: its score, source record, stored entry and text, and the chunk as the API shows it. */
export interface RankedChunk {
  id: string;
  score: number;
  documentId: string;
  record: Record<string, string>;
  entry: string;
  text: string;
  chunk: Chunk;
}

/** What a search asks the index for: stemmed terms, how many chunks, and the filter. */
export interface RankRequest {
  terms: string[];
  k: number;
  documentIds?: string[] | undefined;
  metadata?: Metadata | undefined;
}

/** Source records read per pipeline while a search checks its candidates' sources. */
const RECORD_BATCH = 500;

/**
 * The index's best chunks whose sources the search admits, read back with
 * their records, entries and texts. The records of the candidates' sources
 * are read with the entries of the best k in one round trip; when a source
 * is refused, the candidates are ranked again without it (and more of them
 * read at once).
 */
export async function readHits(redis: StoreRedis, keys: KeySpace, kbId: string, idx: MemoryIndex, req: RankRequest): Promise<{ hits: RankedChunk[]; moved: boolean }> {
  const only = req.documentIds ? new Set(req.documentIds) : undefined;
  // A source's record when a search may show its chunks, null when not; unknown sources are let through until read.
  const records = new Map<string, Record<string, string> | null>();
  const admit = (d: string) => (!only || only.has(d)) && records.get(d) !== null;
  let hits: IndexHit[] = [];
  let entries: (string | null)[] = [];
  for (let want = req.k; ; ) {
    const top = idx.top(req.terms, want, admit);
    hits = top.slice(0, req.k);
    const unknown = [...new Set(top.map((h) => h.documentId))].filter((d) => !records.has(d)).slice(0, RECORD_BATCH);
    if (unknown.length === 0) break;
    const pipe = redis.pipeline();
    for (const d of unknown) pipe.hgetall(keys.source(kbId, d));
    for (const h of hits) pipe.lindex(keys.chunks(kbId, h.documentId), h.index);
    const rows = (await pipe.exec()) ?? [];
    let refused = false;
    unknown.forEach((d, j) => {
      const record = (rows[j]?.[1] ?? {}) as Record<string, string>;
      const ok = admits(record, req.metadata);
      records.set(d, ok ? record : null);
      refused ||= !ok;
    });
    entries = rows.slice(unknown.length).map((r) => (typeof r[1] === 'string' ? r[1] : null));
    if (!refused) break;
    want = Math.min(want * 2, req.k + RECORD_BATCH);
  }
  if (hits.length === 0) return { hits: [], moved: false };
  if (entries.length !== hits.length) {
    // The last round read no record (every candidate's source known): the entries of the hits it ranked.
    const pipe = redis.pipeline();
    for (const h of hits) pipe.lindex(keys.chunks(kbId, h.documentId), h.index);
    entries = ((await pipe.exec()) ?? []).map((r) => (typeof r[1] === 'string' ? r[1] : null));
  }
  const textsPipe = redis.pipeline();
  const parsed = entries.map((e) => (e ? (JSON.parse(e) as StoredChunk) : null));
  const textAt = hits.map((h, i) => {
    const c = parsed[i];
    if (!c || c.byteEnd <= c.byteStart) return -1;
    textsPipe.getrangeBuffer(keys.markdown(kbId, h.documentId), c.byteStart, c.byteEnd - 1);
    return textsPipe.length - 1;
  });
  const texts = textsPipe.length > 0 ? ((await textsPipe.exec()) ?? []) : [];
  let moved = false;
  const out: RankedChunk[] = [];
  hits.forEach((h, i) => {
    const c = parsed[i];
    const record = records.get(h.documentId)!;
    const source = parseSource(record);
    if (!c || !source) return void (moved = true);
    const text = textAt[i]! < 0 ? '' : ((texts[textAt[i]!]?.[1] as Buffer | undefined)?.toString('utf8') ?? '');
    const { byteStart: _s, byteEnd: _e, ...stored } = c;
    const chunk = chunkView(kbId, source, { ...stored, text });
    if (chunk.id !== h.id) return void (moved = true);
    out.push({ id: h.id, score: h.score, documentId: h.documentId, record, entry: entries[i]!, text, chunk });
  });
  return { hits: out, moved };
}

/** Whether a search may show chunks of the source this record holds: a ready source with the filter's metadata. */
function admits(record: Record<string, string>, metadata: Metadata | undefined): boolean {
  if (record.status !== 'ready') return false;
  if (!metadata) return true;
  const m = record.metadata ? (JSON.parse(record.metadata) as Metadata) : {};
  return Object.entries(metadata).every(([key, want]) => m[key] === want);
}
