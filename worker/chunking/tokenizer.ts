import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | undefined;

/**
 * Byte-pair encoding here is worse than quadratic in the length of one
 * pre-token, and a run of characters of one class (a long rule of dashes, a
 * sequence of letters, 50,000 brackets) is one pre-token: 1,000 characters of
 * it take a quarter of a second, 50,000 over a minute. A run without a break
 * of at least LONG_RUN characters is counted in PIECE-character pieces instead
 * (each cut can add a token), and the counts of pieces are remembered, since
 * such runs tend to repeat themselves.
 */
const LONG_RUN = 256;
const PIECE = 32;
const LONG_RUN_SOURCE = `\\S{${LONG_RUN},}|\\s{${LONG_RUN},}`;
const HAS_LONG_RUN = new RegExp(LONG_RUN_SOURCE);
const LONG_RUNS = new RegExp(LONG_RUN_SOURCE, 'g');
const pieceCounts = new Map<string, number>();
const MAX_REMEMBERED = 4096;

function pieceLength(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    n = encodedLength(piece);
    if (pieceCounts.size >= MAX_REMEMBERED) pieceCounts.clear();
    pieceCounts.set(piece, n);
  }
  return n;
}

function encodedLength(text: string): number {
  encoder ??= new Tiktoken(cl100k);
  // Special-token strings in documents are plain text here, not control tokens.
  return text.length === 0 ? 0 : encoder.encode(text, [], []).length;
}

/**
 * Tokens of `text` in OpenAI's cl100k_base encoding (the ranks ship in the
 * package; nothing is fetched). Exact, except that a run of 256 or more
 * non-space (or space) characters is counted in 32-character pieces, which
 * can add a token per piece.
 */
export function countTokens(text: string): number {
  if (!HAS_LONG_RUN.test(text)) return encodedLength(text);
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUNS)) {
    total += encodedLength(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += PIECE) total += pieceLength(m[0].slice(i, i + PIECE));
    last = m.index + m[0].length;
  }
  return total + encodedLength(text.slice(last));
}
