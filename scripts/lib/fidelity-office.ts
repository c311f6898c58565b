/**
 * `npm run fidelity -- --office [--files]`: word agreement, cell agreement
 * and headings per sheet or slide of XLSX, ODS, PPTX, EPUB and ODT beside
 * LibreOffice and pandoc (see `fidelity-office-refs.ts`), on the shared
 * corpus (`../shared/corpus`, or `CORPUS_DIR`).
 */
import { readFileSync } from 'node:fs';
import { parseAcceptedFormats } from '../../shared/formats/format-policy.js';
import { corpusDir } from '../../test/corpus/corpus-files.js';
import { recallPrecision } from '../../test/corpus/word-bags.js';
import { extractText } from '../../worker/extractors/index.js';
import { officeEntries, officeReference, prepareSheetReferences, type RefSheet } from './fidelity-office-refs.js';

const all = parseAcceptedFormats('all');
const LIMITS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: 'formats' in all ? all.formats : [] };

interface FileScore {
  name: string;
  words: number;
  cells?: number;
  headings: [found: number, expected: number];
}

/** Prints one line per format (and per file with `--files`). */
export async function runOfficeFidelity(perFile: boolean): Promise<void> {
  const root = corpusDir();
  const byFormat = new Map<string, FileScore[]>();
  const entries = officeEntries(root);
  prepareSheetReferences(entries);
  for (const entry of entries) {
    const ref = officeReference(root, entry);
    if (!ref) {
      console.log(`${entry.name}: no reference (the reference tool could not read it, or soffice or pandoc is not installed)`);
      continue;
    }
    let out;
    try {
      out = await extractText(readFileSync(entry.path), { filename: entry.name, ...LIMITS });
    } catch (err) {
      console.log(`${entry.name}: failed ${(err as { code?: string }).code ?? err}`);
      continue;
    }
    const sections = sectionsOf(out.markdown);
    const score: FileScore = { name: entry.name, words: recallPrecision(ref.text, out.text).recall, headings: [0, 0] };
    if (ref.sheets) {
      const cells = ref.sheets.map((sheet) => sheetCells(sheet, sections.get(sheet.name.replace(/\s+/g, ' ').trim())));
      const found = cells.reduce((n, c) => n + c[0], 0);
      const total = cells.reduce((n, c) => n + c[1], 0);
      score.cells = total ? found / total : 1;
      score.headings = [ref.sheets.filter((s) => sections.has(s.name.replace(/\s+/g, ' ').trim())).length, ref.sheets.length];
    }
    if (ref.slides) {
      const ours = out.markdown.match(/^## Slide \d+( \(hidden\))?/gm) ?? [];
      score.headings = [ref.slides.filter((s, i) => ours[i] !== undefined && ours[i]!.endsWith('(hidden)') === s.hidden).length, ref.slides.length];
    }
    if (perFile) console.log(`${entry.name.padEnd(52)} words ${score.words.toFixed(3)}${score.cells !== undefined ? `  cells ${score.cells.toFixed(3)}` : ''}${score.headings[1] ? `  headings ${score.headings.join('/')}` : ''}`);
    byFormat.set(entry.format, [...(byFormat.get(entry.format) ?? []), score]);
  }
  console.log('\nformat  files  words mean (min)   cells mean (min)   headings');
  for (const [format, scores] of byFormat) {
    const words = scores.map((s) => s.words);
    const cells = scores.map((s) => s.cells).filter((c): c is number => c !== undefined);
    const [found, expected] = scores.reduce(([f, e], s) => [f + s.headings[0], e + s.headings[1]], [0, 0]);
    const stat = (v: number[]) => (v.length ? `${mean(v).toFixed(3)} (${Math.min(...v).toFixed(3)})` : '');
    console.log(`${format.padEnd(7)} ${String(scores.length).padStart(5)}  ${stat(words).padEnd(19)} ${stat(cells).padEnd(18)} ${expected ? `${found}/${expected}` : ''}`);
  }
}

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

/** Our Markdown's `##` sections by heading text (without a `(hidden)` mark), each as its table rows. */
export function sectionsOf(markdown: string): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  let rows: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.*?)(?: \(hidden\))?$/.exec(line);
    if (heading) out.set(heading[1]!, (rows = []));
    else if (rows && line.startsWith('|') && !/^\|(?:\s*:?-+:?\s*\|)+\s*$/.test(line)) rows.push(tableCells(line));
  }
  return out;
}

/** The cells of one GFM table row, unescaped. */
export function tableCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) cell += line[++i];
    else if (ch === '|') {
      cells.push(cell.trim().replace(/<br>/g, '\n'));
      cell = '';
    } else cell += ch;
  }
  return cells;
}

/**
 * [found, total]: the reference's non-empty cells found in the matching row
 * of ours. Rows are matched in order, each reference row to the best of the
 * next few of ours, so one row more or less does not shift the rest.
 */
export function sheetCells(sheet: RefSheet, ours: string[][] | undefined): [number, number] {
  const refRows = sheet.rows.map((r) => r.map((c) => c.trim()).filter(Boolean)).filter((r) => r.length > 0);
  const total = refRows.reduce((n, r) => n + r.length, 0);
  const rows = (ours ?? []).map((r) => r.filter((c) => c !== '')).filter((r) => r.length > 0);
  let found = 0;
  let next = 0;
  for (const ref of refRows) {
    let best = 0;
    let at = -1;
    for (let j = next; j < Math.min(rows.length, next + 6); j++) {
      const hits = matchedCells(ref, rows[j]!);
      if (hits > best) [best, at] = [hits, j];
      if (hits === ref.length) break;
    }
    found += best;
    if (at >= 0) next = at + 1;
  }
  return [found, total];
}

function matchedCells(ref: string[], ours: string[]): number {
  const left = [...ours];
  let hits = 0;
  for (const cell of ref) {
    const i = left.findIndex((o) => sameCell(cell, o));
    if (i >= 0) {
      hits += 1;
      left.splice(i, 1);
    }
  }
  return hits;
}

/**
 * Equal text, or a reference number that rounds to the number we show (at
 * our decimals, percent either way). Either decimal separator is allowed:
 * ODS keeps the text in the document's locale, the reference is en-US.
 */
export function sameCell(ref: string, ours: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (norm(ref) === norm(ours)) return true;
  const a = asNumber(ref);
  if (!a) return false;
  return [ours, swapSeparators(ours)].some((shown) => {
    const b = asNumber(shown);
    if (!b) return false;
    const scale = a.percent === b.percent ? 1 : a.percent ? 0.01 : 100;
    const rounded = Number((a.value * scale).toFixed(Math.min(b.decimals, 100)));
    return Math.abs(rounded - b.value) <= 10 ** -b.decimals / 2 + 1e-9 * Math.abs(b.value);
  });
}

const swapSeparators = (s: string) => s.replace(/[.,]/g, (c) => (c === '.' ? ',' : '.'));

function asNumber(s: string): { value: number; decimals: number; percent: boolean } | undefined {
  const m = /^\(?[-+]?[$€£¥]?\s?([\d,]*\.?\d+)(?:[eE]([-+]?\d+))?\s?(%?)\)?$/.exec(s.trim());
  if (!m) return undefined;
  const negative = /^\(|^-/.test(s.trim());
  const value = Number(`${m[1]!.replace(/,/g, '')}${m[2] ? `e${m[2]}` : ''}`) * (negative ? -1 : 1);
  if (!Number.isFinite(value)) return undefined;
  const decimals = (/\.(\d+)/.exec(m[1]!)?.[1]?.length ?? 0) - Number(m[2] ?? 0);
  return { value, decimals: Math.max(0, decimals), percent: m[3] === '%' };
}
