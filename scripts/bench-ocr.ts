/**
 * The OCR benchmark: builds scans of known text (see lib/bench-ocr-set.ts),
 * reads them with native tesseract and (given a copy) tesseract.js on the
 * same 300 DPI page images, times page rendering by pdf.js on
 * @napi-rs/canvas beside pdftoppm, runs OCR through the sandbox pool beside
 * bare tesseract in turns, checks that born-digital PDFs are not OCR'd and
 * take as long with OCR on as off, and reads the mixed and vector-outline
 * PDFs. Prints Markdown tables; figures are medians of `--runs` paired runs
 * (tesseract.js, much slower, runs once).
 *
 *   npm run bench:ocr -- [--pages 4] [--runs 3] [--languages eng] [--memory-mb 1024] [--pdfjs] [--oplist] [--pool-only]
 *                        [--tesseract-js DIR]   (an npm prefix holding tesseract.js and @tesseract.js-data/eng)
 *
 * Needs tesseract (tesseract-ocr, tesseract-ocr-eng) and /usr/bin/time;
 * pdftoppm and pdfimages (poppler-utils) are used when installed, as a
 * worker uses them (`--pdfjs` renders with pdf.js, `--oplist` judges pages
 * by pdf.js's operator list instead of `pdfimages -list`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findImageLister, findOcrEngine, findPageRenderer } from '../worker/extractors/pdf/ocr/engine.js';
import type { OcrSettings } from '../worker/extractors/pdf/ocr/settings.js';
import { SandboxPool } from '../worker/sandbox/sandbox-pool.js';
import { buildBenchSet } from './lib/bench-ocr-set.js';
import { nativeTesseract, pdftoppmImages, renderWithPdfjs, renderWithPdftoppm, tesseractJs, type EngineRun } from './lib/bench-ocr-engines.js';
import { benchLimits, poolBesideBare, throughPool } from './lib/bench-ocr-pool.js';
import { formatPaired } from './lib/bench-pairs.js';
import { hasTool, median } from './lib/bench-util.js';
import { cer, wer } from './lib/text-distance.js';
import { args, flag } from './lib/cli-args.js';

const pages = Number(flag('pages') ?? 4);
const runs = Number(flag('runs') ?? 3);
const languages = flag('languages') ?? 'eng';
const memoryMb = Number(flag('memory-mb') ?? 1024);
const tjsPrefix = flag('tesseract-js');
// Only the pool beside bare tesseract: the section the throughput target is read from.
const poolOnly = args.includes('--pool-only');
const DOCS = ['README.md', 'docs/formats.md', 'docs/operations.md', 'docs/security-and-reliability.md'];

const engine = await findOcrEngine(languages);
if ('unavailable' in engine) {
  console.error(`bench-ocr: ${engine.unavailable}`);
  process.exit(1);
}
// The pool renders as a worker does: pdftoppm when installed (--pdfjs forces pdf.js).
const renderer = args.includes('--pdfjs') ? undefined : findPageRenderer();
const imageLister = args.includes('--oplist') ? undefined : findImageLister();
const ocr: OcrSettings = { binary: engine.binary, languages, maxPages: 1000, pageTimeoutMs: 300_000, ...(renderer ? { renderer } : {}), ...(imageLister ? { imageLister } : {}) };
const dir = mkdtempSync(join(tmpdir(), 'bench-ocr-'));
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const f = (x: number, d = 2) => x.toFixed(d);

try {
  console.log(`# OCR bench: ${pages} pages of prose (11 pt Helvetica, 18 pt headings), ${runs} runs, ${engine.version}`);
  const set = await buildBenchSet(DOCS, pages);
  const reference = set.pageTexts.join('\n');

  // Engines on the same page images, rendered once by pdf.js from the scan PDFs.
  if (!poolOnly) {
    const clean = await renderWithPdfjs(set.cleanPdf, 300);
    const noisy = await renderWithPdfjs(set.noisyPdf, 300);
    const engines: Array<{ name: string; runs: Array<{ clean: EngineRun; noisy: EngineRun }> }> = [{ name: `tesseract ${engine.version.split(' ')[1]} (native, 1 thread)`, runs: [] }];
    if (tjsPrefix) engines.push({ name: 'tesseract.js', runs: [] });
    for (let i = 0; i < runs; i++) {
      engines[0]!.runs.push({ clean: await nativeTesseract(clean.pgms, languages, 300), noisy: await nativeTesseract(noisy.pgms, languages, 300) });
      // tesseract.js takes several times as long: it runs once, on the first round only.
      if (tjsPrefix && i === 0) {
        const c = await tesseractJs(clean.pgms, languages, tjsPrefix);
        engines[1]!.name = `tesseract.js ${c.version} (wasm, best_int)`;
        engines[1]!.runs.push({ clean: c, noisy: await tesseractJs(noisy.pgms, languages, tjsPrefix) });
      }
    }
    console.log('\n## Engines on the same 300 DPI page images\n');
    console.log('| engine | pages/s (wall) | CPU s/page | CER clean | WER clean | CER noisy | WER noisy | peak memory MB |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const e of engines) {
      const all = e.runs.flatMap((r) => [r.clean, r.noisy]);
      const pagesPerS = median(all.map((r) => r.texts.length / r.wallS));
      const cpu = median(all.map((r) => r.cpuS / r.texts.length));
      const last = e.runs.at(-1)!;
      const peak = Math.max(...all.map((r) => r.peakMb));
      console.log(`| ${e.name} | ${f(pagesPerS)} | ${f(cpu)} | ${pct(cer(reference, last.clean.texts.join('\n')))} | ${pct(wer(reference, last.clean.texts.join('\n')))} | ${pct(cer(reference, last.noisy.texts.join('\n')))} | ${pct(wer(reference, last.noisy.texts.join('\n')))} | ${f(peak, 0)} |`);
    }

    console.log('\n## Rendering a scanned page at 300 DPI\n');
    console.log('| renderer | s/page (wall) | CPU s/page |');
    console.log('|---|---|---|');
    const pdfjs = [] as Array<{ wallS: number; cpuS: number }>;
    const poppler = [] as Array<{ wallS: number; cpuS: number }>;
    for (let i = 0; i < runs; i++) {
      const r = await renderWithPdfjs(set.noisyPdf, 300);
      pdfjs.push(r);
      if (await hasTool('pdftoppm')) poppler.push(await renderWithPdftoppm(set.noisyPdf, pages, 300, dir));
    }
    console.log(`| pdf.js 5 + @napi-rs/canvas (in the sandbox child) | ${f(median(pdfjs.map((r) => r.wallS / pages)))} | ${f(median(pdfjs.map((r) => r.cpuS / pages)))} |`);
    if (poppler.length) console.log(`| pdftoppm -gray (a process per page) | ${f(median(poppler.map((r) => r.wallS / pages)))} | ${f(median(poppler.map((r) => r.cpuS / pages)))} |`);
  }

  const judge = imageLister ? 'pdfimages -list' : "pdf.js's operator list";
  console.log(`\n## Through the sandbox pool (one child, pages rendered by ${renderer ?? 'pdf.js'}, judged by ${judge}) beside bare tesseract on the same images, in turns\n`);
  // Bare tesseract is given the very pixels the pool's renderer makes, at the same resolution and thread limit.
  const poolImages = renderer ? await pdftoppmImages(renderer, set.noisyPdf, pages, 300) : (await renderWithPdfjs(set.noisyPdf, 300)).pgms;
  const { paired, poolRuns } = await poolBesideBare(set.noisyPdf, poolImages, set.bornDigital, ocr, memoryMb, runs);
  const poolText = poolRuns.at(-1)!.extraction.text;
  console.log('| pool pages/s | bare tesseract pages/s | ratio (paired median, spread) | load average (1 min, start to end) | CER via pool (noisy) | peak child + tesseract MB | peak child MB | EXTRACT_MEMORY_MB |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(`| ${f(pages / paired.ours)} | ${f(pages / paired.reference)} | ${formatPaired(paired)} | ${f(paired.load.before, 1)} to ${f(paired.load.after, 1)} | ${pct(cer(reference, poolText))} | ${f(Math.max(...poolRuns.map((r) => r.peakTreeMb)), 0)} | ${f(Math.max(...poolRuns.map((r) => r.peakChildMb)), 0)} | ${memoryMb} |`);

  if (!poolOnly) {
    console.log('\n## Born-digital, mixed and vector-outline PDFs through the pool\n');
    const withOcr = new SandboxPool({ size: 1, limits: benchLimits(ocr, memoryMb), maxJobs: 1000 });
    const withoutOcr = new SandboxPool({ size: 1, limits: benchLimits(undefined, memoryMb), maxJobs: 1000 });
    await Promise.all([withOcr.ready(), withoutOcr.ready()]);
    try {
      const on: number[] = [];
      const off: number[] = [];
      let ocrWarnings = 0;
      for (let i = 0; i < runs * 3; i++) {
        const a = await throughPool(withOcr, set.bornDigital);
        off.push((await throughPool(withoutOcr, set.bornDigital)).wallS);
        on.push(a.wallS);
        ocrWarnings += a.extraction.warnings?.filter((w) => w.code === 'ocr').length ?? 0;
      }
      const mixed = await throughPool(withOcr, set.mixedPdf);
      const vector = await throughPool(withOcr, set.vectorPdf);
      console.log('| case | result |');
      console.log('|---|---|');
      console.log(`| born-digital, OCR on / off (ms, paired medians of ${runs * 3}) | ${f(median(on) * 1000, 0)} / ${f(median(off) * 1000, 0)}; pages OCR'd: ${ocrWarnings} |`);
      console.log(`| mixed (text pages 1, 3, ...; noisy scans 2, 4, ...) | CER ${pct(cer(reference, mixed.extraction.text))}; warnings: ${mixed.extraction.warnings?.map((w) => w.message).join(' ') ?? 'none'} |`);
      console.log(`| vector outlines (page 1, no text layer) | CER ${pct(cer(set.pageTexts[0]!, vector.extraction.text))}; warnings: ${vector.extraction.warnings?.map((w) => w.code).join(', ') ?? 'none'} |`);
    } finally {
      await Promise.all([withOcr.close(), withoutOcr.close()]);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
