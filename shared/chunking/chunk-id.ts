import { createHash } from 'node:crypto';

/**
 * A chunk's stable id: `chk_` and 22 URL-safe characters of the SHA-256 of
 * its knowledge base, source, text and `occurrence` (how many chunks with
 * the same text come before it in the source, so a repeated paragraph gets
 * ids of its own). It never depends on the chunk's position: a chunk whose
 * text survives a refresh, a re-extraction or a re-chunk keeps its id, and
 * a consumer can upsert by it.
 */
export function chunkId(kbId: string, documentId: string, text: string, occurrence = 0): string {
  const digest = createHash('sha256').update(`${kbId}\n${documentId}\n${occurrence}\n`).update(text).digest('base64url');
  return `chk_${digest.slice(0, 22)}`;
}

/** For each text, how many equal texts come before it (the `occurrence` of {@link chunkId}). */
export function occurrences(texts: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return texts.map((t) => {
    const n = seen.get(t) ?? 0;
    seen.set(t, n + 1);
    return n;
  });
}
