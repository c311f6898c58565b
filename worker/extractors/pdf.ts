import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PDFParse } from 'pdf-parse';
import { SourceError } from '../../shared/source-errors.js';
import { collapseSpaces } from './normalize.js';
import type { RawExtraction } from './types.js';

// pdf.js reads these with fs in Node; they must be paths with a trailing separator, never URLs.
const PDFJS_DIR = dirname(createRequire(createRequire(import.meta.url).resolve('pdf-parse')).resolve('pdfjs-dist/package.json'));
const CMAP_DIR = join(PDFJS_DIR, 'cmaps') + '/';
const FONT_DIR = join(PDFJS_DIR, 'standard_fonts') + '/';
// Text extraction never needs bigger images decoded; pdf.js's default is no limit.
const MAX_IMAGE_PIXELS = 4096 * 4096;
// Below this many letters per page a PDF may be a scan with a stray OCR or stamp layer.
const SPARSE_LETTERS_PER_PAGE = 40;
const SCANNED = 'The PDF has no text layer: it looks scanned (image-only) and needs OCR.';

/**
 * Extracts a PDF with pdf-parse (pdf.js) from bytes only (never a URL): up to
 * `maxPages` pages, one paragraph per page, with CMaps and standard fonts so
 * CJK text decodes. The Info Title is the title. An owner-password-only PDF
 * opens; a user password gives `encrypted`; an unreadable file `corrupt`; no
 * text layer on any page `no_text` (scanned, needs OCR).
 */
export async function extractPdf(bytes: Uint8Array, maxPages: number): Promise<RawExtraction> {
  const parser = new PDFParse({
    // pdf.js transfers (detaches) the buffer it is given, so it gets a copy.
    data: bytes.slice(),
    cMapUrl: CMAP_DIR,
    cMapPacked: true,
    standardFontDataUrl: FONT_DIR,
    isEvalSupported: false,
    maxImageSize: MAX_IMAGE_PIXELS,
    useSystemFonts: false,
    disableFontFace: true,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    const info = await parser.getInfo();
    const pageCount = info.total;
    const pages = Math.min(pageCount, maxPages);
    const result = await parser.getText({ first: pages, pageJoiner: '' });
    const texts = result.pages.map((p) => collapseSpaces(p.text).trim());
    const text = texts.filter(Boolean).join('\n\n');
    if (text === '' || (await looksScanned(parser, text, pages))) throw new SourceError('no_text', SCANNED);
    const rawTitle: unknown = (info.info as Record<string, unknown> | undefined)?.Title;
    const title = typeof rawTitle === 'string' ? rawTitle.replace(/\s+/g, ' ').trim() || undefined : undefined;
    return { pages: texts, title, pageCount, truncated: pageCount > pages };
  } catch (err) {
    throw toSourceError(err);
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

/**
 * Sparse text on pages that each carry a large image is a scan (a few OCR or
 * stamp characters at most). Images are only looked at for sparse documents,
 * since listing them means decoding them.
 */
async function looksScanned(parser: PDFParse, text: string, pages: number): Promise<boolean> {
  const letters = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (letters >= SPARSE_LETTERS_PER_PAGE * pages) return false;
  try {
    const images = await parser.getImage({ first: pages, imageThreshold: 100, imageBuffer: false, imageDataUrl: false });
    return images.pages.filter((p) => p.images.length > 0).length * 2 >= pages;
  } catch {
    return false;
  }
}

function toSourceError(err: unknown): SourceError {
  if (err instanceof SourceError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return new SourceError('encrypted', 'The PDF is protected by a password.');
  if (err instanceof RangeError) return new SourceError('too_complex', 'The PDF is too complex to read.');
  return new SourceError('corrupt', `The PDF is damaged and could not be read${name ? ` (${name})` : ''}.`);
}
