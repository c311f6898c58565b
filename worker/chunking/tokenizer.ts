import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { isHighSurrogate, isLowSurrogate } from './segments.js';
import { lastAtOrBefore } from './sorted-search.js';

/**
 * cl100k_base cuts text into pre-tokens with one regular expression and encodes
 * each pre-token on its own, so a text's token count is the sum of its
 * pre-tokens' counts. Counting goes pre-token by pre-token and remembers the
 * counts: a document repeats its words, so nearly every pre-token after the
 * first pages is a lookup. The chunker asks about overlapping spans of one
 * document (a section, its blocks, the chunk they make): {@link SpanTokens}
 * cuts the document once and answers most of them from running totals.
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
const PRE_TOKENS = new RegExp(cl100k.pat_str, 'gu');
// matchAll walks a copy of PRE_TOKENS, starting from its lastIndex, which therefore stays 0. This
// one is stepped by hand from a position (exec with lastIndex), without cutting a slice.
const STEP_PRE_TOKENS = new RegExp(cl100k.pat_str, 'gu');
// Pre-tokens up to this length are remembered; longer ones are rare and would crowd the table.
const MAX_REMEMBERED_LENGTH = 64;
const MAX_REMEMBERED = 65_536;
const counts = new Map<string, number>();

/** cl100k_base's rank of each token, keyed by the token's bytes as a Latin-1 string; built on first use. */
let ranks: Map<string, number> | undefined;

function rankTable(): Map<string, number> {
  if (ranks) return ranks;
  const table = new Map<string, number>();
  // Lines of `<prefix> <first rank> <base64 token> <base64 token> ...`, ranks counting up.
  for (const line of cl100k.bpe_ranks.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    const first = Number.parseInt(fields[1]!, 10);
    for (let i = 2; i < fields.length; i++) table.set(Buffer.from(fields[i]!, 'base64').toString('latin1'), first + i - 2);
  }
  return (ranks = table);
}

/** Builds the rank table now (about a tenth of a second), so that no later count pays for it. */
export function prepareTokenizer(): void {
  rankTable();
}

/**
 * Tokens of `piece` as js-tiktoken's `encode(piece, [], [])` gives them
 * (special-token strings in documents are plain text here, not control
 * tokens): its pre-tokens, each byte-pair encoded.
 */
function encodedLength(piece: string): number {
  let total = 0;
  for (const m of piece.matchAll(PRE_TOKENS)) total += bytePairCount(m[0]);
  return total;
}

/**
 * The number of tokens byte-pair encoding makes of one pre-token: its UTF-8
 * bytes (a lone surrogate as U+FFFD, as TextEncoder writes it), merged pair
 * by pair, always the pair of lowest rank and the leftmost of equals, until
 * no adjacent pair is a token. Only the ranks of the pairs beside a merge are
 * looked up again.
 */
function bytePairCount(preToken: string): number {
  const bytes = Buffer.from(preToken, 'utf8').toString('latin1');
  const table = rankTable();
  if (bytes.length <= 1) return bytes.length;
  if (table.has(bytes)) return 1;
  // Part i runs from bounds[i] to bounds[i + 1]; pairRank[i] is the rank of part i joined to part i + 1.
  const bounds: number[] = [];
  for (let i = 0; i <= bytes.length; i++) bounds.push(i);
  const rankOf = (i: number): number => (i + 2 < bounds.length ? (table.get(bytes.slice(bounds[i], bounds[i + 2])) ?? Infinity) : Infinity);
  const pairRank: number[] = [];
  for (let i = 0; i < bytes.length; i++) pairRank.push(rankOf(i));
  for (;;) {
    let at = -1;
    let min = Infinity;
    for (let i = 0; i < pairRank.length; i++) {
      if (pairRank[i]! < min) {
        min = pairRank[i]!;
        at = i;
      }
    }
    if (at < 0) return pairRank.length;
    bounds.splice(at + 1, 1);
    pairRank.splice(at + 1, 1);
    pairRank[at] = rankOf(at);
    if (at > 0) pairRank[at - 1] = rankOf(at - 1);
  }
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

/**
 * Tokens of `text` in OpenAI's cl100k_base encoding (the ranks ship in the
 * package; nothing is fetched). Exact, except that a run of 256 or more
 * non-space (or space) characters is counted in 32-character pieces, which
 * can add a token per piece.
 */
export function countTokens(text: string): number {
  return countRange(text, 0, text.length);
}

/** {@link countTokens} of `text.slice(start, end)`. */
function countRange(text: string, start: number, end: number): number {
  let total = 0;
  forEachPiece(text, start, end, (_, tokens) => {
    total += tokens;
  });
  return total;
}

/**
 * Walks `text.slice(start, end)` as {@link countTokens} counts it: its pre-tokens, except
 * that each long run (see {@link longRuns}) is cut into PIECE-character pieces, calling
 * `visit` with where each piece starts and its tokens. Returns the long runs.
 */
function forEachPiece(text: string, start: number, end: number, visit: (at: number, tokens: number) => void): number[] {
  const runs = longRuns(text, start, end);
  const segment = (from: number, to: number): void => {
    if (from >= to) return;
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    for (const m of part.matchAll(PRE_TOKENS)) visit(from + m.index, preTokenLength(m[0]));
  };
  let last = start;
  for (let r = 0; r < runs.length; r += 2) {
    segment(last, runs[r]!);
    for (let i = runs[r]!; i < runs[r + 1]!; i += PIECE) visit(i, preTokenLength(text.slice(i, Math.min(i + PIECE, runs[r + 1]!))));
    last = runs[r + 1]!;
  }
  segment(last, end);
  return runs;
}

/**
 * The character classes of JavaScript's `\s` (whitespace and line
 * terminators): the runs {@link countTokens} counts in pieces are runs of
 * `\s` or of `\S`, as the regular expression `\S{256,}|\s{256,}` finds them.
 */
export function isSpaceCode(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * The maximal runs of at least LONG_RUN space or non-space code units in
 * `text.slice(start, end)`, as pairs of start and end positions in `text`;
 * one pass, where the regular expression tried each start again.
 */
function longRuns(text: string, start: number, end: number): number[] {
  const runs: number[] = [];
  let from = start;
  let space = false;
  for (let i = start; i < end; i++) {
    const s = isSpaceCode(text.charCodeAt(i));
    if (i === start) space = s;
    else if (s !== space) {
      if (i - from >= LONG_RUN) runs.push(from, i);
      from = i;
      space = s;
    }
  }
  if (end - from >= LONG_RUN) runs.push(from, end);
  return runs;
}

/**
 * Token counts of spans of one document, each the {@link countTokens} of
 * its slice. The document is cut into pre-tokens once, as `countTokens`
 * would cut it whole, and a span's count is read from running totals when
 * its own cut agrees with the document's: it starts at a pre-token of the
 * document (or its first pre-tokens lead to one), it ends on a non-space
 * character where a pre-token ends, and it does not cut a long run. Spans
 * a chunker asks about (sections, blocks, lines) nearly always qualify;
 * any other span is counted from its slice.
 */
export class SpanTokens {
  private cut?: DocumentCut;
  private asked = false;

  constructor(readonly text: string) {}

  /** `countTokens(text.slice(start, end))`. */
  count(start: number, end: number): number {
    const { text } = this;
    if (end <= start) return 0;
    // A short text is asked once (it fits one chunk): the document is cut only at the second question.
    if (!this.asked) {
      this.asked = true;
      return countRange(text, start, end);
    }
    this.cut ??= cutDocument(text);
    return this.countFromCut(start, end);
  }

  private countFromCut(start: number, end: number): number {
    const { text } = this;
    if (isSpaceCode(text.charCodeAt(end - 1)) || this.runAround(start, end)) return countRange(text, start, end);
    // A span ending inside a pre-token of the document (after a full stop the document
    // joins to the line breaks that follow): that pre-token's part is counted from the slice.
    const last = lastAtOrBefore(this.cut!.starts, end);
    const stop = this.cut!.starts[last]!;
    if (stop <= start && stop !== end) return countRange(text, start, end);
    const tail = stop === end ? 0 : countRange(text, stop, end);
    const first = this.pieceAt(start);
    if (first >= 0) return this.cut!.before[last]! - this.cut!.before[first]! + tail;
    return this.countUntilInStep(start, stop, last, end, tail);
  }

  /**
   * The count of a span starting inside a pre-token of the document (after
   * the space a word takes with it, say) and ending at `end`, whose part from
   * `stop` (where the document's pre-token `last` starts) has `tail` tokens:
   * its own first pre-tokens are counted until one ends where a pre-token of
   * the document starts, the rest read from the totals. Counted from the
   * slice when that does not happen before `stop` or the next long run, or
   * when the long run follows spaces (where the slice's cut may differ).
   */
  private countUntilInStep(start: number, stop: number, last: number, end: number, tail: number): number {
    const { text } = this;
    const fallback = (): number => countRange(text, start, end);
    if (isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) return fallback();
    const limit = Math.min(stop, this.nextRunStart(start));
    if (limit < stop && isSpaceCode(text.charCodeAt(limit - 1))) return fallback();
    const re = STEP_PRE_TOKENS;
    let total = 0;
    for (let pos = start; pos < limit; ) {
      re.lastIndex = pos;
      const m = re.exec(text);
      if (!m || m.index !== pos) return fallback();
      const next = pos + m[0].length;
      if (next > limit) return fallback();
      total += preTokenLength(m[0]);
      if (next === stop) return total + tail;
      const piece = this.pieceAt(next);
      if (piece >= 0) return total + this.cut!.before[last]! - this.cut!.before[piece]! + tail;
      pos = next;
    }
    return fallback();
  }

  /** Index of the pre-token starting at `pos` (the end counts as one), or -1. */
  private pieceAt(pos: number): number {
    const i = lastAtOrBefore(this.cut!.starts, pos);
    return this.cut!.starts[i] === pos ? i : -1;
  }

  /** True when `start` or `end` falls strictly inside a long run (the slice would hold only part of it). */
  private runAround(start: number, end: number): boolean {
    const { runs } = this.cut!;
    for (let r = this.firstRunEndingAfter(start); r < runs.length && runs[r]! < end; r += 2) {
      if ((start > runs[r]! && start < runs[r + 1]!) || (end > runs[r]! && end < runs[r + 1]!)) return true;
    }
    return false;
  }

  /** Start of the first long run at or after `pos`, else the document's length. */
  private nextRunStart(pos: number): number {
    const r = this.firstRunEndingAfter(pos);
    return r < this.cut!.runs.length ? Math.max(pos, this.cut!.runs[r]!) : this.text.length;
  }

  /** Index (even) of the first run whose end is after `pos`. */
  private firstRunEndingAfter(pos: number): number {
    const { runs } = this.cut!;
    let lo = 0;
    let hi = runs.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (runs[2 * mid + 1]! <= pos) lo = mid + 1;
      else hi = mid;
    }
    return 2 * lo;
  }
}

/** A document cut into pre-tokens as {@link countTokens} cuts it whole, with running totals. */
interface DocumentCut {
  /** Start of every pre-token, then the document's end. */
  starts: Int32Array;
  /** Tokens before each pre-token, then the total. */
  before: Int32Array;
  /** The long runs: start and end pairs. */
  runs: number[];
}

function cutDocument(text: string): DocumentCut {
  // About one pre-token per four characters in prose: seldom grown.
  const capacity = Math.max(16, Math.ceil(text.length / 3));
  let starts = new Int32Array(capacity);
  let before = new Int32Array(capacity);
  let n = 0;
  let total = 0;
  const push = (at: number, tokens: number): void => {
    if (n === starts.length) {
      starts = grow(starts);
      before = grow(before);
    }
    starts[n] = at;
    before[n++] = total;
    total += tokens;
  };
  const runs = forEachPiece(text, 0, text.length, push);
  push(text.length, 0);
  return { starts: starts.subarray(0, n), before: before.subarray(0, n), runs };
}

function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
