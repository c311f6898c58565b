import { createHash } from 'node:crypto';
import { chunkView } from '../chunking/chunk-view.js';
import type { StoredChunk } from '../schemas/chunk.js';
import type { KeySpace } from '../store/keys.js';

/** A chunk as the feed scripts take it: its id, a digest of how the feed shows it, and that JSON. */
export interface FeedEntry {
  i: string;
  g: string;
  j: string;
}

/** What a script that writes the feed needs of it: its keys, the oldest id retention keeps, the caps. */
export interface FeedArgs {
  kbId: string;
  stream: string;
  info: string;
  /** The knowledge base's meta hash, whose owner the feed's info records. */
  meta: string;
  minId: string;
  maxEvents: number;
  maxBytes: number;
}

/**
 * A source's chunks as the feed carries them: each chunk's own fields (id,
 * text, position, headings, pages) without its source's, which the script
 * adds from the record it writes, so the feed shows the source as it was then.
 */
export function feedEntries(kbId: string, documentId: string, markdown: string, chunks: readonly (StoredChunk | string)[]): FeedEntry[] {
  const bare = { documentId, type: 'text' as const, content: '' };
  return chunks.map((entry) => {
    const { byteStart: _bs, byteEnd: _be, ...c } = typeof entry === 'string' ? (JSON.parse(entry) as StoredChunk) : entry;
    const view = chunkView(kbId, bare, { ...c, text: markdown.slice(c.charStart, c.charEnd) });
    const j = JSON.stringify(view);
    return { i: view.id, g: createHash('sha256').update(j).digest('base64url').slice(0, 12), j };
  });
}

/** The feed part of a script's payload, with retention counted from now. */
export function feedArgs(k: KeySpace, kbId: string, nowMs = Date.now()): FeedArgs {
  const r = k.changeRetention;
  return {
    kbId,
    stream: k.changes(kbId),
    info: k.changesInfo(kbId),
    meta: k.kb(kbId),
    minId: `${Math.max(1, nowMs - r.retentionMs)}-0`,
    maxEvents: r.maxEvents,
    maxBytes: r.maxBytes,
  };
}
