/**
 * Extracts every good corpus PDF in this process, one at a time, and prints
 * per file and in total: word agreement (Jaccard of word sets) with
 * pdftotext, paragraphs against pdftotext's, line-end hyphenations left
 * split, words split into letters, running headers or footers kept more
 * than once, warnings, and throughput. Figures are printed, not asserted
 * (`test/corpus/pdf-fidelity-checks.ts` asserts them).
 *
 *   npx tsx scripts/pdf-fidelity.ts [--files]
 */
import { readFileSync } from 'node:fs';
import { extractText } from '../worker/extractors/index.js';
import { corpusDir, corpusFiles, corpusPresent, referencePath } from '../test/corpus/corpus-files.js';
import { lettersSplit, occurrences, paragraphCount, runningLines, splitHyphenations, wordJaccard } from '../test/corpus/pdf-fidelity-metrics.js';

const LIMITS = { maxTextChars: 5_000_000, maxPdfPages: 2000 };

async function main(): Promise<void> {
  const root = corpusDir();
  if (!corpusPresent(root)) {
    console.error(`No corpus at ${root}; set CORPUS_DIR.`);
    process.exitCode = 1;
    return;
  }
  const perFile = process.argv.includes('--files');
  const good = corpusFiles(root).filter((f) => f.rel.startsWith('pdf/') && f.outcomes.includes('ready'));
  let bytes = 0;
  let ms = 0;
  const jaccards: number[] = [];
  const totals = { paragraphs: 0, refParagraphs: 0, hyphens: 0, refHyphens: 0, letters: 0, repeatedHeaders: 0 };
  for (const file of good) {
    const data = readFileSync(file.path);
    const refPath = referencePath(root, file.rel);
    const reference = refPath ? readFileSync(refPath, 'utf8') : '';
    const started = performance.now();
    const r = await extractText(data, { filename: file.filename, ...LIMITS });
    const took = performance.now() - started;
    bytes += data.length;
    ms += took;
    const text = r.markdown;
    const j = wordJaccard(text, reference);
    jaccards.push(j);
    const row = {
      paragraphs: paragraphCount(text),
      refParagraphs: paragraphCount(reference),
      hyphens: splitHyphenations(text).length,
      refHyphens: splitHyphenations(reference).length,
      letters: lettersSplit(text, reference).length,
      repeatedHeaders: runningLines(reference).filter((l) => occurrences(text, l) > 1 + l.bodyCount).length,
    };
    for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += row[k];
    if (perFile) {
      const warnings = (r.warnings ?? []).map((w) => w.code).join(',');
      console.log([file.filename.padEnd(48), j.toFixed(3), `par ${row.paragraphs}/${row.refParagraphs}`, `hyph ${row.hyphens}/${row.refHyphens}`,
        `letters ${row.letters}`, `headers ${row.repeatedHeaders}`, `${took.toFixed(0)} ms`, warnings].join('  '));
    }
  }
  const mean = jaccards.reduce((a, b) => a + b, 0) / jaccards.length;
  console.log(`${good.length} good PDFs, ${(bytes / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s: ${(bytes / 1e6 / (ms / 1000)).toFixed(2)} MB/s`);
  console.log(`Jaccard with pdftotext: mean ${mean.toFixed(3)}, min ${Math.min(...jaccards).toFixed(3)}`);
  console.log(`paragraphs ${totals.paragraphs} (pdftotext ${totals.refParagraphs}); hyphenations left split ${totals.hyphens} (pdftotext ${totals.refHyphens});`
    + ` words split into letters ${totals.letters}; running lines kept more than once ${totals.repeatedHeaders}`);
}

await main();
