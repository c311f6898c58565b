import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | undefined;

/**
 * cl100k_base cuts text into pre-tokens with one regular expression and encodes
 * each pre-token on its own, so a text's token count is the sum of its
 * pre-tokens' counts. Counting goes pre-token by pre-token and remembers the
 * counts: a document repeats its words, and the chunker counts most of its text
 * more than once, so nearly every pre-token after the first pages is a lookup.
 *
 * Byte-pair encoding of one pre-token is worse than quadratic in its length,
 * and a run of characters of one class (a long rule of dashes, a sequence of
 * letters, 50,000 brackets) is one pre-token: 1,000 characters of it take a
 * quarter of a second, 50,000 over a minute. A run without a break of at least
 * LONG_RUN characters is counted in PIECE-character pieces instead (each cut
 * can add a token).
 */
const LONG_RUN = 256;
const PIECE = 32;
const LONG_RUN_SOURCE = `\\S{${LONG_RUN},}|\\s{${LONG_RUN},}`;
const HAS_LONG_RUN = new RegExp(LONG_RUN_SOURCE);
const LONG_RUNS = new RegExp(LONG_RUN_SOURCE, 'g');
const PRE_TOKENS = new RegExp(cl100k.pat_str, 'gu');
// Pre-tokens up to this length are remembered; longer ones are rare and would crowd the table.
const MAX_REMEMBERED_LENGTH = 64;
const MAX_REMEMBERED = 65_536;
const counts = new Map<string, number>();

function encodedLength(piece: string): number {
  encoder ??= new Tiktoken(cl100k);
  // Special-token strings in documents are plain text here, not control tokens.
  return encoder.encode(piece, [], []).length;
}

function preTokenLength(piece: string): number {
  if (piece.length > MAX_REMEMBERED_LENGTH) return encodedLength(piece);
  let n = counts.get(piece);
  if (n === undefined) {
    n = encodedLength(piece);
    if (counts.size >= MAX_REMEMBERED) counts.clear();
    counts.set(piece, n);
  }
  return n;
}

/** Tokens of text without a long run: the sum over its pre-tokens. */
function countPreTokens(text: string): number {
  let total = 0;
  for (const m of text.matchAll(PRE_TOKENS)) total += preTokenLength(m[0]);
  return total;
}

/**
 * Tokens of `text` in OpenAI's cl100k_base encoding (the ranks ship in the
 * package; nothing is fetched). Exact, except that a run of 256 or more
 * non-space (or space) characters is counted in 32-character pieces, which
 * can add a token per piece.
 */
export function countTokens(text: string): number {
  if (!HAS_LONG_RUN.test(text)) return countPreTokens(text);
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUNS)) {
    total += countPreTokens(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += PIECE) total += preTokenLength(m[0].slice(i, i + PIECE));
    last = m.index + m[0].length;
  }
  return total + countPreTokens(text.slice(last));
}
