import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Extraction } from '../../worker/extractors/index.js';
import { referencePath, type CorpusFile } from './corpus-files.js';
import { lettersSplit, occurrences, runningLines, splitHyphenations, wordJaccard } from './pdf-fidelity-metrics.js';

const MIN_MEAN_JACCARD = 0.95;
const MIN_JACCARD = 0.8;

/** Good PDFs whose pdftotext text is itself wrong, so agreement with it means nothing. */
const PDFTOTEXT_WRONG: Record<string, string> = {
  // Fonts without a Unicode map: pdftotext gives Latin Extended-B and Arabic look-alikes, pdf.js
  // ASCII symbols; neither is the text. These must carry the garbled_text warning instead.
  'pdfjs-TAMReview.pdf': 'pages 2-23 use fonts without a Unicode map (pdftotext: "ǣǡ Ǥ ǡ")',
  'pdfjs-ThuluthFeatures-arabic.pdf': 'glyph ids read as code points by both tools',
  'pdfjs-issue5874-urdu-rtl.pdf': 'glyph ids read as code points by both tools',
  // Six lines "ab ba abba" with shrinking word gaps (the pdf.js test's expectation); pdftotext
  // merges words across lines into "baba", "abab", "abbaabba".
  'pdfjs-Type3WordSpacing.pdf': 'pdftotext merges words of different lines',
  // A comb field: pdftotext prints one letter per cell ("a b c … z"); the field's value is one word.
  'pdfjs-annotation-text-widget-xfa.pdf': 'pdftotext splits the comb field value into letters',
};

/** Known shortfalls of pdf.js itself, kept visible here rather than hidden in a threshold. */
const PDFJS_LIMITS: Record<string, string> = {
  // pdf.js gives ZapfDingbats glyphs as ASCII punctuation; pdftotext maps them to ①, ❶, ➀ ….
  'pdfjs-standard_fonts.pdf': 'ZapfDingbats glyphs have no Unicode in pdf.js',
};

interface Result { name: string; extraction: Extraction; reference: string; jaccard: number }

/**
 * The PDF fidelity checks: every good PDF of the corpus (EXPECTED.md has it ready) against
 * pdftotext's text of it. They read the extractions of corpus.test.ts's sandbox pass (`all`, by
 * path under `root`, filled before these tests run), so that each PDF is extracted once for
 * every corpus check; a good PDF without an extraction fails them all.
 */
export function describePdfFidelity(root: string, corpus: readonly CorpusFile[], all: ReadonlyMap<string, Extraction | undefined>): void {
  const good = corpus.filter((f) => f.rel.startsWith('pdf/') && f.outcomes.includes('ready'));
  const results: Result[] = [];
  const measured = () => results.filter((r) => !(r.name in PDFTOTEXT_WRONG) && !(r.name in PDFJS_LIMITS));
  describe(`PDF fidelity against pdftotext (${good.length} good PDFs)`, () => {
    beforeAll(() => {
      for (const file of good) {
        const refPath = referencePath(root, file.rel);
        if (!refPath) throw new Error(`no pdftotext reference for ${file.rel}`);
        const extraction = all.get(file.rel);
        if (!extraction) throw new Error(`${file.rel} was not extracted (see its own test)`);
        const reference = readFileSync(refPath, 'utf8');
        results.push({ name: file.filename, extraction, reference, jaccard: wordJaccard(extraction.markdown, reference) });
      }
      for (const r of results) console.info(`${r.name.padEnd(48)} ${r.jaccard.toFixed(3)}${r.extraction.warnings ? ` ${r.extraction.warnings.map((w) => w.code).join(',')}` : ''}`);
    });

    it(`agrees with pdftotext on words: mean >= ${MIN_MEAN_JACCARD}, every file >= ${MIN_JACCARD}`, () => {
      const scores = measured().map((r) => r.jaccard);
      expect(scores.length).toBeGreaterThan(25);
      const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
      console.info(`word Jaccard with pdftotext: mean ${mean.toFixed(3)}, min ${Math.min(...scores).toFixed(3)} over ${scores.length} files`);
      expect(mean).toBeGreaterThanOrEqual(MIN_MEAN_JACCARD);
      for (const r of measured()) expect(r.jaccard, r.name).toBeGreaterThanOrEqual(MIN_JACCARD);
    });

    it('warns garbled_text on every file whose fonts have no Unicode map', () => {
      for (const name of ['pdfjs-TAMReview.pdf', 'pdfjs-ThuluthFeatures-arabic.pdf', 'pdfjs-issue5874-urdu-rtl.pdf']) {
        const r = results.find((x) => x.name === name);
        expect(r?.extraction.warnings?.map((w) => w.code), name).toContain('garbled_text');
      }
    });

    it('warns garbled_text on no file with a sound text layer', () => {
      const flagged = measured().filter((r) => r.extraction.warnings?.some((w) => w.code === 'garbled_text')).map((r) => r.name);
      expect(flagged).toEqual([]);
    });

    it('splits no word into single letters where pdftotext has the word', () => {
      for (const r of results) expect(lettersSplit(r.extraction.markdown, r.reference), r.name).toEqual([]);
    });

    it('joins words hyphenated across line ends (no more split than pdftotext has inside lines)', () => {
      const ours = results.reduce((n, r) => n + splitHyphenations(r.extraction.markdown).length, 0);
      const theirs = results.reduce((n, r) => n + splitHyphenations(r.reference).length, 0);
      console.info(`hyphenations left split: ${ours} (pdftotext, inside lines: ${theirs})`);
      expect(ours).toBeLessThanOrEqual(theirs);
    });

    it('keeps a running header or footer at most once', () => {
      const repeated = results.flatMap((r) => runningLines(r.reference)
        .filter((line) => occurrences(r.extraction.markdown, line) > 1 + line.bodyCount)
        .map((line) => `${r.name}: ${line.text}`));
      expect(repeated.sort()).toEqual([...RUNNING_EXCEPTIONS].sort());
    });
  });
}

/**
 * Lines pdftotext shows at the edge of half the pages that are content, or
 * that the count above over-counts (it allows one kept copy plus as many
 * copies as pdftotext has away from the page edges).
 */
const RUNNING_EXCEPTIONS: string[] = [
  // The specimen sentence of every font page, set mid-page: content, not a header.
  'pdfjs-standard_fonts.pdf: The quick brown fox jumps over the lazy dog',
  // Kept once; the other copies are the cover title and the table of contents, which pdftotext
  // breaks across lines so that they do not count there. (The section heading "Options for
  // \pgfPT: creating a «Periodic Table»" now takes the outline's title, guillemets included.)
  'big-pgf-PeriodicTableManual.pdf: pgf-PeriodicTable #.#.#',
  'reportlab-userguide.pdf: User Guide',
];
