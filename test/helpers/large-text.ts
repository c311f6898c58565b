import type { StoredChunk } from '../../shared/schemas/chunk.js';

/**
 * About `bytes` of Markdown in sections of about 2,000 characters with their
 * chunk entries (ASCII, so characters and bytes agree); `seed` changes every
 * section's words, so two seeds give two different extractions.
 */
export function largeText(bytes: number, seed: string): { text: string; chunks: StoredChunk[] } {
  const parts: string[] = [];
  const chunks: StoredChunk[] = [];
  let at = 0;
  while (at < bytes) {
    let body = `## ${seed} part ${chunks.length}\n\n`;
    while (body.length < 2000) body += ` ${seed}${(chunks.length * 31 + body.length) % 997}`;
    body += '\n\n';
    const end = at + body.length - 2;
    chunks.push({ index: chunks.length, charStart: at, charEnd: end, byteStart: at, byteEnd: end, tokens: 400, headings: [] });
    parts.push(body);
    at += body.length;
  }
  return { text: parts.join(''), chunks };
}
