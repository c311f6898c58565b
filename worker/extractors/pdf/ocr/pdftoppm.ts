import { spawn } from 'node:child_process';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { SourceError } from '../../../../shared/source-errors.js';
import { MAX_RENDER_PIXELS, type PageImage } from './render-page.js';

// A grey page of 36 Mpx plus its header; anything longer is not a page pdftoppm rendered.
const MAX_PGM_BYTES = MAX_RENDER_PIXELS + 64;

/**
 * Renders page `n` of `pdf` with poppler's `pdftoppm -gray` (the PDF on
 * stdin, a PGM on stdout): by the OCR bench, a quarter of the CPU of pdf.js
 * on a canvas for a scanned page. The resolution is lowered as `renderPage`
 * does for very large pages.
 */
export function renderWithPdftoppm(binary: string, pdf: Uint8Array, page: PDFPageProxy, dpi: number, timeoutMs: number): Promise<PageImage> {
  const { width, height } = page.getViewport({ scale: 1 });
  const resolution = Math.min(dpi, 72 * Math.sqrt(MAX_RENDER_PIXELS / Math.max(1, width * height)));
  const args = ['-r', resolution.toFixed(2), '-gray', '-f', String(page.pageNumber), '-l', String(page.pageNumber), '-'];
  return new Promise((resolve, reject) => {
    const proc = spawn(binary, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { LANG: 'C.UTF-8' } });
    const out: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_PGM_BYTES) proc.kill('SIGKILL');
      else out.push(b);
    });
    proc.stdin.on('error', () => undefined);
    proc.on('error', () => {
      clearTimeout(timer);
      reject(new SourceError('corrupt', 'The page could not be rendered for OCR.'));
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new SourceError('timeout', `Rendering a page for OCR took longer than ${timeoutMs} ms.`));
      const pgm = Buffer.concat(out);
      const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 32).toString('latin1'));
      if (code !== 0 || !header) return reject(new SourceError('corrupt', 'The page could not be rendered for OCR.'));
      const w = Number(header[1]);
      resolve({ pgm, width: w, height: Number(header[2]), scale: w / width });
    });
    proc.stdin.end(pdf);
  });
}
