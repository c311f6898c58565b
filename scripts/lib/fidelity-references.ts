/**
 * The reference readings `npm run fidelity` compares with: pdftotext's text
 * and the PDF's own outline; pandoc's reading of an HTML page's main
 * container (the generator's, named in the corpus) and of a DOCX file.
 */
import { readFileSync } from 'node:fs';
import * as cheerio from 'cheerio';
// The service's pdf.js module: the first document pdf.js opens fixes its worker side for the process (patched only when loaded from there).
import { getDocument } from '../../worker/extractors/pdf/pdfjs.js';
import { pandoc, type CorpusEntry } from './fidelity-corpus.js';
import { markdownHeadings } from './fidelity-metrics.js';

/** What a reference tool makes of one document. */
export interface Reference {
  /** Plain text in reading order. */
  text: string;
  /** Headings: the PDF outline, the main container's `h1`–`h6`, pandoc's headings of a DOCX. Undefined when the document has none to compare. */
  headings?: string[];
  /** GFM from pandoc (HTML and DOCX), for list items and table rows. */
  markdown?: string;
  /** The HTML `<title>`. */
  title?: string;
}

/** Reads the reference for one corpus document. */
export async function reference(entry: CorpusEntry & { path: string }): Promise<Reference> {
  if (entry.format === 'pdf') {
    const outline = await pdfOutline(readFileSync(entry.path));
    return { text: readFileSync(`${entry.path}.pdftotext.txt`, 'utf8'), ...(outline.length ? { headings: outline } : {}) };
  }
  if (entry.format === 'docx') {
    const markdown = pandoc(readFileSync(entry.path), 'docx', 'gfm');
    return { text: pandoc(readFileSync(entry.path), 'docx', 'plain'), markdown, headings: markdownHeadings(markdown) };
  }
  const $ = cheerio.load(readFileSync(entry.path));
  const main = $(entry.main!);
  // Permalink marks and scripts are not content in any generator.
  main.find('a.headerlink, script, style').remove();
  if (entry.drop) $(entry.drop).remove();
  const fragment = main.toArray().map((el) => $.html(el)).join('\n');
  const headings = main.find('h1, h2, h3, h4, h5, h6').toArray().map((h) => $(h).text().replace(/\s+/g, ' ').trim()).filter(Boolean);
  return { text: pandoc(fragment, 'html', 'plain'), markdown: pandoc(fragment, 'html', 'gfm'), headings, title: $('title').first().text().trim() };
}

/** Every title of the PDF's outline, depth first. */
async function pdfOutline(bytes: Buffer): Promise<string[]> {
  const task = getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 });
  try {
    const doc = await task.promise;
    const titles: string[] = [];
    const walk = (items: Array<{ title: string; items?: unknown[] }> | null) => {
      for (const item of items ?? []) {
        titles.push(item.title.replace(/\s+/g, ' ').trim());
        walk(item.items as typeof items);
      }
    };
    walk((await doc.getOutline()) as Array<{ title: string; items?: unknown[] }> | null);
    return titles.filter(Boolean);
  } finally {
    await task.destroy();
  }
}
