import { createRequire } from 'node:module';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** A page rendered for OCR: 8-bit grey pixels as a binary PGM (P5), which Tesseract reads from stdin. */
export interface PageImage {
  pgm: Buffer;
  width: number;
  height: number;
  /** Pixels per PDF point (dpi / 72). */
  scale: number;
}

// A page this many pixels or larger is rendered at a lower resolution: 300 DPI of an A3 page is 17 Mpx.
export const MAX_RENDER_PIXELS = 6000 * 6000;

type CanvasModule = typeof import('@napi-rs/canvas');
let canvasModule: CanvasModule | undefined;

/** `@napi-rs/canvas`, the canvas pdf.js itself draws with in Node, loaded on first use. */
function canvas(): CanvasModule {
  canvasModule ??= createRequire(import.meta.url)('@napi-rs/canvas') as CanvasModule;
  return canvasModule;
}

/**
 * Renders `page` at `dpi` (lowered so the image stays under 36 Mpx) on a
 * white background and returns it as grey levels. Form widgets are left
 * out: their values are read from the form itself.
 */
export async function renderPage(page: PDFPageProxy, dpi: number): Promise<PageImage> {
  const base = page.getViewport({ scale: 1 });
  const wanted = dpi / 72;
  const scale = Math.min(wanted, Math.sqrt(MAX_RENDER_PIXELS / Math.max(1, base.width * base.height)));
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const surface = canvas().createCanvas(width, height);
  const context = surface.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  // The canvas types of pdf.js are the DOM's; @napi-rs/canvas implements the same calls.
  await page.render({ canvas: surface as never, canvasContext: context as never, viewport, annotationMode: 0 }).promise;
  const rgba = context.getImageData(0, 0, width, height).data;
  return { pgm: toPgm(rgba, width, height), width, height, scale };
}

/** RGBA pixels to a binary PGM (ITU-R BT.601 luma). */
export function toPgm(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  const out = Buffer.allocUnsafe(header.length + width * height);
  header.copy(out, 0);
  for (let i = 0, o = header.length; i < rgba.length; i += 4, o++) {
    out[o] = (rgba[i]! * 299 + rgba[i + 1]! * 587 + rgba[i + 2]! * 114) / 1000;
  }
  return out;
}
