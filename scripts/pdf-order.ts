/**
 * Word and reading-order agreement with pdftotext, file by file, for PDFs
 * named on the command line or, by default, the fidelity corpus's PDFs, the
 * good PDFs of the shared corpus and PARI's reference cards. References are
 * made with pdftotext once and kept in the fidelity directory. With
 * `--json FILE` the rows are also written there, so two runs can be compared
 * (`--compare BEFORE.json` prints the files that moved).
 *
 *   npx tsx scripts/pdf-order.ts [--json out.json] [--compare before.json] [file.pdf ...]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extractText } from '../worker/extractors/index.js';
import { corpusDir, corpusFiles, corpusPresent } from '../test/corpus/corpus-files.js';
import { buildCorpus, corpusRoot } from './lib/fidelity-corpus.js';
import { orderAgreement, wordJaccard } from './lib/fidelity-metrics.js';

const LIMITS = { maxTextChars: 5_000_000, maxPdfPages: 2000 };
const PARI_CARDS = ['refcard-ell', 'refcard-lfun', 'refcard-mf', 'refcard-nf'].map((n) => `/usr/share/pari/doc/${n}.pdf`);

interface Row { file: string; words: number; order: number }

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

function defaultFiles(): string[] {
  const files: string[] = [];
  try {
    files.push(...buildCorpus(corpusRoot()).filter((e) => e.format === 'pdf').map((e) => e.path));
  } catch (err) {
    console.error(`fidelity corpus skipped: ${(err as Error).message}`);
  }
  const root = corpusDir();
  if (corpusPresent(root)) files.push(...corpusFiles(root).filter((f) => f.rel.startsWith('pdf/') && f.outcomes.includes('ready')).map((f) => f.path));
  files.push(...PARI_CARDS.filter((p) => existsSync(p)));
  return files;
}

function pdfBytes(path: string): Buffer {
  const data = readFileSync(path);
  return path.endsWith('.gz') ? gunzipSync(data) : data;
}

function reference(data: Buffer): string {
  const dir = join(corpusRoot(), 'pdf-order-refs');
  mkdirSync(dir, { recursive: true });
  const key = join(dir, `${createHash('sha256').update(data).digest('hex').slice(0, 20)}.txt`);
  if (!existsSync(key)) {
    const pdf = `${key}.pdf`;
    writeFileSync(pdf, data);
    execFileSync('pdftotext', ['-enc', 'UTF-8', pdf, key]);
  }
  return readFileSync(key, 'utf8');
}

async function main(): Promise<void> {
  const named = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !['--json', '--compare'].includes(all[i - 1] ?? ''));
  const files = named.length ? named : defaultFiles();
  const rows: Row[] = [];
  for (const path of files) {
    const data = pdfBytes(path);
    const ref = reference(data);
    const out = await extractText(data, { filename: basename(path).replace(/\.gz$/, ''), ...LIMITS });
    const row = { file: basename(path), words: wordJaccard(out.text, ref), order: orderAgreement(ref, out.text) };
    rows.push(row);
    console.log(`${row.file.padEnd(50)} words ${row.words.toFixed(3)}  order ${row.order.toFixed(3)}`);
  }
  const mean = (k: 'words' | 'order') => rows.reduce((n, r) => n + r[k], 0) / rows.length;
  console.log(`${rows.length} PDFs: words mean ${mean('words').toFixed(3)}, order mean ${mean('order').toFixed(3)}`);
  const json = option('--json');
  if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
  const compare = option('--compare');
  if (compare) {
    const before = new Map((JSON.parse(readFileSync(compare, 'utf8')) as Row[]).map((r) => [r.file, r]));
    for (const r of rows) {
      const b = before.get(r.file);
      if (!b) continue;
      const dw = r.words - b.words;
      const dor = r.order - b.order;
      if (Math.abs(dw) >= 0.0005 || Math.abs(dor) >= 0.0005) {
        console.log(`moved ${r.file.padEnd(44)} words ${b.words.toFixed(3)} → ${r.words.toFixed(3)}  order ${b.order.toFixed(3)} → ${r.order.toFixed(3)}`);
      }
    }
  }
}

await main();
