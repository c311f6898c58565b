import type { PdfLine } from './lines.js';
import type { OutlineEntry } from './outline.js';

/**
 * Finds, on its page, the lines each outline entry names and marks them as
 * that heading, so the outline (not font sizes) decides headings and their
 * levels. A chapter label on its own line and the title after it ("Chapter
 * 8" / "“F” Standard Extension") become one heading whichever of the two the
 * entry names. Entries whose text is not on their page are returned per
 * page, to be put in as headings where their destination points.
 */
export function markOutlineHeadings(pages: PdfLine[][], entries: OutlineEntry[]): Map<number, OutlineEntry[]> {
  const unmatched = new Map<number, OutlineEntry[]>();
  // Each line's key once, however many entries point at its page (a line's text does not change here).
  const pageKeys = new Map<number, string[]>();
  entries.forEach((entry, id) => {
    const lines = pages[entry.page - 1];
    if (!lines) return;
    let keys = pageKeys.get(entry.page);
    if (!keys) pageKeys.set(entry.page, (keys = lines.map((line) => key(line.text))));
    const run = lines.length ? findRun(lines, keys, key(entry.title), entry.top) : undefined;
    if (!run) {
      unmatched.set(entry.page, [...(unmatched.get(entry.page) ?? []), entry]);
      return;
    }
    for (let i = run[0]; i <= run[1]; i++) lines[i]!.heading = { level: entry.level, entry: id, title: entry.title };
  });
  return unmatched;
}

// Up to this many lines make one heading (a label line, a title over two lines).
const MAX_RUN = 3;
// A chapter or section label, once lower-cased and reduced to words: "chapter 8", "1 1", "a 2", "capitolo iv".
const LABEL = /^(?:(?:chapter|chapitre|capitolo|cap[ií]tulo|kapitel|appendix|annexe|anhang|ap[eé]ndice|appendice|part|partie|parte|teil|section|lesson)\s?)?(?:\d{1,4}|[a-z]|[ivxlc]{1,6})?(?:\s\d{1,3}){0,4}$/u;

/** Lower-cased words and numbers separated by single spaces, compatibility forms folded ("ﬁ" → "fi"). */
export function key(text: string): string {
  return (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/** The same words, or the same words with a label before one side's; or the same letters but for a few a font lost. */
function sameHeading(text: string, title: string): boolean {
  if (text === title) return true;
  if (text.endsWith(` ${title}`)) return LABEL.test(text.slice(0, -title.length - 1));
  if (title.endsWith(` ${text}`)) return LABEL.test(title.slice(0, -text.length - 1));
  return lossyMatch(unlabelled(text), unlabelled(title));
}

// Only titles this long are matched with letters missing, and no more than this share of them may be.
const LOSSY_MIN_CHARS = 16;
const LOSSY_SHARE = 0.12;
// A section number before the words, once reduced to words ("1 4 1 ", "a 2 ").
const NUMBER_LABEL = /^(?:\d{1,3}|[a-z])(?: \d{1,3}){1,5} (?=\p{L})/u;

const unlabelled = (text: string) => text.replace(NUMBER_LABEL, '');

/**
 * Whether the page's words are the outline's but for a few letters its fonts
 * lost: a TeX font whose partial ToUnicode map leaves the ligatures ("ﬁ",
 * "ﬂ") to pdf.js as control codes it reads as spaces, or an underscore drawn
 * as a rule ("glp_read_graph" on the page is "glp read graph"). The page's
 * letters, spaces left out, must appear in order in the title's, starting
 * and ending with the same letter.
 */
export function lossyMatch(page: string, title: string): boolean {
  const p = page.replace(/ /g, '');
  const t = title.replace(/ /g, '');
  if (t.length < LOSSY_MIN_CHARS || p.length > t.length || t.length - p.length > Math.max(2, LOSSY_SHARE * t.length)) return false;
  // Both ends present: the first line of a title over two is not the title with its last word lost.
  if (p[0] !== t[0] || p.at(-1) !== t.at(-1)) return false;
  let i = 0;
  for (let j = 0; j < t.length && i < p.length; j++) if (t[j] === p[i]) i++;
  return i === p.length;
}

/**
 * The text a heading named by the outline shows: the outline's title, which
 * has the author's characters where the page's fonts may map glyphs oddly,
 * after the page's section number when the title lacks it ("1.4.1").
 */
export function namedHeadingText(text: string, title: string): string {
  const [page, named] = [key(text), key(title)];
  if (page === named) return title;
  // The same words with a label on one side only: the page's text, label and all.
  if (unlabelled(page) === unlabelled(named) || !lossyMatch(unlabelled(page), unlabelled(named))) return text;
  const label = page === unlabelled(page) || named !== unlabelled(named) ? '' : /^\S+\s+/.exec(text)?.[0] ?? '';
  return label + title;
}

/**
 * The first and last index of the lines that read `title` (`keys` holds each
 * line's {@link key}); the run nearest the destination's top when there are several.
 */
function findRun(lines: PdfLine[], keys: readonly string[], title: string, top: number | undefined): [number, number] | undefined {
  if (!title) return undefined;
  let best: [number, number] | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let i = 0; i < lines.length; i++) {
    let text = '';
    for (let j = i; j < Math.min(lines.length, i + MAX_RUN); j++) {
      if (lines[j]!.heading) break;
      text = text ? `${text} ${keys[j]!}` : keys[j]!;
      if (text.length > title.length + 24) break;
      if (!sameHeading(text, title)) continue;
      const distance = top === undefined ? i : Math.abs(lines[i]!.y - top);
      if (distance < bestDistance) [best, bestDistance] = [[i, j], distance];
      break;
    }
    if (best && top === undefined) break;
  }
  return best;
}
