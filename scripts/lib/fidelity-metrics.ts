/**
 * The measures of `npm run fidelity`: how close an extraction is to a
 * reference reading of the same document, and counts of known defects.
 */
import { recallPrecision, wordBag } from '../../test/corpus/word-bags.js';
import { lettersSplit, splitHyphenations, wordJaccard } from '../../test/corpus/pdf-fidelity-metrics.js';

export { lettersSplit, recallPrecision, splitHyphenations, wordJaccard };

/** Share of the reference's word pairs (in order, counted with repeats) that the text also has next to each other. */
export function orderAgreement(reference: string, text: string): number {
  const pairs = (s: string) => {
    const w = wordBag(s);
    const m = new Map<string, number>();
    for (let i = 1; i < w.length; i++) m.set(`${w[i - 1]} ${w[i]}`, (m.get(`${w[i - 1]} ${w[i]}`) ?? 0) + 1);
    return m;
  };
  const want = pairs(reference);
  const have = pairs(text);
  let total = 0;
  let hit = 0;
  for (const [pair, n] of want) {
    total += n;
    hit += Math.min(n, have.get(pair) ?? 0);
  }
  return total ? hit / total : 1;
}

/** A heading reduced to its words, without a leading number ("2.1", "A.3", "Chapter 4"). */
export function headingKey(heading: string): string {
  return wordBag(heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1'))
    .join(' ')
    .replace(/^(?:chapter|chapitre|cap[ií]tulo|kapitel|capitolo|appendix|annexe|ap[eé]ndice|section|part)\s+[\da-z]{1,4}\s+/u, '')
    .replace(/^(?:[a-z]|\d{1,3})(?:\s\d{1,3})+\s+|^\d{1,3}\s+/u, '')
    .trim();
}

/** Markdown ATX headings' text, outside fenced code (where `# comment` lines are code). */
export function markdownHeadings(md: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  for (const line of md.split('\n')) {
    const mark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (mark && mark[0] === fence[0] && mark.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = undefined;
      continue;
    }
    if (mark) {
      fence = mark;
      continue;
    }
    const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/.exec(line);
    if (heading) found.push(heading[1]!);
  }
  return found;
}

/**
 * The level-1 heading a page's Markdown opens with when it names the page: the `<title>`, or
 * the title's own part of it ("Install" of "Install — Guide 1.0"); undefined otherwise.
 */
export function titleRoot(md: string, title: string | undefined): string | undefined {
  // Compared as text: escapes and code-span ticks off, no-break spaces as spaces.
  const first = /^# (.+)/.exec(md)?.[1]?.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])|`/g, '$1').replace(/\s+/g, ' ').trim();
  title = title?.replace(/\s+/g, ' ').trim();
  if (!title || !first) return undefined;
  return first === title || title.startsWith(`${first} `) || title.endsWith(` ${first}`) ? first : undefined;
}

/** Recall of `reference` headings among `found`, and precision of `found`; undefined when there is nothing to compare. */
export function headingScores(reference: string[], found: string[]): { recall?: number; precision?: number } {
  const ref = reference.map(headingKey).filter(Boolean);
  const got = found.map(headingKey).filter(Boolean);
  if (!ref.length) return {};
  const refSet = new Set(ref);
  const gotSet = new Set(got);
  const recall = ref.filter((h) => gotSet.has(h)).length / ref.length;
  const precision = got.length ? got.filter((h) => refSet.has(h)).length / got.length : 0;
  return { recall, precision };
}

/** Markdown list items (bullets and numbered). */
export const listItems = (md: string): number => md.match(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S/gm)?.length ?? 0;

/** Table rows: GFM pipe rows other than the delimiter row, and HTML `<tr>`s that hold text (not a rule or a spacer). */
export const tableRows = (md: string): number =>
  (md.match(/^[ \t]*\|.*\|[ \t]*$/gm)?.filter((l) => !/^[\s|:-]+$/.test(l)).length ?? 0)
  + (md.match(/<tr[\s>][\s\S]*?<\/tr>/gi)?.filter((row) => /[^\s\u00a0]/.test(row.replace(/^<tr[^>]*>|<[^>]*>|&nbsp;|&#160;/gi, ''))).length ?? 0);

/** Spacing accents standing apart from their letter ("Br¨oker", "Bezi´ er"). */
export const detachedAccents = (text: string): number => text.match(/[\u00a8\u00b4\u02c6\u02dc\u02c7\u02d8\u02d9\u02da\u00b8\u02dd\u00af]/g)?.length ?? 0;

/** The TeX logos split by their kerning ("L ATEX", "T EX"). */
export const splitLogos = (text: string): number => text.match(/\bL ?A ?T ?E ?X\b|\bT E X\b/g)?.filter((m) => m.includes(' ')).length ?? 0;

/** `<word>` tokens the Markdown shows that its plain text lost (`<br>` in table cells is markup). */
export function angleWordsLost(markdown: string, text: string): number {
  const count = (s: string) => s.match(/<[\p{L}][\p{L}\p{N}_-]*>/gu)?.filter((t) => t !== '<br>').length ?? 0;
  return Math.max(0, count(markdown.replace(/\\</g, '<').replace(/\\>/g, '>')) - count(text));
}

/** Headings that begin in the middle of a word: a lower-case start after a line-end hyphen ("### structions"). */
export const brokenHeadings = (headings: string[]): number => headings.filter((h) => /^\p{Ll}{3,}/u.test(h.trim())).length;

/** Per 10,000 words of `text`. */
export const per10k = (count: number, text: string): number => (count * 10_000) / Math.max(1, wordBag(text).length);
