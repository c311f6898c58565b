import type { PdfLine } from './pdf-lines.js';

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
  const edgeKeys = pages.map(edgeLines);
  const pagesPerKey = new Map<string, number>();
  for (const keys of edgeKeys) for (const key of new Set(keys.values())) pagesPerKey.set(key, (pagesPerKey.get(key) ?? 0) + 1);
  const running = new Set([...pagesPerKey].filter(([, n]) => n >= MIN_PAGES && n >= withText * MIN_SHARE).map(([key]) => key));
  if (running.size === 0) return pages;
  const kept = new Set<string>();
  return pages.map((lines, i) => lines.filter((line) => {
    const key = edgeKeys[i]!.get(line);
    if (key === undefined || !running.has(key)) return true;
    if (!hasContent(key) || kept.has(key)) return false;
    kept.add(key);
    return true;
  }));
}

/** The page's lines in its top and bottom rows, with their keys. */
function edgeLines(lines: PdfLine[]): Map<PdfLine, string> {
  const rows = [...new Set(lines.map((l) => Math.round(l.y)))].sort((a, b) => b - a);
  const edges = new Set([...rows.slice(0, EDGE_ROWS), ...rows.slice(-EDGE_ROWS)]);
  const result = new Map<PdfLine, string>();
  for (const line of lines) if (edges.has(Math.round(line.y))) result.set(line, runningKey(line.text));
  return result;
}

/** The text with page numbers (Arabic anywhere, Roman at either end) as `#`. */
export function runningKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim()
    .replace(/\d+/g, '#')
    .replace(/^[ivxlcdm]+\b|\b[ivxlcdm]+$/g, '#');
}

/** More than "Page # of #": a title, a chapter name, a notice. */
function hasContent(key: string): boolean {
  return (key.replace(/\b(?:page|p|pg|of|seite|von)\b/g, '').match(/\p{L}/gu)?.length ?? 0) >= 3;
}
