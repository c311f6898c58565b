import { MIN_CHUNK_TOKENS } from '../../shared/chunking/chunk-settings.js';
import type { CutChunk as Chunk } from '../../shared/schemas/chunk.js';
import { ContinuationIndex, continuables } from './continuations.js';
import { plainTextHeadings } from './plain-headings.js';
import { Level, outline, split, titleHeading, type Heading, type Outline, type Span } from './segments.js';
import { lastAtOrBefore } from './sorted-search.js';
import { SpanTokens } from './tokenizer.js';

/** How {@link chunkMarkdown} cuts a document. */
export interface ChunkMarkdownOptions {
  /** No chunk holds more cl100k_base tokens than this; at least {@link MIN_CHUNK_TOKENS}. */
  maxTokens: number;
  /** Tokens of the previous chunk's tail (whole sentences, else whole words) repeated at the start of the next. Default 0. */
  overlapTokens?: number;
  /** PDF: where each page begins in the Markdown (see `Extraction.pageStarts`); adds `pageStart`/`pageEnd`. */
  pageStarts?: readonly number[];
  /**
   * A text source's title: the root of every chunk's heading path, above the
   * Markdown's own headings (a level-1 heading included). Left out when the
   * Markdown already says it: its first heading, or the heading it would be
   * titled by (see `firstHeading`), equals it once case and spacing are set
   * aside. Empty or absent: nothing is added.
   */
  title?: string;
  /**
   * The text is plain text (a `.txt` file), not Markdown: its headings are
   * the ones {@link plainTextHeadings} finds (numbered, underlined, capitals),
   * and a `#` line is not one. Default false.
   */
  plainText?: boolean;
}

interface Piece extends Span {
  tokens: number;
}

/**
 * A chunk is closed at a heading once it holds this share of `maxTokens`
 * (a quarter): smaller sections merge with the next ones, and such a chunk
 * lists every heading path it covers in `sections`.
 */
export const SECTION_MERGE_SHARE = 4;

/**
 * Bounds on a chunk's `sections`: a chunk of many tiny sections under a long
 * heading would otherwise repeat that heading once per section, in storage
 * and in every feed event of the chunk. Past them the list stops.
 */
export const MAX_SECTION_PATHS = 32;
export const MAX_SECTIONS_CHARS = 8192;

// Longer spans are cut without counting them first: no real text has this many characters per token.
const CHARS_PER_TOKEN_CEILING = 16;

/**
 * Splits Markdown into chunks of at most `maxTokens` tokens, following its
 * structure: a chunk holds whole sections when they fit, and a section too
 * long for one chunk is cut at paragraphs, then lines, then sentences, and
 * only when one of those is itself too long, between words (a code line or
 * table row is never cut unless it alone is too long). `text` is exactly
 * `markdown.slice(charStart, charEnd)`; the chunks cover every non-blank
 * character in order; `headings` is the heading path in force where the
 * chunk's own text starts (after any overlap), under `title` when given. A
 * section starts a new chunk unless the chunk before it holds less than a
 * quarter of `maxTokens` (tiny sections merge); a chunk whose own text
 * spans more than one heading path lists them in `sections` (at most
 * {@link MAX_SECTION_PATHS} paths of {@link MAX_SECTIONS_CHARS} characters in all). A
 * chunk that starts inside a fenced code block or a table carries `prefix`,
 * the fence line or the header and delimiter rows, so that `prefix + text`
 * reads on its own; `text` stays the exact slice, and `prefix + text` is
 * within `maxTokens` as well. Pure and synchronous.
 */
export function chunkMarkdown(markdown: string, opts: ChunkMarkdownOptions): Chunk[] {
  const max = Math.floor(opts.maxTokens);
  if (!(max >= MIN_CHUNK_TOKENS)) throw new RangeError(`maxTokens must be at least ${MIN_CHUNK_TOKENS}.`);
  const overlap = Math.max(0, Math.min(Math.floor(opts.overlapTokens ?? 0), max - 1));
  const o = outline(markdown, opts.plainText ? plainTextHeadings(markdown) : undefined);
  const leads = new ContinuationIndex(continuables(markdown, max));
  const tokens = new SpanTokens(markdown);
  const spans = pack(markdown, o, max, leads, tokens);
  const root = rootTitle(opts.title, markdown, o.headings);
  const path = headingPaths(o.headings, root);
  const covered = sectionPaths(o.headings, root);
  return spans.map((span, index): Chunk => {
    const sections = covered(span);
    const start = index > 0 && overlap > 0 ? overlapStart(markdown, spans[index - 1]!, span, overlap, max, leads, tokens) : span.start;
    const text = markdown.slice(start, span.end);
    const lead = leads.at(start)?.lead;
    return {
      index,
      text,
      charStart: start,
      charEnd: span.end,
      tokens: start === span.start ? span.tokens : tokens.count(start, span.end),
      headings: path(span.start),
      ...(sections.length > 1 ? { sections } : {}),
      ...(lead !== undefined ? { prefix: `${lead}\n` } : {}),
      ...(opts.pageStarts && opts.pageStarts.length > 0
        ? { pageStart: pageAt(opts.pageStarts, start), pageEnd: pageAt(opts.pageStarts, Math.max(start, span.end - 1)) }
        : {}),
    };
  });
}

/** Greedy packing of pieces, cutting a piece at the next finer level only when it alone is too long. */
function pack(md: string, o: Outline, max: number, leads: ContinuationIndex, counter: SpanTokens): Piece[] {
  const chunks: Piece[] = [];
  let current: Piece[] = [];
  let estimate = 0;
  // Emits one chunk from the start of `current` and keeps what did not fit for the next one.
  const flush = (): void => {
    const rest: Piece[] = [];
    for (;;) {
      // A chunk does not end on a heading: the heading goes with the text it heads.
      if (current.length > 1 && isHeadingOnly(md, o, current[current.length - 1]!)) {
        rest.unshift(current.pop()!);
        continue;
      }
      // Pieces are counted one by one; their joins can add a token, so the whole is counted again.
      const span = { start: current[0]!.start, end: current[current.length - 1]!.end };
      const tokens = current.length === 1 ? current[0]!.tokens : counter.count(span.start, span.end);
      if (tokens + leads.cost(span.start) <= max) {
        chunks.push({ ...span, tokens });
        break;
      }
      rest.unshift(current.pop()!);
    }
    current = rest;
    estimate = rest.reduce((n, p, i) => n + p.tokens + (i > 0 ? 1 : 0), rest.length > 0 ? leads.cost(rest[0]!.start) : 0);
  };
  const add = (span: Span, level: Level, known?: number): void => {
    const length = span.end - span.start;
    const tokens = known ?? (length > max * CHARS_PER_TOKEN_CEILING ? Infinity : counter.count(span.start, span.end));
    // A piece inside a code block or table may start a chunk, which then repeats the block's lead.
    if (tokens + leads.cost(span.start) <= max) {
      while (current.length > 0 && estimate + tokens + 1 > max) flush();
      if (current.length === 0) estimate = leads.cost(span.start);
      current.push({ ...span, tokens });
      estimate += tokens + (current.length > 1 ? 1 : 0);
      return;
    }
    // A section or paragraph that must be cut starts its own chunk, so chunks start at its heading
    // or first sentence, and the chunk before it ends at a boundary.
    if (level <= Level.Block) while (current.some((p) => !isHeadingOnly(md, o, p))) flush();
    const finer = Math.min(level + 1, Level.Char) as Level;
    const pieces = split(md, span, finer, o, Math.max(1, Math.floor(max / 4)));
    const same = pieces.length === 1 && pieces[0]!.start === span.start && pieces[0]!.end === span.end;
    if (level === Level.Char && same) {
      // Unreachable with maxTokens >= 16: a quarter of it in code units never exceeds it.
      current.push({ ...span, tokens });
      return;
    }
    for (const piece of pieces) add(piece, finer, same && Number.isFinite(tokens) ? tokens : undefined);
  };
  const closeAt = Math.floor(max / SECTION_MERGE_SHARE);
  for (const section of split(md, { start: 0, end: md.length }, Level.Section, o)) {
    // One section per chunk: the chunk so far ends here unless it is too small to stand alone.
    // A chunk of headings alone is not closed: the headings go with the text under them.
    if (estimate >= closeAt && current.some((p) => !isHeadingOnly(md, o, p))) while (current.length > 0) flush();
    add(section, Level.Section);
  }
  while (current.length > 0) flush();
  return chunks;
}

function isHeadingOnly(md: string, o: Outline, piece: Span): boolean {
  const end = o.headingStarts.get(piece.start);
  return end !== undefined && piece.end <= end;
}

/** Where the overlap taken from the end of `prev` begins: a sentence start when one fits, else a word start. */
function overlapStart(md: string, prev: Span, span: Piece, overlap: number, max: number, leads: ContinuationIndex, counter: SpanTokens): number {
  const from = Math.max(prev.start, prev.end - overlap * CHARS_PER_TOKEN_CEILING);
  const words: number[] = [];
  for (let i = from; i < prev.end; i++) if ((i === prev.start || /\s/.test(md[i - 1]!)) && !/\s/.test(md[i]!)) words.push(i);
  // The tail and the chunk are counted apart (plus one token for the join), then the result once more as a whole.
  const budget = Math.min(overlap, max - span.tokens - 1 - leads.cost(span.start));
  const fits = (at: number) => counter.count(at, prev.end) <= budget;
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fits(words[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  const sentence = words.slice(lo).find((w) => w === prev.start || /[.!?…。！？]["'”’)\]]*\s+$|\n\s*$/.test(md.slice(Math.max(prev.start, w - 4), w)));
  for (const start of [sentence, ...words.slice(lo)]) {
    if (start !== undefined && counter.count(start, span.end) + leads.cost(start) <= max) return start;
  }
  return span.start;
}

/** The title to put above the Markdown's own headings, unless the Markdown already opens with it. */
function rootTitle(title: string | undefined, md: string, headings: readonly Heading[]): string | undefined {
  const root = title?.replace(/\s+/g, ' ').trim();
  if (!root) return undefined;
  const key = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const own = [headings[0], titleHeading(md, headings)];
  return own.some((h) => h !== undefined && key(h.text) === key(root)) ? undefined : root;
}

/** A function from a position to the heading path in force there (under `root`, if any); positions must not go backwards. */
function headingPaths(headings: readonly Heading[], root?: string): (pos: number) => string[] {
  const stack: Heading[] = [];
  let next = 0;
  return (pos) => {
    while (next < headings.length && headings[next]!.start <= pos) {
      const h = headings[next++]!;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop();
      stack.push(h);
    }
    const path = stack.map((h) => h.text);
    return root === undefined ? path : [root, ...path];
  };
}

/** A function from a chunk's span to every heading path its text covers, in order: the one in force at its start, then each heading's inside it. */
function sectionPaths(headings: readonly Heading[], root?: string): (span: Span) => string[][] {
  const after: string[][] = [];
  const stack: Heading[] = [];
  for (const h of headings) {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop();
    stack.push(h);
    const path = stack.map((x) => x.text);
    after.push(root === undefined ? path : [root, ...path]);
  }
  const starts = headings.map((h) => h.start);
  const top = root === undefined ? [] : [root];
  return (span) => {
    let i = starts.length > 0 && starts[0]! <= span.start ? lastAtOrBefore(starts, span.start) : -1;
    const out = [i >= 0 ? after[i]! : top];
    let chars = out[0]!.reduce((n, t) => n + t.length, 0);
    for (i += 1; i < starts.length && starts[i]! < span.end && out.length < MAX_SECTION_PATHS; i++) {
      const path = after[i]!;
      if (out.some((p) => p.length === path.length && p.every((t, k) => t === path[k]))) continue;
      chars += path.reduce((n, t) => n + t.length, 0);
      if (chars > MAX_SECTIONS_CHARS) break;
      out.push(path);
    }
    return out;
  };
}

/** The 1-based page holding position `pos`: the last page that starts at or before it. */
function pageAt(pageStarts: readonly number[], pos: number): number {
  return lastAtOrBefore(pageStarts, pos) + 1;
}
