import mammoth from 'mammoth';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { load } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { listNumbers } from './numbering.js';
import { useStreamingXmlReader } from './mammoth-xml.js';
import { docxMarkdown } from './docx-tables.js';
import { markStyleFreeHeadings } from './style-free-headings.js';
import { decodeEntities } from '../common/decode-entities.js';
import type { RawExtraction } from '../types.js';
import { checkInflatedSizes, DEFAULT_ZIP_LIMITS, readZipEntry, scanZip, type ZipEntry } from '../common/zip-scan.js';

useStreamingXmlReader();

// Images are never read: their bytes are not text, and a linked one could point outside the file.
const NO_IMAGES = mammoth.images.imgElement(async () => ({ src: '' }));

/**
 * Extracts a DOCX: the ZIP directory is checked for bombs first (declared
 * sizes, then that no part inflates past its declared size), then mammoth
 * (its XML read in one streaming pass, see `mammoth-xml.ts`) converts the body (with footnotes and endnotes) to HTML, which becomes
 * Markdown: heading styles as `#` headings (in a document without any, bold
 * or numbered section titles, see `style-free-headings.ts`), numbered and nested lists, tables
 * one GFM row per Word row (`docx-tables.ts`),
 * text boxes in place, and the notes as a numbered list at the end without
 * their back-links; image descriptions (alt text) are kept as text.
 * External files are never read (`externalFileAccess: false`, CVE-2025-11849).
 * The title comes from `docProps/core.xml` `dc:title`.
 */
export async function extractDocx(bytes: Uint8Array, maxUnpackedBytes = DEFAULT_ZIP_LIMITS.maxTotalBytes): Promise<RawExtraction> {
  const entries = scanZip(bytes, { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: maxUnpackedBytes });
  // mammoth's jszip inflates each part in full and compares the size only afterwards.
  await checkInflatedSizes(bytes, entries);
  const title = readTitle(bytes, entries);
  let html: string;
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const result = await mammoth.convertToHtml(
      { buffer },
      { externalFileAccess: false, convertImage: NO_IMAGES, ignoreEmptyParagraphs: true },
    );
    html = result.value;
  } catch (err) {
    if (isAllocationFailure(err)) throw err;
    if (err instanceof RangeError) throw new SourceError('too_complex', 'The DOCX is too complex to read.');
    throw new SourceError('corrupt', 'The DOCX is damaged or is not a Word document that can be read.');
  }
  const $ = load(html, null, false);
  numberItems($.root().find('li').toArray() as Element[], bytes, entries);
  const top = $.root().contents().toArray() as AnyNode[];
  markStyleFreeHeadings(top);
  const { markdown, text } = docxMarkdown(top, { imageAlt: 'all', dropLink: isBackLink });
  return { markdown, text, title };
}

/** Gives list items Word's numbers (restarts, start values, continued lists) when they can be matched one to one. */
function numberItems(items: Element[], bytes: Uint8Array, entries: readonly ZipEntry[]): void {
  const part = (name: string) => {
    const entry = entries.find((e) => e.name === name);
    return entry ? readZipEntry(bytes, entry)?.toString('utf8') : undefined;
  };
  const body = items.filter((li) => !/^(?:footnote|endnote|comment)-/.test(li.attribs.id ?? ''));
  const numbering = part('word/numbering.xml');
  const document = numbering && part('word/document.xml');
  if (!document) return;
  const numbers = listNumbers(document, numbering);
  if (numbers.length !== body.length) return;
  body.forEach((li, i) => {
    const n = numbers[i];
    if (n !== undefined && (li.parent as Element | null)?.name === 'ol') li.attribs.value = String(n);
  });
}

// mammoth ends each footnote and endnote with a link back to its reference (an arrow).
function isBackLink(el: Element): boolean {
  return /^#(?:footnote|endnote|comment)-ref-/.test(el.attribs.href ?? '');
}

function readTitle(bytes: Uint8Array, entries: readonly ZipEntry[]): string | undefined {
  const core = entries.find((e) => e.name === 'docProps/core.xml');
  const xml = core && readZipEntry(bytes, core)?.toString('utf8');
  const raw = xml && /<dc:title\b[^>]*>([\s\S]*?)<\/dc:title>/.exec(xml)?.[1];
  const title = raw ? decodeEntities(raw).replace(/\s+/g, ' ').trim() : '';
  return title || undefined;
}
