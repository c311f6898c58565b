import type { PdfLine } from './lines.js';

// Lines among the first or last two rows of a page are header and footer candidates.
const EDGE_ROWS = 2;
// A line at the edge of at least this share of the pages with text (and of three) is running.
const MIN_SHARE = 0.25;
const MIN_PAGES = 3;

/**
 * Removes running headers and footers: lines at the top or bottom of many
 * pages with the same text once page numbers are set aside. One that says
 * more than a page number is kept once, where it first appears.
 */
export function removeRunningLines(pages: PdfLine[][]): PdfLine[][] {
  const withText = pages.filter((p) => p.length > 0).length;
  if (withText < MIN_PAGES) return pages;
  const edges = pages.map(edgeLines);
  const pagesPerKey = new Map<string, number>();
  for (const page of edges) {
    const keys = new Set([...page.values()].flatMap((l) => [l.key, ...l.parts.map((p) => p.key)]));
    for (const key of keys) pagesPerKey.set(key, (pagesPerKey.get(key) ?? 0) + 1);
  }
  const running = new Set([...pagesPerKey].filter(([, n]) => n >= MIN_PAGES && n >= withText * MIN_SHARE).map(([key]) => key));
  if (running.size === 0) return pages;
  const kept = new Set<string>();
  // Whether a running text goes; one with content stays where it first appears.
  const drop = (key: string) => {
    if (!running.has(key)) return false;
    if (!hasContent(key) || kept.has(key)) return true;
    kept.add(key);
    return false;
  };
  return pages.map((lines, i) => lines.flatMap((line) => {
    const edge = edges[i]!.get(line);
    if (!edge) return [line];
    if (running.has(edge.key)) return drop(edge.key) ? [] : [line];
    const parts = edge.parts.some((p) => running.has(p.key)) ? edge.parts : splitAtRunning(line.text, running);
    if (!parts) return [line];
    const rest = parts.filter((p) => !drop(p.key)).map((p) => p.text);
    return rest.length ? [{ ...line, text: rest.join(' '), parts: rest, partsX: undefined, cells: rest.length }] : [];
  }));
}

/**
 * A line drawn as one piece that starts or ends with a running text ("User
 * Guide Chapter 2 …"), cut into that text and the rest.
 */
function splitAtRunning(text: string, running: Set<string>): EdgeText['parts'] | undefined {
  const words = text.split(' ');
  for (const key of running) {
    const n = key.split(' ').length;
    if (n >= words.length) continue;
    const head = words.slice(0, n).join(' ');
    const tail = words.slice(-n).join(' ');
    const rest = (from: number, to: number) => words.slice(from, to).join(' ');
    if (runningKey(head) === key) return [{ text: head, key }, { text: rest(n, words.length), key: runningKey(rest(n, words.length)) }];
    if (runningKey(tail) === key) return [{ text: rest(0, words.length - n), key: runningKey(rest(0, words.length - n)) }, { text: tail, key }];
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
