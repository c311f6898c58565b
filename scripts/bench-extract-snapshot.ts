/**
 * Writes what the extraction makes of every corpus PDF and DOCX (Markdown,
 * text, chunks, page starts, title, warnings, or the error code) through a
 * warm pool of compiled children, one JSON file per document, and compares
 * two such snapshots, so a change meant only for speed can be shown to leave
 * the output as it was.
 *
 *   npx tsx scripts/bench-extract-snapshot.ts write <dir> [--dist dist] [--concurrency 2] [--pool 2] [--match <regex>]
 *   npx tsx scripts/bench-extract-snapshot.ts compare <before> <after>
 *
 * `--pool` children serve `--concurrency` documents at a time; with more children than
 * documents, the idle ones read page ranges of long PDFs. `compare` prints each file whose output differs and exits 1 when one does.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpusDir, corpusPresent } from '../test/corpus/corpus-files.js';
import { DEFAULT_LIMITS } from './lib/bench-extract-pool.js';
import { folderFiles } from './lib/bench-util.js';

type PoolModule = typeof import('../worker/sandbox/sandbox-pool.js');

const FOLDERS = ['pdf', 'docx', 'bad'];
const [command, first, second] = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};

async function write(dir: string): Promise<void> {
  const root = corpusDir();
  if (!corpusPresent(root)) throw new Error(`No corpus at ${root}; set CORPUS_DIR.`);
  const distDir = option('--dist', 'dist');
  const concurrency = Number(option('--concurrency', '2'));
  const { SandboxPool } = (await import(pathToFileURL(resolve(distDir, 'worker/sandbox/sandbox-pool.js')).href)) as PoolModule;
  const files = FOLDERS.flatMap((folder) => folderFiles(root, folder).map((f) => ({ ...f, key: `${folder}__${f.name}` })))
    .filter((f) => /\.(pdf|docx)$/i.test(f.name) && new RegExp(option('--match', '.')).test(f.name));
  mkdirSync(dir, { recursive: true });
  const pool = new SandboxPool({ size: Number(option('--pool', String(concurrency))), limits: { ...DEFAULT_LIMITS, timeoutMs: 300_000, chunking: { maxTokens: 512, overlapTokens: 0 } } });
  await pool.ready();
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < files.length; i = next++) {
      const file = files[i]!;
      const output = await pool.extract(readFileSync(file.path), { filename: file.name }).then(
        (r) => ({ ...r }),
        (e: { code?: string; message?: string }) => ({ error: e.code ?? 'unknown', message: e.message }),
      );
      writeFileSync(join(dir, `${file.key}.json`), JSON.stringify(output, null, 1));
    }
  }));
  await pool.close();
  console.log(`${files.length} files written to ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function compare(before: string, after: string): void {
  const names = new Set([...readdirSync(before), ...readdirSync(after)]);
  let differ = 0;
  for (const name of [...names].sort()) {
    const read = (dir: string) => {
      try {
        return readFileSync(join(dir, name), 'utf8');
      } catch {
        return '(missing)';
      }
    };
    const [a, b] = [read(before), read(after)];
    if (a === b) continue;
    differ++;
    const fields = a.startsWith('{') && b.startsWith('{') ? changedFields(JSON.parse(a), JSON.parse(b)) : ['file'];
    console.log(`${name}: ${fields.join(', ')}`);
  }
  console.log(`${names.size} files, ${differ} differ`);
  if (differ) process.exitCode = 1;
}

function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

if (command === 'write' && first) await write(first);
else if (command === 'compare' && first && second) compare(first, second);
else {
  console.error('usage: bench-extract-snapshot.ts write <dir> | compare <before> <after>');
  process.exitCode = 2;
}
