import type { PdfLine } from './lines.js';

// Lines among the first or last two rows of a page are header and footer candidates.
const EDGE_ROWS = 2;
// A line at the edge of at least this share of the pages with text (and of three) is running.
const MIN_SHARE = 0.25;
const MIN_PAGES = 3;
// A running header naming the chapter, as Texinfo sets them (runningKey form: numbers are "#").
const CHAPTER_HEADER = /^(?:chapter|appendix|chapitre|annexe|kapitel|anhang|cap[ií]tulo|capitolo|ap[eé]ndice)\s+(?:#|[a-z])\s*:\s+\S/u;
// A key of a section number alone: "1.2", "4.4.1".
const SECTION_NUMBER_KEY = /^#(?:\.#)+\.?$/;
// Pages of one chapter that carry its running header are at most this far apart.
const RUN_GAP = 2;

/**
 * Removes running headers and footers: lines at the top or bottom of many
 * pages with the same text once page numbers are set aside. One that says
 * more than a page number is kept once, where it first appears, unless it
 * runs over a stretch of pages only (a chapter's header): that goes everywhere.
 */
export function removeRunningLines(pages: PdfLine[][]): PdfLine[][] {
  const withText = pages.filter((p) => p.length > 0).length;
  if (withText < MIN_PAGES) return pages;
  const edges = pages.map(edgeLines);
  const pagesOfKey = new Map<string, number[]>();
  edges.forEach((page, i) => {
    const keys = new Set([...page.values()].flatMap((l) => [l.key, ...l.parts.map((p) => p.key)]));
    for (const key of keys) {
      const at = pagesOfKey.get(key);
      if (at) at.push(i);
      else pagesOfKey.set(key, [i]);
    }
  });
  const running = new Set<string>();
  // A chapter's header ("Chapter 2: R Basics") runs over its own pages only; its title is the chapter's heading.
  const chapters = new Set<string>();
  // Chapter labels with a colon at the page edges ("Chapter 7: Cleaning Up Changes") on enough pages: a short chapter's go too.
  const labelled = [...pagesOfKey].filter(([key]) => CHAPTER_HEADER.test(key));
  const labels = labelled.reduce((n, [, at]) => n + at.length, 0) >= MIN_PAGES;
  for (const [key, at] of pagesOfKey) {
    if (at.length >= MIN_PAGES && at.length >= withText * MIN_SHARE) running.add(key);
    else if (longestRun(at) >= MIN_PAGES || (labels && CHAPTER_HEADER.test(key))) {
      running.add(key);
      chapters.add(key);
    }
  }
  if (running.size === 0) return pages;
  // A section number ("1.2") at the edge of many pages starts headings, it is not a page number: no line is cut at one.
  const cutters = [...running].filter((key) => !SECTION_NUMBER_KEY.test(key)).map((key) => ({ key, words: key.split(' ').length }));
  const kept = new Set<string>();
  // Whether a running text goes; one with content stays where it first appears.
  const drop = (key: string) => {
    if (!running.has(key)) return false;
    if (!hasContent(key) || kept.has(key) || chapters.has(key)) return true;
    kept.add(key);
    return false;
  };
  return pages.map((lines, i) => lines.flatMap((line) => {
    const edge = edges[i]!.get(line);
    if (!edge) return [line];
    if (running.has(edge.key)) return drop(edge.key) ? [] : [line];
    const parts = edge.parts.some((p) => running.has(p.key)) ? edge.parts : splitAtRunning(line.text, cutters);
    if (!parts) return [line];
    const rest = parts.filter((p) => !drop(p.key)).map((p) => p.text);
    return rest.length ? [{ ...line, text: rest.join(' '), parts: rest, partsX: undefined, cells: rest.length }] : [];
  }));
}

/** The most pages in a row (a page or two apart at most: odd and even pages may differ) among `pages`, in order. */
function longestRun(pages: number[]): number {
  let best = 0;
  let run = 0;
  pages.forEach((page, i) => {
    run = i > 0 && page - pages[i - 1]! <= RUN_GAP ? run + 1 : 1;
    best = Math.max(best, run);
  });
  return best;
}

/**
 * A line drawn as one piece that starts or ends with a running text ("User
 * Guide Chapter 2 …"), cut into that text and the rest. `cutters` are the
 * running texts in the order they are tried, with their numbers of words;
 * the keys of the line's first and last words are worked out once per number.
 */
function splitAtRunning(text: string, cutters: Array<{ key: string; words: number }>): EdgeText['parts'] | undefined {
  const words = text.split(' ');
  const rest = (from: number, to: number) => words.slice(from, to).join(' ');
  const ends = new Map<number, { head: string; tail: string; headKey: string; tailKey: string }>();
  for (const { key, words: n } of cutters) {
    if (n >= words.length) continue;
    let end = ends.get(n);
    if (!end) {
      const head = rest(0, n);
      const tail = words.slice(-n).join(' ');
      end = { head, tail, headKey: runningKey(head), tailKey: runningKey(tail) };
      ends.set(n, end);
    }
    if (end.headKey === key) return [{ text: end.head, key }, { text: rest(n, words.length), key: runningKey(rest(n, words.length)) }];
    if (end.tailKey === key) return [{ text: rest(0, words.length - n), key: runningKey(rest(0, words.length - n)) }, { text: end.tail, key }];
  }
  return undefined;
}

interface EdgeText { key: string; parts: Array<{ text: string; key: string }> }

/**
 * The page's lines in its top and bottom rows and near its edges, with the
 * keys of their text and of their pieces.
 */
function edgeLines(allLines: PdfLine[]): Map<PdfLine, EdgeText> {
  const lines = allLines.filter((l) => l.nearEdge !== false);
  const rows = [...new Set(lines.map((l) => Math.round(l.y)))].sort((a, b) => b - a);
  const edges = new Set([...rows.slice(0, EDGE_ROWS), ...rows.slice(-EDGE_ROWS)]);
  const result = new Map<PdfLine, EdgeText>();
  for (const line of lines) {
    if (!edges.has(Math.round(line.y))) continue;
    result.set(line, { key: runningKey(line.text), parts: (line.parts ?? []).map((text) => ({ text, key: runningKey(text) })) });
  }
  return result;
}

/**
 * The text with numbers (Arabic anywhere, Roman at either end) as `#`,
 * and without a page number at either end, where odd and even pages differ.
 */
export function runningKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim()
    .replace(/\d+/g, '#')
    .replace(/^[ivxlcdm]+\b|\b[ivxlcdm]+$/g, '#')
    .replace(/^#\s+|\s+#$/g, '');
}

/** More than "Page # of #": a title, a chapter name, a notice. */
function hasContent(key: string): boolean {
  return (key.replace(/\b(?:page|p|pg|of|seite|von)\b/g, '').match(/\p{L}/gu)?.length ?? 0) >= 3;
}
