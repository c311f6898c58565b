/**
 * The OCR bench set, built from text we know: born-digital pages of the
 * project's own documentation (Helvetica, one heading per page), scanned at
 * 300 DPI clean and spoiled (rotation, blur, noise, JPEG), wrapped back as
 * image-only PDFs; a mixed PDF of text and scanned pages; and a page whose
 * text is drawn as vector shapes, with no text layer.
 */
import { readFileSync } from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';
import { getDocument } from '../../worker/extractors/pdf/pdfjs.js';
import { buildPdf, writePdf, type PdfRun } from '../../test/fixtures/pdf.js';
import { imagePdf, scanPdfPages, type ScanImage, type ScanNoise } from '../../test/fixtures/scan.js';

export const NOISY: ScanNoise = { rotateDeg: 0.6, blurPx: 0.8, noise: 14, quality: 55 };
const LINES_PER_PAGE = 38;
const CHARS_PER_LINE = 78;

export interface BenchSet {
  /** Reference text of each page (heading and lines, as drawn). */
  pageTexts: string[];
  bornDigital: Uint8Array;
  clean: ScanImage[];
  noisy: ScanImage[];
  cleanPdf: Uint8Array;
  noisyPdf: Uint8Array;
  /** Text, scan, text, scan...: its reference is `pageTexts` in that order. */
  mixedPdf: Uint8Array;
  /** Page 1 of the born-digital PDF drawn as filled rectangles (no text layer). */
  vectorPdf: Uint8Array;
}

/** Builds `pages` pages of each kind from the Markdown files given (headings and prose, ASCII only). */
export async function buildBenchSet(docs: string[], pages: number): Promise<BenchSet> {
  const words = docs.flatMap((path) => proseWords(readFileSync(path, 'utf8')));
  const runs: PdfRun[][] = [];
  const pageTexts: string[] = [];
  for (let p = 0, w = p; p < pages; p++) {
    const heading = `Section ${p + 1}: ${words.slice(w, w + 3).join(' ')}`;
    const lines: string[] = [];
    let line = '';
    while (lines.length < LINES_PER_PAGE) {
      const word = words[w++ % words.length]!;
      if (line.length + word.length + 1 > CHARS_PER_LINE) {
        lines.push(line);
        line = '';
      }
      line = line ? `${line} ${word}` : word;
    }
    runs.push([{ text: heading, x: 72, y: 730, size: 18, font: 'bold' }, ...lines.map((text, i) => ({ text, x: 72, y: 700 - i * 16, size: 11 }))]);
    pageTexts.push([heading, ...lines].join('\n'));
  }
  const bornDigital = buildPdf({ pages: runs });
  const clean = await scanPdfPages(bornDigital, 300, { quality: 90 });
  const noisy = await scanPdfPages(bornDigital, 300, NOISY);
  return {
    pageTexts,
    bornDigital,
    clean,
    noisy,
    cleanPdf: imagePdf(clean),
    noisyPdf: imagePdf(noisy),
    mixedPdf: mixedPdf(runs, noisy, runs.map((_, i) => i % 2 === 0)),
    vectorPdf: await vectorPdf(bornDigital),
  };
}

/** Words of the prose of a Markdown file: code, tables, links' targets and non-ASCII left out. */
function proseWords(markdown: string): string[] {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .split('\n')
    .filter((l) => !/^\s*(\||#|<|-{3,})/.test(l))
    .join(' ')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/[`*_[\]|<>]/g, '')
    .split(/\s+/)
    .filter((w) => /^[\x21-\x7e]+$/.test(w) && w.length < 30);
}

/** Text pages where `isText` says, the noisy scan of the same page elsewhere. */
function mixedPdf(runs: PdfRun[][], scans: ScanImage[], isText: boolean[]): Uint8Array {
  const objects: Parameters<typeof writePdf>[0] = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>'];
  const kids: number[] = [];
  runs.forEach((pageRuns, i) => {
    let content: string;
    let resources = '<< /Font << /F1 3 0 R /F2 4 0 R >> >>';
    if (isText[i]) {
      content = pageRuns.map((r) => `BT /${r.font === 'bold' ? 'F2' : 'F1'} ${r.size ?? 12} Tf ${r.x} ${r.y} Td (${r.text.replace(/[()\\]/g, '\\$&')}) Tj ET`).join('\n');
    } else {
      const scan = scans[i]!;
      objects.push({ dict: `<< /Type /XObject /Subtype /Image /Width ${scan.width} /Height ${scan.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode >>`, data: scan.bytes });
      content = 'q 612 0 0 792 0 0 cm /Im1 Do Q';
      resources = `<< /XObject << /Im1 ${objects.length} 0 R >> >>`;
    }
    objects.push({ dict: '<< >>', data: Buffer.from(content, 'latin1') });
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents ${objects.length} 0 R >>`);
    kids.push(objects.length);
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return writePdf(objects);
}

/** Page 1 rendered at 200 DPI, each run of dark pixels of each row drawn as a filled rectangle: text as vector shapes. */
async function vectorPdf(pdf: Uint8Array): Promise<Uint8Array> {
  const dpi = 200;
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
  const page = await doc.getPage(1);
  const viewport = page.getViewport({ scale: dpi / 72 });
  const canvas = createCanvas(Math.floor(viewport.width), Math.floor(viewport.height));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvas: canvas as never, canvasContext: ctx as never, viewport }).promise;
  await doc.destroy();
  const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  const unit = 72 / dpi;
  const ops: string[] = ['0 g'];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4]! >= 128) continue;
      const start = x;
      while (x < width && data[(y * width + x) * 4]! < 128) x++;
      ops.push(`${(start * unit).toFixed(2)} ${((height - y - 1) * unit).toFixed(2)} ${((x - start) * unit).toFixed(2)} ${unit.toFixed(3)} re`);
    }
    if (ops.length > 1 && y % 4 === 3) ops.push('f');
  }
  ops.push('f');
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    { dict: '<< >>', data: Buffer.from(ops.join('\n'), 'latin1') },
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents 3 0 R >>',
  ]);
}
