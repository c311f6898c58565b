/**
 * Measures structure and text fidelity per format against the reference
 * tools, on a corpus built from Debian documentation packages (see
 * `scripts/lib/fidelity-corpus.ts`), and prints one table per format:
 * word and order agreement, heading recall and precision, list items and
 * table rows beside the reference's, and defects per 10,000 words.
 *
 *   npm run fidelity [-- --files]
 *   npm run fidelity -- --html [--files]   (the HTML pages only: seconds rather than minutes)
 *   npm run fidelity -- --office [--files]   (XLSX, ODS, PPTX, EPUB, ODT; see lib/fidelity-office.ts)
 *   npm run fidelity -- --no-outline [--files]   (PDF headings without the outline, scored against it)
 */
import { readFileSync } from 'node:fs';
// The service's pdf.js module: the first document pdf.js opens fixes its worker side for the process (patched only when loaded from there).
import { getDocument } from '../worker/extractors/pdf/pdfjs.js';
import { extractText } from '../worker/extractors/index.js';
import { APT_PACKAGES, buildCorpus, corpusRoot, missing } from './lib/fidelity-corpus.js';
import * as m from './lib/fidelity-metrics.js';
import { runOfficeFidelity } from './lib/fidelity-office.js';
import { reference } from './lib/fidelity-references.js';

const LIMITS = { maxTextChars: 5_000_000, maxPdfPages: 2000 };
type Row = Record<string, number | undefined>;

async function main(): Promise<void> {
  if (process.argv.includes('--office')) return runOfficeFidelity(process.argv.includes('--files'));
  const gaps = missing();
  if (gaps.length) {
    console.error(`Missing: ${gaps.join(', ')}\nInstall: apt-get install --no-install-recommends ${APT_PACKAGES.join(' ')}`);
    process.exitCode = 1;
    return;
  }
  const perFile = process.argv.includes('--files');
  const outlines = process.argv.includes('--no-outline') ? await outlineSwitch() : undefined;
  const byFormat = new Map<string, Row[]>();
  const htmlOnly = process.argv.includes('--html');
  for (const entry of buildCorpus(corpusRoot()).filter((e) => (!outlines || e.format === 'pdf') && (!htmlOnly || e.format === 'html'))) {
    const ref = await reference(entry);
    const started = performance.now();
    outlines?.hide(true);
    const out = await extractText(readFileSync(entry.path), { filename: entry.name, ...LIMITS });
    outlines?.hide(false);
    const ms = performance.now() - started;
    const ours = m.markdownHeadings(out.markdown);
    // The <title> put before an HTML page's content as its root is not one of the container's headings.
    const root = entry.format === 'html' ? m.titleRoot(out.markdown, ref.title) : undefined;
    const scored = root !== undefined && root === ref.title?.replace(/\s+/g, ' ').trim() && !ref.headings?.includes(root) ? ours.slice(1) : ours;
    const heads = ref.headings ? m.headingScores(ref.headings, scored) : {};
    const { recall, precision } = m.recallPrecision(ref.text, out.text);
    const row: Row = {
      words: entry.format === 'html' ? undefined : m.wordJaccard(out.text, ref.text),
      recall: entry.format === 'html' ? recall : undefined,
      precision: entry.format === 'html' ? precision : undefined,
      order: m.orderAgreement(ref.text, out.text),
      hRecall: heads.recall,
      hPrecision: heads.precision,
      lists: m.listItems(out.markdown),
      refLists: ref.markdown ? m.listItems(ref.markdown) : undefined,
      rows: m.tableRows(out.markdown),
      refRows: ref.markdown ? m.tableRows(ref.markdown) : undefined,
      accents: m.per10k(m.detachedAccents(out.text), out.text),
      refAccents: m.per10k(m.detachedAccents(ref.text), ref.text),
      logos: m.splitLogos(out.text),
      refLogos: m.splitLogos(ref.text),
      letters: m.per10k(m.lettersSplit(out.text, ref.text).length, out.text),
      hyphens: m.per10k(m.splitHyphenations(out.markdown).length, out.text),
      refHyphens: m.per10k(m.splitHyphenations(ref.text).length, ref.text),
      angleLost: m.angleWordsLost(out.markdown, out.text),
      broken: entry.format === 'pdf' ? m.brokenHeadings(ours) : undefined,
      titleRoot: entry.format === 'html' ? Number(root !== undefined) : undefined,
      ms,
    };
    if (perFile) console.log(`${entry.name.padEnd(32)} ${show(row)}`);
    byFormat.set(entry.format, [...(byFormat.get(entry.format) ?? []), row]);
  }
  console.log(`\nfidelity beside the reference tools (pdftotext + outline; pandoc); defects per 10,000 words; ref = reference tool`);
  for (const [format, rows] of byFormat) {
    console.log(`\n${format} (${rows.length} documents)`);
    const keys = Object.keys(rows[0]!);
    for (const key of keys) {
      const values = rows.map((r) => r[key]).filter((v): v is number => v !== undefined);
      if (!values.length) continue;
      const sum = values.reduce((a, b) => a + b, 0);
      const counted = ['lists', 'refLists', 'rows', 'refRows', 'logos', 'refLogos', 'angleLost', 'broken', 'ms', 'titleRoot'].includes(key);
      console.log(`  ${key.padEnd(11)} ${counted ? `total ${fmt(sum)}` : `mean ${fmt(sum / values.length)}  min ${fmt(Math.min(...values))}`}  (${values.length})`);
    }
  }
}

/**
 * Lets the extractor see no outline while the reference still reads it, so
 * the headings found from fonts and numbering are scored against the
 * outline of the same PDFs. pdf.js's document class is not exported: it is
 * reached through a document opened here.
 */
async function outlineSwitch(): Promise<{ hide: (on: boolean) => void }> {
  const task = getDocument({ data: new TextEncoder().encode(TINY_PDF), isEvalSupported: false, verbosity: 0 });
  const proto = Object.getPrototypeOf(await task.promise) as { getOutline: (this: unknown) => Promise<unknown> };
  await task.destroy();
  const original = proto.getOutline;
  let hidden = false;
  proto.getOutline = function getOutline() {
    return hidden ? Promise.resolve(null) : original.call(this);
  };
  return { hide: (on) => { hidden = on; } };
}

const TINY_PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n'
  + '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n >= 10 ? n.toFixed(0) : n.toFixed(3));
const show = (row: Row) => Object.entries(row).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${fmt(v!)}`).join('  ');

await main();
