import { spawn } from 'node:child_process';
import { MAX_IMAGE_PIXELS } from '../open-pdf.js';

// One row per image drawn; a listing this long is not a document worth listing.
const MAX_LIST_BYTES = 8 * 1024 * 1024;
// The types of `pdfimages -list` pdf.js paints as images: an image and an image mask. A soft mask
// or a mask belongs to an image already counted.
const PAINTED = new Set(['image', 'stencil']);

/**
 * The area (square PDF points) the images of each page cover, by page
 * number, read from poppler's `pdfimages -list` (the PDF on stdin). It lists
 * each image drawn with its size in pixels and its resolution where drawn,
 * without decoding any, where pdf.js decodes every image of a page to build
 * its operator list. Undefined when the listing fails or takes longer than
 * `timeoutMs`: the operator list is the judge then.
 */
export function listImageAreas(binary: string, pdf: Uint8Array, timeoutMs: number): Promise<Map<number, number> | undefined> {
  return new Promise((resolve) => {
    const proc = spawn(binary, ['-list', '-'], { stdio: ['pipe', 'pipe', 'ignore'], env: { LANG: 'C.UTF-8' } });
    const out: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = () => {
      failed = true;
      proc.kill('SIGKILL');
    };
    const timer = setTimeout(fail, timeoutMs);
    proc.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_LIST_BYTES) fail();
      else out.push(b);
    });
    proc.stdin.on('error', () => undefined);
    proc.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve(failed || code !== 0 ? undefined : parseImageList(Buffer.concat(out).toString('latin1')));
    });
    proc.stdin.end(pdf);
  });
}

/**
 * `pdfimages -list` rows (`page num type width height color comp bpc enc
 * interp object ID x-ppi y-ppi size ratio`) summed per page: an image of
 * `width` pixels at `x-ppi` spans `width / x-ppi` inches. A page with a row
 * whose resolution is not a positive number gets NaN (not known).
 */
export function parseImageList(text: string): Map<number, number> {
  const areas = new Map<number, number>();
  for (const row of text.split('\n')) {
    const cols = row.trim().split(/\s+/);
    const page = Number(cols[0]);
    if (cols.length < 14 || !Number.isInteger(page) || page < 1 || !PAINTED.has(cols[2]!)) continue;
    const [width, height, xPpi, yPpi] = [cols[3], cols[4], cols[12], cols[13]].map(Number) as [number, number, number, number];
    if (width * height > MAX_IMAGE_PIXELS) continue;
    const area = xPpi > 0 && yPpi > 0 ? ((width / xPpi) * 72 * (height / yPpi) * 72) : Number.NaN;
    areas.set(page, (areas.get(page) ?? 0) + area);
  }
  return areas;
}
