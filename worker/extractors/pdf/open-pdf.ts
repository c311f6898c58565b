import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument } from './pdfjs.js';

// pdf.js is the one pdf-parse ships with. It reads these with fs in Node: paths with a trailing separator, never URLs.
const PDFJS_DIR = dirname(createRequire(createRequire(import.meta.url).resolve('pdf-parse')).resolve('pdfjs-dist/package.json'));
const CMAP_DIR = join(PDFJS_DIR, 'cmaps') + '/';
const FONT_DIR = join(PDFJS_DIR, 'standard_fonts') + '/';
// Text extraction never needs bigger images decoded; pdf.js's default is no limit.
export const MAX_IMAGE_PIXELS = 4096 * 4096;
const PDFJS_OPTIONS = {
  cMapUrl: CMAP_DIR,
  cMapPacked: true,
  standardFontDataUrl: FONT_DIR,
  isEvalSupported: false,
  maxImageSize: MAX_IMAGE_PIXELS,
  useSystemFonts: false,
  disableFontFace: true,
  stopAtErrors: false,
  verbosity: 0,
};

/**
 * Starts loading a PDF from bytes only (never a URL), with CMaps and standard
 * fonts so CJK text decodes. pdf.js transfers (detaches) the buffer it is
 * given, so it gets a copy (a Uint8Array, never a Buffer). Destroy the task
 * when done.
 */
export function openPdf(bytes: Uint8Array): ReturnType<typeof getDocument> {
  return getDocument({ data: new Uint8Array(bytes), ...PDFJS_OPTIONS });
}
