import type { PdfLine } from './lines.js';

/**
 * Headings of a PDF without an outline, beyond font sizes: section numbers
 * ("1.1", "A.2") and chapter labels ("Chapter 8", "Capitolo 1") name a
 * heading and its level; a label on a line of its own and the title under it
 * are one heading; a short bold line standing alone over body text is one;
 * levels go down one step at a time.
 */

const LABEL_WORDS = 'chapter|chapitre|cap[ií]tulo|capitolo|kapitel|appendix|annexe|anhang|ap[eé]ndice|appendice|part|partie|parte|teil|lesson|lecci[oó]n|lektion';
const LABEL_WORD = new RegExp(`^(?:${LABEL_WORDS})\\s+`, 'iu');
const TITLE_START = '[\\p{Lu}\\p{Lt}\\p{Lo}\\p{N}"“‘\'(]';
/** What follows the label word: "8", "IV", "A:" alone, or before a title. */
const LABEL_ONLY = /^(?:\d{1,3}|[A-Z]|[IVXLC]{1,7})[.:]?$/u;
const LABELLED = new RegExp(`^(?:\\d{1,3}|[A-Z]|[IVXLC]{1,7})[.:]?\\s+(?=${TITLE_START})`, 'u');
/** "1.1 Title", "A.2. Title", "2.3.4 Title": a number of two parts or more before a title. */
const NUMBERED = /^((?:\d{1,3}|[A-Z])(?:\.\d{1,3}){1,5})\.?\s+(?=[\p{Lu}\p{Lt}\p{Lo}"“‘'(])/u;
/** The same before any word, for a line already set in a heading size ("4.4 rules"). */
const NUMBERED_ANY = /^((?:\d{1,3}|[A-Z])(?:\.\d{1,3}){1,5})\.?\s+(?=[\p{L}"“‘'(])/u;
// A numbered heading is a short title (a longer one when set in a heading size, as questions of a FAQ are),
// never a sentence nor a table of contents entry with its page.
const NUMBERED_MAX_CHARS = 100;
export const SIZED_NUMBERED_MAX_CHARS = 200;
const PAGE_NUMBER_END = /\s(?:\d{1,4}|[ivxlc]{1,6})$/u;

/** Whether a line holds only a chapter or part label ("Chapter 8"), which the title below it completes. */
export const isChapterLabel = (text: string): boolean => text.length <= 40 && LABEL_ONLY.test(afterLabelWord(text.trim()) ?? '');

/** The text after a leading label word ("Chapter ", "Capítulo "), or undefined without one. */
function afterLabelWord(text: string): string | undefined {
  const word = LABEL_WORD.exec(text);
  return word ? text.slice(word[0].length) : undefined;
}

/**
 * The level a heading's numbering gives: 1 for a chapter label, the number
 * of parts for a section number ("1.1" → 2, "A.2.3" → 3), undefined for
 * text that is not numbered like a heading. `sized`: the text is set in a
 * heading size, so its title may start in lower case (a file or command name).
 */
export function numberedLevel(text: string, sized = false): number | undefined {
  // A question is a heading (FAQs); a sentence, or a title cut short with an ellipsis (a running header), is not.
  if (text.length > (sized ? SIZED_NUMBERED_MAX_CHARS : NUMBERED_MAX_CHARS) || /[.,;:…]$/.test(text) || PAGE_NUMBER_END.test(text)) return undefined;
  if (LABELLED.test(afterLabelWord(text) ?? '')) return 1;
  const numbered = (sized ? NUMBERED_ANY : NUMBERED).exec(text);
  return numbered ? Math.min(6, numbered[1]!.split('.').length) : undefined;
}

/** Whether a paragraph starts with a section number of two parts or more ("3.1.4 …"). */
export const startsSectionNumber = (text: string): boolean => NUMBERED_ANY.test(text);

/** Whether a paragraph starts with a section number or a chapter label, as a table of contents' entries do. */
export const startsNumbered = (text: string): boolean => /^(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})+\.?)\s/u.test(text) || afterLabelWord(text) !== undefined;

// A bold heading is a title of a few words, in one or two lines.
const BOLD_MAX_CHARS = 80;
const BOLD_MAX_LINES = 2;
const BOLD_TITLE = /^[\p{Lu}\p{Lt}\p{Lo}\p{N}"“‘'(]/u;

/** Whether a bold line could be (part of) a heading: short, and not ending like a sentence or a label ("Note:"). */
const boldTitleLine = (line: PdfLine): boolean => Boolean(line.bold) && line.cells === 1 && line.text.length <= BOLD_MAX_CHARS && !/[.,;:]$/.test(line.text);

/**
 * Whether a paragraph ends between `prev` and `line` because one is a bold
 * title line and the other is not bold; a line starting in lower case goes
 * on with the one before (a title whose first line mixes in other fonts).
 */
export const boldBreaks = (prev: PdfLine, line: PdfLine): boolean =>
  Boolean(prev.bold) !== Boolean(line.bold) && (boldTitleLine(prev) || boldTitleLine(line)) && !/^\p{Ll}/u.test(line.text);

/**
 * Whether a paragraph is a heading set in bold, in the body size or larger:
 * one or two bold lines, a short title starting with a capital or a number,
 * followed by text that is not bold (a run of bold lines is a list of terms
 * or a table, not headings). `next` is the paragraph after it, if any.
 */
export function isBoldHeading(lines: PdfLine[], text: string, next: PdfLine[] | undefined, bodySize: number): boolean {
  if (lines.length > BOLD_MAX_LINES || text.length > BOLD_MAX_CHARS || !BOLD_TITLE.test(text) || !lines.every(boldTitleLine)) return false;
  if (lines.some((l) => Math.round(l.size * 2) / 2 < bodySize) || (text.match(/\p{L}/gu)?.length ?? 0) < 2) return false;
  return next === undefined || !next[0]!.bold;
}

const ATX = /^(#{1,6}) (?=\S)/;

/**
 * Makes heading levels go down at most one step at a time over the whole
 * document: each heading sits one level under the nearest earlier heading
 * of a smaller level (sizes and numbering can skip levels, or set a chapter
 * label smaller than its title). A document whose first heading is "###"
 * starts at "#".
 */
export function monotoneHeadings(pages: string[]): string[] {
  const stack: Array<{ raw: number; level: number }> = [];
  return pages.map((page) => {
    if (!page.includes('#')) return page;
    return page.split('\n').map((line) => {
      const atx = ATX.exec(line);
      if (!atx) return line;
      const raw = atx[1]!.length;
      while (stack.length && stack.at(-1)!.raw >= raw) stack.pop();
      const level = (stack.at(-1)?.level ?? 0) + 1;
      stack.push({ raw, level });
      return level === raw ? line : `${'#'.repeat(level)}${line.slice(raw)}`;
    }).join('\n');
  });
}
