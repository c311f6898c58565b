/**
 * How close a PDF extraction is to pdftotext's text of the same file, measured
 * the same way by the fidelity test and `scripts/pdf-fidelity.ts`.
 */

/**
 * Lower-cased words; CJK characters count one by one since they are not
 * space-separated. A ligature character ("ﬀ", which pdftotext keeps where a
 * font's ToUnicode map names it) counts as its letters, so "oﬀset" and
 * "offset" are one word.
 */
export function words(text: string): string[] {
  return text.toLowerCase().replace(/[\ufb00-\ufb06]/g, (c) => c.normalize('NFKC')).match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? [];
}

/** Jaccard index of the two texts' word sets (1 when both are empty). */
export function wordJaccard(a: string, b: string): number {
  const sa = new Set(words(a));
  const sb = new Set(words(b));
  let both = 0;
  for (const w of sa) if (sb.has(w)) both++;
  const either = sa.size + sb.size - both;
  return either === 0 ? 1 : both / either;
}

/** Blocks separated by a blank line or a page break. */
export function paragraphCount(text: string): number {
  return text.split(/\n[ \t]*\n|\f/).filter((p) => p.trim() !== '').length;
}

/** A lower-case word, a hyphen, a line end or a space, and a lower-case word: a line-end hyphenation left split. */
export function splitHyphenations(text: string): string[] {
  return text.match(/\p{Ll}{2,}-[ \t]*\n?[ \t]*\p{Ll}{2,}/gu)?.filter((m) => /-\s/.test(m)) ?? [];
}

/**
 * Runs of four or more single letters separated by spaces ("t r e a t")
 * whose letters, put together, are a word of the reference.
 */
export function lettersSplit(text: string, reference: string): string[] {
  const known = new Set(words(reference));
  const runs = text.match(/(?<![\p{L}\p{N}])\p{L}(?: \p{L}){3,}(?![\p{L}\p{N}])/gu) ?? [];
  return runs.filter((run) => known.has(run.replace(/ /g, '').toLowerCase()));
}

/** A line pdftotext shows at the top or bottom of most pages, with its digits as a wildcard. */
export interface RunningLine {
  text: string;
  pattern: RegExp;
  /** How often the reference has it elsewhere than at a page's edge. */
  bodyCount: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Lines at the first two or last two lines of at least half of the
 * reference's pages (four pages or more), with at least eight letters, so
 * that they are headers or footers with content rather than a page number.
 */
export function runningLines(reference: string): RunningLine[] {
  const pages = reference.split('\f').filter((p) => p.trim() !== '');
  if (pages.length < 4) return [];
  const onPages = new Map<string, number>();
  for (const page of pages) {
    const lines = page.split('\n').map((l) => l.trim()).filter(Boolean);
    const edges = new Set([...lines.slice(0, 2), ...lines.slice(-2)].map((l) => l.replace(/\d+/g, '#')));
    for (const key of edges) onPages.set(key, (onPages.get(key) ?? 0) + 1);
  }
  const result: RunningLine[] = [];
  for (const [key, n] of onPages) {
    if (n < pages.length / 2 || (key.match(/\p{L}/gu)?.length ?? 0) < 8) continue;
    const pattern = new RegExp(key.split('#').map((part) => escape(part).replace(/\s+/g, '\\s+')).join('\\d+'), 'gu');
    const all = reference.match(pattern)?.length ?? 0;
    result.push({ text: key, pattern, bodyCount: Math.max(0, all - n) });
  }
  return result;
}

/** How often a running line appears in `text`. */
export function occurrences(text: string, line: RunningLine): number {
  return text.match(line.pattern)?.length ?? 0;
}
