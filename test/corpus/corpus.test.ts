import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'cheerio/slim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectType, SNIFF_BYTES } from '../../shared/formats/detect-type.js';
import type { Extraction } from '../../worker/extractors/index.js';
import { SandboxPool } from '../../worker/sandbox/sandbox.js';
import { corpusDir, corpusFiles, corpusPresent, type CorpusFile, type Outcome } from './corpus-files.js';
import { describePdfFidelity } from './pdf-fidelity-checks.js';
import { describeStructure } from './structure-checks.js';
import { recallPrecision } from './word-bags.js';

// Production defaults, with more time and memory because the children run TypeScript through tsx here.
const LIMITS = { timeoutMs: 120_000, memoryMb: 1536, maxTextChars: 5_000_000, maxPdfPages: 2000 };
const CONCURRENCY = 2;
// Measured with main-content extraction: mean word recall 0.982, lowest 0.833 (hukumusume, whose site
// menu Readability keeps and the extraction drops), then 0.903 (qq, a byline and a poll widget).
const MIN_PAGE_RECALL = 0.8;
const MIN_MEAN_RECALL = 0.97;

interface Result { upload: 415 | 'accepted'; outcome: Outcome; extraction?: Extraction; message?: string }

const root = corpusDir();
const present = corpusPresent(root);
const files = present ? corpusFiles(root) : [];
const results = new Map<string, Result>();
// The same extractions, by path, for the structure and PDF fidelity checks.
const extractions = new Map<string, Extraction | undefined>();
const textOf = (rel: string) => results.get(rel)?.extraction?.text ?? '';

async function runOne(pool: SandboxPool, file: CorpusFile): Promise<Result> {
  const bytes = readFileSync(file.path);
  // As the API does: the first SNIFF_BYTES while the upload streams, the whole file when it is shorter.
  const sniff = await detectType(bytes.subarray(0, SNIFF_BYTES), { filename: file.filename }, bytes.length <= SNIFF_BYTES);
  const upload = sniff.ok ? 'accepted' : 415;
  try {
    const extraction = await pool.extract(bytes, { filename: file.filename });
    return { upload, outcome: 'ready', extraction };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { upload, outcome: `failed/${e.code ?? 'internal'}` as Outcome, message: e.message };
  }
}

/** Word recall of `expected` in `actual`, counting repeated words. */
const recall = (expected: string, actual: string): number => recallPrecision(expected, actual).recall;

if (!present) console.warn(`corpus tests skipped: no corpus at ${root} (set CORPUS_DIR to run them)`);
const suite = present ? describe : describe.skip;
suite(present ? `real-world corpus (${files.length} files)` : `real-world corpus: SKIPPED, no corpus at ${root} (set CORPUS_DIR)`, () => {
  // Warm children, as a worker keeps them: a child per file would spend most of the time starting.
  let pool: SandboxPool;
  afterAll(async () => pool?.close());
  beforeAll(async () => {
    const started = Date.now();
    pool = new SandboxPool({ size: CONCURRENCY, limits: LIMITS });
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < files.length; i = next++) results.set(files[i]!.rel, await runOne(pool, files[i]!));
    }));
    for (const [rel, r] of results) extractions.set(rel, r.extraction);
    console.info(`corpus: ${files.length} files through detectType and the sandbox in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 20 * 60_000);

  it.each(files)('$rel ends as EXPECTED.md says', (file) => {
    const r = results.get(file.rel);
    expect(r, 'no result').toBeDefined();
    expect(file.upload, `upload answered ${r?.upload}`).toContain(r?.upload);
    expect(file.outcomes, `ended ${r?.outcome}: ${r?.message ?? ''}`).toContain(r?.outcome);
  });

  it('decodes every txt file without a replacement character (cp500 included)', () => {
    const txt = files.filter((f) => f.rel.startsWith('txt/'));
    expect(txt.length).toBe(11);
    for (const f of txt) expect(textOf(f.rel), f.rel).not.toMatch(/\ufffd/);
    expect(textOf('txt/tika-russian-cp866.txt')).toContain('Однажды, в студеную зимнюю пору');
    expect(textOf('txt/tika-win-1252-smartquotes.txt')).toContain('“windows”');
    expect(textOf('txt/tika-english-ebcdic-cp500.txt')).toContain('Hardware');
    expect(textOf('txt/gutenberg-44157-fr-latin1-crlf.txt')).toContain('PROFESSEUR à L\'ÉCOLE');
  });

  it('gives the Japanese text of the two CJK PDFs (pdf.js CMaps found)', () => {
    expect(textOf('pdf/pdfminer-jo-japanese.pdf')).toContain('わたくしといふ現象は');
    expect(textOf('pdf/pdfjs-issue16538-japanese-dvipdfmx.pdf')).toContain('マーケットモデル');
  });

  it('reads the misleading-charset page as Arabic and the UTF-16LE page as text, not markup', () => {
    const arabic = textOf('html/tika-arabic-misleading-charset.html');
    expect(arabic).toMatch(/\p{Script=Arabic}{4,}/u);
    expect(arabic).not.toMatch(/\ufffd/);
    expect(textOf('html/tika-utf16le.html')).toBe('This is a sample text');
  });

  it('takes mislabeled files for what they are', () => {
    expect(results.get('bad/html-mislabeled.pdf')?.extraction?.format).toBe('html');
    expect(results.get('bad/pdf-mislabeled.docx')?.extraction?.format).toBe('pdf');
  });

  it(`keeps the main content of the readability pages (word recall >= ${MIN_PAGE_RECALL} each, mean >= ${MIN_MEAN_RECALL})`, () => {
    const pages = files.filter((f) => f.rel.startsWith('html/readability-'));
    expect(pages.length).toBeGreaterThan(0);
    const scores = pages.map((f) => {
      const expected = load(readFileSync(join(f.path, '../expected.html'), 'utf8')).root().text();
      return { rel: f.rel, recall: recall(expected, textOf(f.rel)) };
    });
    for (const s of scores) expect(s.recall, s.rel).toBeGreaterThanOrEqual(MIN_PAGE_RECALL);
    expect(scores.reduce((a, s) => a + s.recall, 0) / scores.length).toBeGreaterThanOrEqual(MIN_MEAN_RECALL);
  });

  describeStructure(root, files, extractions);
  describePdfFidelity(root, files, extractions);
});
