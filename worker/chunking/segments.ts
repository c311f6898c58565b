/** A span of the Markdown, `[start, end)` in UTF-16 indices, without surrounding whitespace. */
export interface Span {
  start: number;
  end: number;
}

/** An ATX heading line, or a setext heading's two lines: where it starts and ends, its level and its text without markup. */
export interface Heading {
  start: number;
  end: number;
  level: number;
  text: string;
}

/**
 * Finer and finer ways to cut a span: sections (at headings), blocks (at blank
 * lines), rows (table rows, code lines, list items), sentences, any line,
 * words, characters.
 */
export const enum Level {
  Section,
  Block,
  Row,
  Sentence,
  Line,
  Word,
  Char,
}

export const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])[ \t]/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;

/** Line starts, fenced-code state and headings of a Markdown document, read in one pass. */
export interface Outline {
  headings: Heading[];
  /** Start of each heading, to its end. */
  headingStarts: Map<number, number>;
  /** Start index of every line that begins a block (a heading, or the line after a blank line), outside code fences. */
  blockStarts: Set<number>;
  /** Start index of every line inside a code fence or of a table row: cut only between lines. */
  rigidLines: Set<number>;
  /** Start index of every line that is a row of its block: rigid lines, list items, tab-separated rows. */
  rowStarts: Set<number>;
}

/**
 * Reads headings, block starts and code fences, so that no later cut lands
 * inside a fence. With `given`, those are the headings (a plain-text
 * document's, see `plainTextHeadings`) and Markdown's `#` and underlines
 * are not read as headings.
 */
export function outline(md: string, given?: readonly Heading[]): Outline {
  const headings: Heading[] = [];
  const blockStarts = new Set<number>();
  const rigidLines = new Set<number>();
  const rowStarts = new Set<number>();
  let fence: string | undefined;
  let blank = true;
  // The previous line, when it was a one-line paragraph a setext underline can make a heading of.
  let paragraphLine: Span | undefined;
  for (let pos = 0; pos <= md.length;) {
    const nl = md.indexOf('\n', pos);
    const end = nl === -1 ? md.length : nl;
    const line = md.slice(pos, end);
    if (fence !== undefined) {
      rigidLines.add(pos);
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
    } else {
      const open = FENCE.exec(line);
      const heading = open || given ? null : ATX.exec(line);
      const setext = !given && paragraphLine && SETEXT_UNDERLINE.exec(line);
      const lineStartsParagraph = blank && !open && !heading && line.trim() !== '';
      if (line.trim() === '') blank = true;
      else if (setext && paragraphLine) {
        headings.push({ start: paragraphLine.start, end, level: setext[1]!.startsWith('=') ? 1 : 2, text: plainHeading(md.slice(paragraphLine.start, paragraphLine.end)) });
        rowStarts.delete(paragraphLine.start);
        blank = true;
      } else {
        if (blank || heading) blockStarts.add(pos);
        blank = false;
        if (open) {
          fence = open[1]!;
          rigidLines.add(pos);
        } else if (heading) {
          headings.push({ start: pos, end, level: heading[1]!.length, text: plainHeading(heading[2] ?? '') });
          blank = true;
        } else if (/^\s*\|/.test(line)) rigidLines.add(pos);
        else if (LIST_ITEM.test(line) || line.includes('\t')) rowStarts.add(pos);
      }
      paragraphLine = lineStartsParagraph && !rigidLines.has(pos) && !LIST_ITEM.test(line) ? { start: pos, end } : undefined;
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  for (const line of rigidLines) rowStarts.add(line);
  if (given) {
    // A plain-text heading starts a block, and so does the line after it, blank or not.
    for (const h of given) {
      headings.push(h);
      blockStarts.add(h.start);
      if (md[h.end] === '\n' && h.end + 1 < md.length) blockStarts.add(h.end + 1);
    }
  }
  return { headings, headingStarts: new Map(headings.map((h) => [h.start, h.end])), blockStarts, rigidLines, rowStarts };
}

/**
 * The title a text gives itself: its first level-1 heading (as a Markdown
 * upload is titled), else a heading of any level on its first line.
 */
export function firstHeading(md: string): string | undefined {
  return titleHeading(md, outline(md).headings)?.text || undefined;
}

/** The heading {@link firstHeading} reads, among the `headings` of `md`'s outline. */
export function titleHeading(md: string, headings: readonly Heading[]): Heading | undefined {
  return headings.find((h) => h.level === 1) ?? (headings[0] && md.slice(0, headings[0].start).trim() === '' ? headings[0] : undefined);
}

function plainHeading(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/\*\*|__|`/g, '').trim();
}

/** Cuts `span` at the boundaries of `level` (characters: every `charStep` code units), into trimmed, non-empty pieces. */
export function split(md: string, span: Span, level: Level, o: Outline, charStep = 256): Span[] {
  const cuts: number[] = [];
  const { start, end } = span;
  if (level === Level.Section) {
    for (const h of o.headings) if (h.start > start && h.start < end) cuts.push(h.start);
  } else if (level === Level.Block) {
    for (let i = md.indexOf('\n', start); i !== -1 && i < end; i = md.indexOf('\n', i + 1)) if (o.blockStarts.has(i + 1) && i + 1 < end) cuts.push(i + 1);
  } else if (level === Level.Row) {
    for (let i = md.indexOf('\n', start); i !== -1 && i < end; i = md.indexOf('\n', i + 1)) if (i + 1 < end && o.rowStarts.has(i + 1)) cuts.push(i + 1);
  } else if (level === Level.Line) {
    for (let i = md.indexOf('\n', start); i !== -1 && i < end; i = md.indexOf('\n', i + 1)) if (i + 1 < end) cuts.push(i + 1);
  } else if (level === Level.Sentence) {
    if (!o.rigidLines.has(lineStart(md, start))) {
      const re = /[.!?…]["'”’)\]]*(?=\s)|[。！？]["'”’）」』]*/g;
      re.lastIndex = start;
      for (let m = re.exec(md); m && m.index < end; m = re.exec(md)) if (m.index + m[0].length < end) cuts.push(m.index + m[0].length);
    }
  } else if (level === Level.Word) {
    const re = /\s+/g;
    re.lastIndex = start;
    for (let m = re.exec(md); m && m.index < end; m = re.exec(md)) cuts.push(m.index + m[0].length);
  } else {
    // A word longer than a whole chunk (a data blob): cut between code points.
    for (let i = start + charStep; i < end; i += charStep) cuts.push(isLowSurrogate(md.charCodeAt(i)) ? i + 1 : i);
  }
  const pieces: Span[] = [];
  let from = start;
  for (const cut of [...cuts, end]) {
    const piece = trim(md, { start: from, end: cut });
    if (piece.end > piece.start) pieces.push(level === Level.Row || level === Level.Line ? withIndent(md, piece, from) : piece);
    from = cut;
  }
  return pieces;
}

/** A line keeps its indentation (code, nested list items) when the piece starts the line. */
function withIndent(md: string, piece: Span, floor: number): Span {
  let start = piece.start;
  while (start > floor && (md[start - 1] === ' ' || md[start - 1] === '\t')) start--;
  return start === floor || md[start - 1] === '\n' ? { start, end: piece.end } : piece;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function lineStart(md: string, pos: number): number {
  return md.lastIndexOf('\n', pos - 1) + 1;
}

/** `span` without leading and trailing whitespace. */
export function trim(md: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && /\s/.test(md[start]!)) start++;
  while (end > start && /\s/.test(md[end - 1]!)) end--;
  return { start, end };
}
