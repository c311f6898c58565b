/**
 * How chunks meet sections: of the chunks of the HTML and Markdown files of
 * `../shared/corpus` (or `CORPUS_DIR`) and of the fidelity corpus's HTML
 * pages (`FIDELITY_DIR`, when built), how many hold the start of a section
 * after their own start (they span two heading paths or more), and how many
 * of those name every path they cover in `sections`. Prints the figures per
 * chunk size. Run: `npx tsx scripts/chunk-sections.ts [--max 512,256]`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { outline } from '../worker/chunking/segments.js';
import { extractText } from '../worker/extractors/index.js';
import { corpusRoot } from './lib/fidelity-corpus.js';

const { values } = parseArgs({ options: { max: { type: 'string', default: '512,256' } } });
const sizes = values.max.split(',').map(Number);
const corpus = process.env.CORPUS_DIR ?? join(import.meta.dirname, '../../shared/corpus');

function files(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, pattern) : pattern.test(name) ? [path] : [];
  });
}

const docs = [...files(join(corpus, 'html'), /\.html?$/), ...files(join(corpus, 'md'), /\.md$/), ...files(corpusRoot(), /\.html$/)];
console.log(`${docs.length} documents`);
for (const maxTokens of sizes) {
  let chunks = 0;
  let spanning = 0;
  let named = 0;
  for (const path of docs) {
    const r = await extractText(readFileSync(path), { filename: path, maxTextChars: 5_000_000, maxPdfPages: 1, acceptedFormats: ['html', 'markdown'], chunking: { maxTokens, overlapTokens: 0 } }).catch(() => undefined);
    if (!r?.chunks) continue;
    const starts = outline(r.markdown).headings.map((h) => h.start);
    for (const c of r.chunks) {
      chunks += 1;
      const inside = starts.filter((s) => s > c.charStart && s < c.charEnd).length;
      if (inside === 0) continue;
      spanning += 1;
      const sections = (c as { sections?: string[][] }).sections;
      if (sections && sections.length >= 2) named += 1;
    }
  }
  const pct = (n: number) => `${((100 * n) / chunks).toFixed(1)} %`;
  console.log(`maxTokens ${maxTokens}: ${chunks} chunks, ${spanning} (${pct(spanning)}) span two sections or more, ${spanning - named} (${pct(spanning - named)}) without every path named`);
}
