import type { Heading } from './segments.js';

/**
 * Headings of a plain-text document, found conservatively (a missed heading
 * costs a heading path; a false one cuts a section in the middle of prose):
 *
 * - a title underlined with one repeated `=`, `-`, `*`, `~`, `^`, `.` or `#`
 *   about as long as it (setext, reStructuredText, Texinfo's info output);
 *   each underline character gets the next level the first time it is met,
 *   as reStructuredText and makeinfo assign them;
 * - an RFC-style numbered title (`3.2.1 General Syntax`, `1.1. Purpose`,
 *   `A.2 Grammar`, `Appendix B. Notes`, `Chapter 2. Setup`, `IV. Options`),
 *   its level the depth of its number, only when the document has two of
 *   them or more; a long one may wrap once;
 * - an ALL-CAPS line (`DESCRIPTION`, `SEE ALSO`) over a blank line or over
 *   an indented body, as manual pages are rendered.
 *
 * Every heading starts in the first column after a blank line (or the
 * document's start), is short and does not end like a sentence, and is
 * followed by more text that is not a sibling heading (a table of contents
 * lists siblings with no text between them). Lines inside fenced code,
 * indented lines, list items and table rows are never headings. Linear in
 * the length of the text.
 */
export function plainTextHeadings(text: string): Heading[] {
  const lines = lineSpans(text);
  const at = (i: number) => (i >= 0 && i < lines.length ? text.slice(lines[i]![0], lines[i]![1]) : '');
  const blank = (i: number) => i < 0 || i >= lines.length || at(i).trim() === '';
  const inFence = fencedLines(lines.length, at);
  const candidates: Candidate[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (inFence[i] || !blank(i - 1)) continue;
    const line = at(i).replace(/\s+$/, '');
    if (!isTitleShaped(line)) continue;
    const under = at(i + 1).replace(/\s+$/, '');
    if (isUnderlineOf(under, line)) {
      candidates.push({ line: i, last: i + 1, kind: `u${under[0]}`, depth: 0, text: line });
      i += 1;
      continue;
    }
    const numbered = NUMBERED.exec(line);
    // A numbered title may wrap once (a question in a FAQ): its second line in the first column, then a blank line.
    const wrapped = numbered && !blank(i + 1) && blank(i + 2) && isTitleShaped(at(i + 1).replace(/\s+$/, '')) && !/[.,;:]$/.test(at(i + 1).trim());
    if (!blank(i + 1) && !/^[ \t]+\S/.test(at(i + 1)) && !wrapped) continue;
    if (numbered && isNumberedTitle(numbered[2]!, numbered[1]!)) {
      const last = wrapped ? i + 1 : i;
      candidates.push({ line: i, last, kind: 'n', depth: depthOf(numbered[1]!), text: wrapped ? `${line} ${at(i + 1).trim()}` : line });
      i = last;
    } else if (isCapsTitle(line)) {
      candidates.push({ line: i, last: i, kind: 'c', depth: 1, text: line, indentedBody: !blank(i + 1) });
    }
  }
  // One by one: a spread of a few hundred thousand arguments overflows the stack.
  for (const sub of manSubsections(candidates, lines.length, at, blank)) candidates.push(sub);
  candidates.sort((a, b) => a.line - b.line);
  // A capitals line over an indented body is a manual page's section, unless the document underlines
  // its headings: then it is a term of a definition list (an info file's `OWNER` over its description).
  const underlined = candidates.some((c) => c.kind.startsWith('u'));
  const kept = candidates.filter((c, k) => !(underlined && c.indentedBody) && followedByText(c, candidates[k + 1], lines.length, blank));
  const numbered = kept.filter((c) => c.kind === 'n').length;
  const levels = new Map<string, number>();
  const out: Heading[] = [];
  for (const c of kept) {
    if (c.kind === 'n' && numbered < 2) continue;
    let level = c.depth;
    if (c.kind.startsWith('u')) {
      if (!levels.has(c.kind)) levels.set(c.kind, Math.min(levels.size + 1, 6));
      level = levels.get(c.kind)!;
    }
    out.push({ start: lines[c.line]![0], end: lines[c.last]![1], level: Math.min(level, 6), text: c.text.replace(/\s+/g, ' ').trim() });
  }
  return out;
}

interface Candidate {
  line: number;
  /** The heading's last line: its underline, or the title itself. */
  last: number;
  /** `u` and the underline character, `n` numbered, `c` capitals. */
  kind: string;
  depth: number;
  text: string;
  /** A capitals line with its body right under it, indented. */
  indentedBody?: boolean;
}

const MAX_TITLE_CHARS = 100;
const MAX_TITLE_WORDS = 14;
const UNDERLINE = /^([=\-*~^.#])\1{2,}$/;
// A section number, then one to three spaces, then the title.
const NUMBERED = /^((?:(?:Chapter|Part)[ \u00a0]+)?\d{1,3}(?:\.\d{1,3}){0,5}\.?|[A-Z]\.\d{1,3}(?:\.\d{1,3}){0,4}\.?|Appendix[ \u00a0]+[A-Z]\.?|[IVX]{1,5}\.)[ \t\u00a0]{1,3}(\S.*)$/;

/** First column, short, no run of three spaces (table columns, leaders), not a list item, row or rule. */
function isTitleShaped(line: string): boolean {
  if (line === '' || /^\s/.test(line) || line.length > MAX_TITLE_CHARS) return false;
  if (/ {3,}|\t|\.{4,}|\|/.test(line) || /^[-*+•>#]\s/.test(line) || /^\+[-=+]+\+?$/.test(line)) return false;
  if (UNDERLINE.test(line) || !/\p{L}/u.test(line)) return false;
  return line.split(' ').length <= MAX_TITLE_WORDS;
}

/** One repeated character, at least three, about as long as the title (CJK titles are drawn two columns a character). */
function isUnderlineOf(under: string, title: string): boolean {
  if (!UNDERLINE.test(under)) return false;
  const chars = [...title].length;
  if (/[.,;:!]$/.test(title)) return false;
  return under.length >= Math.min(chars, 3) && under.length >= chars * 0.6 && under.length <= chars * 2 + 2;
}

/**
 * A numbered line's title: starts with a capital letter (or a letter of a
 * script without case, or a path), ends unlike a sentence. Below the first
 * level (`8.1.1. dpkg`) it may start in lower case: lists are not numbered so.
 */
function isNumberedTitle(title: string, number: string): boolean {
  if (depthOf(number) >= 2 && /^\p{Ll}/u.test(title)) return !/[.,;:]$/.test(title);
  // A chapter numbered in Roman figures may be a short sentence (`II. Papa se fâche.`).
  if (/^[IVX]+\.$/.test(number) && /\.$/.test(title) && title.split(' ').length <= 8) return /^\p{Lu}/u.test(title);
  return /^(?:\p{Lu}|\p{Lo}|\/\w|["'‘“(]\p{L})/u.test(title) && !/[.,;:]$/.test(title);
}

/** Capitals only (with digits and a little punctuation), at least two letters, at most six words. */
function isCapsTitle(line: string): boolean {
  if (!/^[\p{Lu}\d][\p{Lu}\d &'’/(),\-]*$/u.test(line) || line.split(' ').length > 6) return false;
  return (line.match(/\p{Lu}/gu)?.length ?? 0) >= 2 && !/[,\-]$/.test(line);
}

/**
 * A manual page's subsections (`.SS`), drawn three columns in over a body
 * seven in, only in a document with two manual-page sections or more.
 */
function manSubsections(candidates: readonly Candidate[], count: number, at: (i: number) => string, blank: (i: number) => boolean): Candidate[] {
  if (candidates.filter((c) => c.kind === 'c' && c.indentedBody).length < 2) return [];
  const out: Candidate[] = [];
  for (let i = 1; i < count; i++) {
    if (!blank(i - 1)) continue;
    const m = /^ {3}(\p{Lu}[^\s].*)$/u.exec(at(i).replace(/\s+$/, ''));
    if (!m || !isTitleShaped(m[1]!) || /[.,;:]$/.test(m[1]!) || m[1]!.split(' ').length > 8) continue;
    const body = blank(i + 1) ? at(i + 2) : at(i + 1);
    if (/^ {7,}\S/.test(body)) out.push({ line: i, last: i, kind: 's', depth: 2, text: m[1]! });
  }
  return out;
}

function depthOf(number: string): number {
  const n = number.replace(/\.$/, '');
  if (/^(?:Appendix\s+[A-Z]|Chapter\s+\d+|Part\s+\d+|[IVX]+)$/.test(n)) return 1;
  return n.split('.').length;
}

/**
 * Text follows the heading before the next candidate, or the next one is a
 * deeper heading (a chapter opening on its first section). Two siblings
 * with nothing between them are a table of contents or a list.
 */
function followedByText(c: Candidate, next: Candidate | undefined, count: number, blank: (i: number) => boolean): boolean {
  let j = c.last + 1;
  while (j < count && blank(j)) j++;
  if (j >= count) return false;
  if (next === undefined || next.line !== j) return true;
  if (next.kind !== c.kind) return c.kind === 'c' ? false : true;
  return next.depth > c.depth;
}

/** Which lines are inside a ``` or ~~~ fence (the fence lines included). */
function fencedLines(count: number, at: (i: number) => string): boolean[] {
  const out = new Array<boolean>(count).fill(false);
  let fence: string | undefined;
  for (let i = 0; i < count; i++) {
    const line = at(i);
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      out[i] = true;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
    } else if (open && !(i > 0 && at(i - 1).trim() !== '' && /^~+\s*$/.test(line))) {
      // A run of tildes right under a line is that line's underline, not a fence.
      out[i] = true;
      fence = open[1]!;
    }
  }
  return out;
}

function lineSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let pos = 0; pos <= text.length;) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    spans.push([pos, end]);
    if (nl === -1) break;
    pos = nl + 1;
  }
  return spans;
}
