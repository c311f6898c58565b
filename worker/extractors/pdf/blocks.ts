import { boldBreaks, isBoldHeading, isChapterLabel, numberedLevel, SIZED_NUMBERED_MAX_CHARS, startsNumbered, startsSectionNumber } from './headings.js';
import type { PdfLine } from './lines.js';
import { namedHeadingText } from './outline-headings.js';
import type { OutlineEntry } from './outline.js';
import { collapseLeaders, hasLeader } from './leaders.js';
import { isListItem, listItem, listLevels } from './lists.js';
import { renderTable, splitTables } from './tables.js';

/** What the whole document tells about its lines: body size, heading sizes and its words. */
export interface PdfDocumentStyle {
  /** Rounded font size of heading lines → Markdown level (1 to 3). */
  headingLevels: Map<number, number>;
  /** Lower-cased hyphenated compounds seen inside lines ("well-known"). */
  vocabulary: Set<string>;
  /**
   * Levels of the PDF's outline (0 when it has none). With two or more, the
   * outline alone makes headings; with one, font sizes add levels below it.
   */
  outlineDepth: number;
  /** Rounded font size of most of the text. */
  bodySize: number;
  /** Short bold lines met three times or more ("Examples", "Returns"): labels of a pattern, not headings of the outline. */
  boldLabels: Set<string>;
  /**
   * Three or more titles in a heading size or in bold start with a section
   * number ("2.3.2 Reading"): then the document numbers its sections, and an
   * unnumbered bold line ("Comments", "Problem characteristics") is a
   * paragraph's label, not a heading.
   */
  numberedSections: boolean;
}

// A heading is set at least this much larger than the body text...
const HEADING_RATIO = 1.15;
// ...in a size that carries little of the text.
const HEADING_MAX_SHARE = 0.1;
const HEADING_MAX_CHARS = 120;
const HYPHENATED_END = /\p{Ll}[-\u2010\u00ad]$/u;
// A short bold line repeated this many times in a document is a label.
const BOLD_LABEL_REPEATS = 3;
const BOLD_LABEL_MAX_CHARS = 40;
const NUMBERED_SECTIONS_MIN = 3;
// A title of a few words under a chapter label on a line of its own.
const LABEL_TITLE_MAX_CHARS = 120;
const LIST_MARKER = /^(?:[•◦▪‣∙●○■□►–]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}\))\s/u;
const CJK_END = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]$/u;
const CJK_START = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

const round = (n: number) => Math.round(n * 2) / 2;

/** Reads the body size, the heading sizes and the vocabulary from every page's lines. */
export function documentStyle(pages: PdfLine[][], outlineDepth = 0): PdfDocumentStyle {
  const charsBySize = new Map<number, number>();
  const vocabulary = new Set<string>();
  const boldLines = new Map<string, number>();
  const numberedTitles: PdfLine[] = [];
  let total = 0;
  for (const lines of pages) {
    for (const line of lines) {
      const n = line.text.length;
      total += n;
      if (line.bold && n <= BOLD_LABEL_MAX_CHARS) boldLines.set(line.text, (boldLines.get(line.text) ?? 0) + 1);
      // A table of contents' entries (leaders, a page number at the end) are numbered too, in the body size.
      if (n <= HEADING_MAX_CHARS && startsSectionNumber(line.text) && !/\d$/.test(line.text) && !hasLeader(line.text)) numberedTitles.push(line);
      charsBySize.set(round(line.size), (charsBySize.get(round(line.size)) ?? 0) + n);
      if (!line.text.includes('-') && !line.text.includes('\u2010')) continue;
      for (const w of line.text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)+[-\u2010]?/gu) ?? []) {
        if (!/[-\u2010]$/.test(w)) vocabulary.add(w.replace(/\u2010/g, '-'));
      }
    }
  }
  const body = [...charsBySize.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const headingSizes = [...charsBySize.entries()]
    .filter(([size, n]) => size >= body * HEADING_RATIO && size >= body + 1 && n <= total * HEADING_MAX_SHARE)
    .map(([size]) => size)
    .sort((a, b) => b - a);
  const headingLevels = new Map(headingSizes.map((size, i) => [size, Math.min(3, i + 1)]));
  const boldLabels = new Set([...boldLines].filter(([, n]) => n >= BOLD_LABEL_REPEATS).map(([text]) => text));
  const numberedSections = numberedTitles.filter((l) => l.bold || headingLevels.has(round(l.size))).length >= NUMBERED_SECTIONS_MIN;
  return { headingLevels, vocabulary, outlineDepth, bodySize: body, boldLabels, numberedSections };
}

/**
 * A page as Markdown and as plain text: the same blocks, the text without
 * Markdown's marks and escapes (a heading's `#`, a bullet's `-`, table rules),
 * as the page rebuild read it, so that the PDF's own asterisks, underscores,
 * backslashes or `&amp;` stay as they are printed.
 */
export interface PageText {
  markdown: string;
  text: string;
}

/** A block of a page, written both ways; consecutive list items share a line break in the text, not a blank line. */
interface Block {
  y: number;
  md: string;
  text: string;
  item?: boolean;
}

/**
 * One page's lines as Markdown paragraphs (and headings, list items and
 * tables), separated by blank lines, beside the page's plain text.
 * `missing` are outline entries of this page whose text was not found:
 * each is put in as a heading before the first paragraph below its top.
 */
export function pageMarkdown(lines: PdfLine[], style: PdfDocumentStyle, missing: OutlineEntry[] = []): PageText {
  const blocks: Block[] = splitTables(lines).flatMap((segment) => (segment.kind === 'table'
    ? [{ y: segment.y, md: renderTable(segment.rows), text: segment.rows.map((cells) => cells.join('\t')).join('\n') }]
    : renderParagraphs(segment.lines, style)));
  for (const entry of missing) {
    const at = blocks.findIndex((b) => entry.top !== undefined && b.y < entry.top);
    blocks.splice(at < 0 ? (entry.top === undefined ? 0 : blocks.length) : at, 0, { y: entry.top ?? Infinity, md: `${'#'.repeat(entry.level)} ${entry.title}`, text: entry.title });
  }
  let markdown = '';
  let text = '';
  let prev: Block | undefined;
  for (const b of blocks) {
    if (b.md === '') continue;
    markdown += markdown === '' ? b.md : `\n\n${b.md}`;
    text += prev === undefined ? b.text : `${prev.item && b.item ? '\n' : '\n\n'}${b.text}`;
    prev = b;
  }
  return { markdown, text };
}

/**
 * Splits lines where the reading order jumps, the size changes, the spacing
 * widens, an indented line or a list item starts, and (with `boldCue`, where
 * bold can make a heading) where a bold title line starts or ends.
 */
export function paragraphs(lines: PdfLine[], boldCue = true): PdfLine[][] {
  const pitch = linePitch(lines);
  const edges = blockEdges(lines);
  const result: PdfLine[][] = [];
  let current: PdfLine[] = [];
  lines.forEach((line, i) => {
    const prev = current.at(-1);
    if (prev && breaksBefore(prev, line, lines[i + 1], pitch, edges.get(line.block)!, boldCue)) {
      result.push(current);
      current = [];
    }
    current.push(line);
  });
  if (current.length) result.push(current);
  return result;
}

/** The usual distance between baselines, per font size: the most frequent one. */
function linePitch(lines: PdfLine[]): Map<number, number> {
  const counts = new Map<number, Map<number, number>>();
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1]!, lines[i]!];
    const d = a.y - b.y;
    if (a.block !== b.block || round(a.size) !== round(b.size) || d <= 0 || d > 3 * a.size) continue;
    const bySize = counts.get(round(a.size)) ?? new Map<number, number>();
    bySize.set(round(d), (bySize.get(round(d)) ?? 0) + 1);
    counts.set(round(a.size), bySize);
  }
  const pitch = new Map<number, number>();
  for (const [size, bySize] of counts) {
    const [best, n] = [...bySize.entries()].sort((p, q) => q[1] - p[1] || p[0] - q[0])[0]!;
    if (n >= 2) pitch.set(size, best);
  }
  return pitch;
}

function blockEdges(lines: PdfLine[]): Map<number, { left: number; right: number; count: number }> {
  const edges = new Map<number, { left: number; right: number; count: number }>();
  for (const l of lines) {
    const e = edges.get(l.block);
    edges.set(l.block, e ? { left: Math.min(e.left, l.x0), right: Math.max(e.right, l.x1), count: e.count + 1 } : { left: l.x0, right: l.x1, count: 1 });
  }
  return edges;
}

function breaksBefore(prev: PdfLine, line: PdfLine, next: PdfLine | undefined, pitch: Map<number, number>,
  edge: { left: number; right: number; count: number }, boldCue: boolean): boolean {
  if (line.heading?.entry !== prev.heading?.entry) return true;
  if (line.heading) return false;
  // A word hyphenated at the foot of a column goes on at the top of the next one.
  const continued = HYPHENATED_END.test(prev.text) && /^\p{Ll}/u.test(line.text);
  if (line.block !== prev.block) return !continued;
  if (Math.abs(line.size - prev.size) > 0.12 * Math.max(line.size, prev.size)) return true;
  if (boldCue && boldBreaks(prev, line)) return true;
  // The rest of a hyphenated word is never a paragraph (nor a heading) of its own, however wide the spacing.
  if (continued && prev.y - line.y > 0 && prev.y - line.y < 2.5 * line.size) return false;
  const gap = prev.y - line.y;
  const usual = pitch.get(round(line.size)) ?? 1.25 * line.size;
  if (gap <= 0 || gap > usual * 1.3 + 0.5) return true;
  if (LIST_MARKER.test(line.text) || hasLeader(prev.text)) return true;
  const em = line.size;
  const indented = line.x0 > edge.left + 0.8 * em && line.x0 - prev.x0 > 0.8 * em;
  // A first-line indent: the line after it is back at the left edge.
  // The line after a heading's hanging indent is the next paragraph's, in another size: it tells nothing.
  if (indented && !LIST_MARKER.test(prev.text) && next && next.block === line.block && round(next.size) === round(line.size)
    && Math.abs(next.x0 - edge.left) < 0.5 * em) return true;
  // A short line that ends a sentence ends its paragraph.
  const short = edge.count >= 3 && prev.x1 < edge.right - Math.max(4 * em, 0.15 * (edge.right - edge.left));
  return short && /[.!?:;]["')\]\u201d]?$/u.test(prev.text.slice(-2));
}

function renderParagraphs(lines: PdfLine[], style: PdfDocumentStyle): Block[] {
  // Bold cuts paragraphs only where it can make a heading: under an outline of two levels a bold word in a listing would cut it for nothing.
  const paras = joinChapterLabels(paragraphs(lines, style.outlineDepth <= 1), style);
  const levels = listLevels(paras);
  // Where two paragraphs in three start with a number, as in a table of contents, a number makes no heading.
  const numbered = paras.length < 4 || paras.filter((p) => startsNumbered(p[0]!.text)).length * 3 < paras.length * 2;
  return paras.map((para, i) => ({ y: para[0]!.y, ...renderParagraph(para, style, levels.get(para), numbered, paras[i + 1]) }));
}

/**
 * A chapter label on a line of its own ("Chapter 8", "Capitolo 1") and the
 * title under it become one paragraph, so they make one heading; the
 * outline does this itself when there is one.
 */
function joinChapterLabels(paras: PdfLine[][], style: PdfDocumentStyle): PdfLine[][] {
  if (style.outlineDepth > 1) return paras;
  const result: PdfLine[][] = [];
  for (let i = 0; i < paras.length; i++) {
    const [label, title] = [paras[i]!, paras[i + 1]];
    if (title && label.length === 1 && !label[0]!.heading && !title[0]!.heading && isChapterLabel(label[0]!.text) && titleLike(title)) {
      result.push([...label, ...title]);
      i++;
    } else {
      result.push(label);
    }
  }
  return result;
}

function titleLike(lines: PdfLine[]): boolean {
  const text = lines.map((l) => l.text).join(' ');
  return lines.length <= 2 && lines.every((l) => l.cells === 1) && text.length <= LABEL_TITLE_MAX_CHARS
    && /^[\p{Lu}\p{Lt}\p{Lo}\p{N}"“‘'(]/u.test(text) && !/[.,;:]$/.test(text) && !isListItem(text);
}

/** A paragraph as a heading, a list item (at `listLevel`, when it starts like one) or plain text, in Markdown and as text. */
function renderParagraph(lines: PdfLine[], style: PdfDocumentStyle, listLevel?: number, numbered = true, next?: PdfLine[]): Omit<Block, 'y'> {
  let text = lines[0]!.text;
  for (const line of lines.slice(1)) text = joinLines(text, line.text, style.vocabulary);
  text = collapseLeaders(text);
  const level = headingLevel(lines, text, style, numbered, next);
  const named = lines[0]!.heading;
  if (named) text = namedHeadingText(text, named.title);
  if (level) return { md: `${'#'.repeat(level)} ${escapeTags(text)}`, text };
  const item = listLevel === undefined ? undefined : listItem(text, listLevel);
  if (item !== undefined) return { md: `${item.indent}${item.marker} ${escapeTags(item.body)}`, text: `${'  '.repeat(listLevel!)}${item.marker === '-' ? '' : `${item.marker} `}${item.body}`, item: true };
  // Text that starts like a Markdown heading is not one.
  return { md: escapeTags(text).replace(/^(#{1,6})(?=\s|$)/, '\\$1'), text };
}

/** "<index>" in a manual is text, which Markdown would read as a tag. */
const escapeTags = (text: string): string => (text.includes('<') ? text.replace(/<(?=[\p{L}/!?])/gu, '\\<') : text);

/** Joins two lines of one paragraph, rejoining a word hyphenated across the line end. */
export function joinLines(text: string, next: string, vocabulary: Set<string>): string {
  const last = text.slice(-1);
  if (last === '\u00ad') return text.slice(0, -1) + next;
  if (last === '-' || last === '\u2010') {
    // Only the end of the text is looked at: paragraphs grow line by line.
    const hyphenated = /(\p{L}+)[-\u2010]$/u.exec(text.slice(-64));
    const start = /^[\p{L}\p{N}]+/u.exec(next)?.[0];
    if (hyphenated && start) {
      // "non-\nEnglish", "Type-\n3": a compound, the hyphen stays.
      if (!/^\p{Ll}/u.test(start)) return text + next;
      const left = hyphenated[1]!.toLowerCase();
      const right = start.toLowerCase();
      const compound = vocabulary.has(`${left}-${right}`);
      return compound ? text + next : text.slice(0, -1) + next;
    }
    if (/\p{N}$/u.test(text.slice(-2, -1)) && /^\p{N}/u.test(next)) return text + next;
  }
  if (CJK_END.test(last) && CJK_START.test(next)) return text + next;
  return `${text} ${next}`;
}

/**
 * Moves the rest of a word hyphenated at the end of a page to that page
 * ("implemen-" + "tation, and" → "implementation" + "and"), so that no page
 * starts or ends with half a word; in the Markdown and, where it reads the
 * same there, in the text.
 */
export function joinPagesAtHyphens(pages: PageText[], vocabulary: Set<string>): PageText[] {
  const result = pages.map((p) => ({ ...p }));
  for (let i = 1; i < result.length; i++) {
    const [prev, page] = [result[i - 1]!, result[i]!];
    if (!HYPHENATED_END.test(prev.markdown)) continue;
    const rest = /^(\p{Ll}[\p{L}\p{N}]*[.,;:!?)]*)[ \t]*/u.exec(page.markdown);
    if (!rest) continue;
    // The page starts with a paragraph, written alike both ways up to its first escape, and the one before ends alike.
    if (page.text.startsWith(rest[0]) && prev.text.endsWith(prev.markdown.slice(-2))) {
      prev.text = joinLines(prev.text, rest[1]!, vocabulary);
      page.text = page.text.slice(rest[0].length);
    }
    prev.markdown = joinLines(prev.markdown, rest[1]!, vocabulary);
    page.markdown = page.markdown.slice(rest[0].length);
  }
  return result;
}

/**
 * The outline's level for lines it names; otherwise, a short line set in a
 * heading size, not ending like a sentence nor starting with the rest of a
 * hyphenated word, is a heading (below the outline's one level, if any).
 */
function headingLevel(lines: PdfLine[], text: string, style: PdfDocumentStyle, numbered: boolean, next?: PdfLine[]): number | undefined {
  if (lines[0]!.heading) return lines[0]!.heading.level;
  // Half a hyphenated word is no heading.
  if (style.outlineDepth > 1 || /^\p{Ll}+(?:\s|$)/u.test(text) || /[-\u2010\u00ad]$/u.test(text)) return undefined;
  const label = isChapterLabel(lines[0]!.text) ? 1 : 0;
  const bySize = sizeLevel(lines, text, style, label);
  // Numbering tells the level better than sizes, which often set "4.4" and "4.4.1" alike.
  const level = bySize === undefined ? (numbered ? bodyNumberedLevel(lines, text, style) ?? boldLevel(lines, text, style, next) : undefined) : (numberedLevel(text, true) ?? bySize);
  return level && Math.min(6, level + style.outlineDepth);
}

/** A bold heading in a size of no heading level: its numbering's level, or one under the levels of heading sizes. */
function boldLevel(lines: PdfLine[], text: string, style: PdfDocumentStyle, next?: PdfLine[]): number | undefined {
  if (style.boldLabels.has(text) || !isBoldHeading(lines, text, next, style.bodySize)) return undefined;
  const numbered = numberedLevel(text, true);
  if (numbered === undefined && style.numberedSections) return undefined;
  return numbered ?? Math.min(6, Math.max(0, ...style.headingLevels.values()) + 1);
}

/** A one-line paragraph in the body size or larger numbered like a heading ("1.1 Title", "Chapter 2 Title"). */
function bodyNumberedLevel(lines: PdfLine[], text: string, style: PdfDocumentStyle): number | undefined {
  if (lines.length - (isChapterLabel(lines[0]!.text) ? 1 : 0) > 1 || lines.some((l) => l.cells > 1 || round(l.size) < style.bodySize)) return undefined;
  // Set larger than the body, its title may start in lower case too.
  return numberedLevel(text, lines.every((l) => round(l.size) > style.bodySize));
}

function sizeLevel(lines: PdfLine[], text: string, style: PdfDocumentStyle, label = 0): number | undefined {
  const numbered = startsSectionNumber(text);
  const [maxLines, maxChars] = numbered ? [3, SIZED_NUMBERED_MAX_CHARS] : [2 + label, HEADING_MAX_CHARS];
  if (lines.length > maxLines || lines.some((l) => l.cells > 1) || text.length > maxChars || /[.,;:]$/.test(text)) return undefined;
  if ((text.match(/\p{L}/gu)?.length ?? 0) < 2) return undefined;
  // A chapter label may be set smaller than its title, even in the body size.
  const levels = lines.map((l, i) => style.headingLevels.get(round(l.size)) ?? (i < label ? Number.POSITIVE_INFINITY : undefined));
  if (levels.some((l) => l === undefined)) return undefined;
  return Math.min(...(levels as number[]));
}
