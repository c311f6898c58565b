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
  entries.forEach((entry, id) => {
    const lines = pages[entry.page - 1];
    if (!lines) return;
    const run = lines.length ? findRun(lines, key(entry.title), entry.top) : undefined;
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

/** The same words, or the same words with a label before one side's. */
function sameHeading(text: string, title: string): boolean {
  if (text === title) return true;
  if (text.endsWith(` ${title}`)) return LABEL.test(text.slice(0, -title.length - 1));
  if (title.endsWith(` ${text}`)) return LABEL.test(title.slice(0, -text.length - 1));
  return false;
}

/** The first and last index of the lines that read `title`; the run nearest the destination's top when there are several. */
function findRun(lines: PdfLine[], title: string, top: number | undefined): [number, number] | undefined {
  if (!title) return undefined;
  let best: [number, number] | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let i = 0; i < lines.length; i++) {
    let text = '';
    for (let j = i; j < Math.min(lines.length, i + MAX_RUN); j++) {
      if (lines[j]!.heading) break;
      text = text ? `${text} ${key(lines[j]!.text)}` : key(lines[j]!.text);
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
