import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'cheerio/slim';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { referencePath, type CorpusFile } from './corpus-files.js';
import { recallPrecision } from './word-bags.js';

const MAX_TOKENS = 512;
const MIN_DOCX_AGREEMENT = 0.98;
const MIN_MEAN_RECALL = 0.97;
const MIN_MEAN_PRECISION = 0.9;
const MIN_CLEAN_ENDS = 0.95;
// pandoc leaves out text the extraction keeps: text boxes (mammoth-text-box, whose only text is in
// one, tika-testWORD_sdtInTextBox, tika-testWORD_various), tables it writes as [TABLE]
// (poi-bug65649) and the labels of embedded objects (poi-WordWithAttachments). For these every
// word of pandoc's text must still be found.
const PANDOC_DROPS = new Set([
  'docx/mammoth-text-box.docx', 'docx/tika-testWORD_sdtInTextBox.docx', 'docx/tika-testWORD_various.docx', 'docx/poi-bug65649.docx',
  'docx/poi-WordWithAttachments.docx',
]);
// Not words of the documents: pandoc splits words where the formatting changes inside them
// ("ita li c"), and writes [TABLE] for the tables it cannot lay out.
const PANDOC_ARTIFACTS = new Set(['ita', 'li', 'c', 'unde', 'r', 'line', 'table']);

// pandoc writes superscript digits as ² and ³ where mammoth keeps the digit in a <sup>.
const wordSet = (s: string) => new Set(s.toLowerCase().replace(/²/g, '2').replace(/³/g, '3').match(/[\p{L}\p{N}]+/gu) ?? []);

function jaccard(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const w of a) if (b.has(w)) both++;
  const union = a.size + b.size - both;
  return union === 0 ? 1 : both / union;
}

/**
 * A chunk ends cleanly before a blank line, a heading or the end, after the end of a sentence,
 * or between two rows of a table, list or code block.
 */
function endsCleanly(markdown: string, end: number, text: string, fences: readonly number[]): boolean {
  const after = markdown.slice(end, end + 200);
  if (/^\s*$/.test(after) || /^[ \t]*\n[ \t]*\n/.test(after) || /^\s*\n#{1,6} /.test(after)) return true;
  if (/[.!?…。！？:;]["'”’)\]*_`]*$/.test(text)) return true;
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  return /^\n(?:\s*\||\s*(?:[-*+]|\d{1,9}[.)])\s|[^\n]*\t)/.test(after) || /^\s*\||\t|^```/.test(lastLine) || insideFence(fences, end);
}

/** Where the fence lines of `markdown` start, in order. */
function fenceStarts(markdown: string): number[] {
  return [...markdown.matchAll(/^ {0,3}(?:```|~~~)/gm)].map((m) => m.index);
}

/** Whether an odd number of fence lines start before `pos`. */
function insideFence(fences: readonly number[], pos: number): boolean {
  let lo = 0;
  let hi = fences.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fences[mid]! < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo % 2 === 1;
}

/**
 * The structure checks over the corpus: agreement with pandoc on DOCX, footnotes, lists and text
 * boxes, the readability pages' main content, and chunks that cover each document and end at
 * boundaries. They read the extractions of corpus.test.ts's sandbox pass (`all`, by path under
 * `root`, filled before these tests run), of the files outside `bad/` that EXPECTED.md has
 * ready, so that each document is extracted once for every corpus check. A file that failed is left out; the
 * failure is corpus.test.ts's subject, and a document without text has no structure to check.
 */
export function describeStructure(root: string, corpus: readonly CorpusFile[], all: ReadonlyMap<string, Extraction | undefined>): void {
  const files = corpus.filter((f) => !f.rel.startsWith('bad/') && f.outcomes.includes('ready'));
  const results = new Map<string, Extraction>();
  describe(`structure over the corpus (${files.length} documents)`, () => {
    beforeAll(() => {
      for (const f of files) {
        const r = all.get(f.rel);
        if (r) results.set(f.rel, r);
      }
    });

    it(`agrees with pandoc on every ready DOCX (word Jaccard >= ${MIN_DOCX_AGREEMENT}; all of pandoc's words where pandoc drops text)`, () => {
      const docx = files.filter((f) => f.rel.startsWith('docx/') && results.has(f.rel) && referencePath(root, f.rel));
      expect(docx.length).toBeGreaterThan(30);
      for (const f of docx) {
        const ours = wordSet(results.get(f.rel)!.text);
        const ref = wordSet(readFileSync(referencePath(root, f.rel)!, 'utf8'));
        if (PANDOC_DROPS.has(f.rel)) {
          const missing = [...ref].filter((w) => !ours.has(w) && !PANDOC_ARTIFACTS.has(w));
          expect(missing, f.rel).toEqual([]);
        } else expect(jaccard(ours, ref), f.rel).toBeGreaterThanOrEqual(MIN_DOCX_AGREEMENT);
      }
    });

    it('keeps DOCX footnotes, endnotes, text boxes and numbered nested lists with their numbers', () => {
      const md = (name: string) => results.get(`docx/${name}`)?.markdown ?? '';
      expect(md('mammoth-footnotes.docx')).toMatch(/\n1\. A tachyon walks into a bar\.\n2\. Fin\.$/);
      expect(md('mammoth-endnotes.docx')).toMatch(/\n1\. A tachyon walks into a bar\.\n2\. Fin\.$/);
      expect(md('mammoth-footnotes.docx')).not.toMatch(/[↑]/);
      expect(md('mammoth-text-box.docx')).toContain('Datum plane');
      expect(md('poi-ComplexNumberedLists.docx')).toMatch(/^2\. Entry #2, with children\n {3}1\. 2-a\n {3}2\. 2-b$/m);
    });

    it(`keeps the main content of the readability pages (mean word recall >= ${MIN_MEAN_RECALL} at mean precision >= ${MIN_MEAN_PRECISION}), headings as Markdown headings`, () => {
      const pages = files.filter((f) => f.rel.startsWith('html/readability-'));
      expect(pages.length).toBeGreaterThan(0);
      const scores = pages.map((f) => {
        const expected = load(readFileSync(join(f.path, '../expected.html'), 'utf8')).root().text();
        return recallPrecision(expected, results.get(f.rel)?.text ?? '');
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(mean(scores.map((s) => s.recall))).toBeGreaterThanOrEqual(MIN_MEAN_RECALL);
      expect(mean(scores.map((s) => s.precision))).toBeGreaterThanOrEqual(MIN_MEAN_PRECISION);
      expect(results.get('html/readability-wikipedia/source.html')?.markdown).toMatch(/^## \S/m);
      expect(results.get('html/readability-wikipedia/source.html')?.text).not.toMatch(/\[edit\]|Jump to navigation/);
    });

    it(`cuts every document into chunks of at most ${MAX_TOKENS} tokens that cover its Markdown, ${MIN_CLEAN_ENDS * 100}% ending at a boundary`, () => {
      const ends = new Map<string, { total: number; clean: number; line: number }>();
      for (const [rel, r] of results) {
        const chunks = chunkMarkdown(r.markdown, { maxTokens: MAX_TOKENS, ...(r.pageStarts ? { pageStarts: r.pageStarts } : {}) });
        const format = rel.split('/')[0]!;
        const count = ends.get(format) ?? { total: 0, clean: 0, line: 0 };
        ends.set(format, count);
        let covered = '';
        let previousEnd = 0;
        const fences = fenceStarts(r.markdown);
        for (const c of chunks) {
          expect(c.tokens, rel).toBeLessThanOrEqual(MAX_TOKENS);
          expect(r.markdown.slice(c.charStart, c.charEnd), rel).toBe(c.text);
          expect(r.markdown.slice(previousEnd, c.charStart).trim(), `${rel}: text between chunks ${c.index - 1} and ${c.index}`).toBe('');
          covered += c.text;
          previousEnd = c.charEnd;
          count.total++;
          if (endsCleanly(r.markdown, c.charEnd, c.text, fences)) count.clean++;
          if (c.charEnd === r.markdown.length || r.markdown[c.charEnd] === '\n' || endsCleanly(r.markdown, c.charEnd, c.text, fences)) count.line++;
        }
        expect(covered.replace(/\s+/g, ''), rel).toBe(r.markdown.replace(/\s+/g, ''));
      }
      const share = (pick: (c: { total: number; clean: number; line: number }) => number, formats: string[]) => {
        const rows = formats.map((f) => ends.get(f) ?? { total: 0, clean: 0, line: 0 });
        return rows.reduce((n, c) => n + pick(c), 0) / Math.max(1, rows.reduce((n, c) => n + c.total, 0));
      };
      for (const [format, c] of ends) {
        console.info(`chunks of ${format}: ${c.total}; at a paragraph, sentence, heading or row boundary ${((100 * c.clean) / c.total).toFixed(1)}%; at least at a line end ${((100 * c.line) / c.total).toFixed(1)}%`);
      }
      // Every format on its own, PDF included now that its paragraphs are rebuilt from line spacing.
      // A CSV is plain text under the default format policy, one record a line: its row boundary is a line end.
      for (const format of ends.keys()) {
        const boundary = format === 'csv' ? (c: { line: number }) => c.line : (c: { clean: number }) => c.clean;
        expect(share(boundary, [format]), `${format} chunks ending at a boundary`).toBeGreaterThanOrEqual(MIN_CLEAN_ENDS);
      }
    }, 10 * 60_000);
  });
}
