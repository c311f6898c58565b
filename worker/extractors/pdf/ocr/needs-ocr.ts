import { OPS } from '../pdfjs.js';

/** What the text layer of one page shows. */
export interface TextEvidence {
  /** Letters and digits in the page's text layer. */
  letters: number;
  /** The text is mostly symbols or unmapped glyphs (see `garbledPages`). */
  garbled: boolean;
}

/** What one page paints, read from its operator list (only for pages whose text layer is sparse). */
export interface PaintEvidence {
  /** Share of the page area covered by images (0 to 1, overlaps counted twice). */
  imageShare: number;
  /** Numbers of path data drawn (coordinates and operators): glyphs drawn as outlines give thousands. */
  pathWeight: number;
}

/** Why a page is read by OCR. */
export type OcrReason = 'no_text_layer' | 'garbled' | 'sparse_text';

// Below this many letters a page's text layer says almost nothing: a stamp, a page number, a stray OCR word.
export const SPARSE_LETTERS = 40;
// A page without any text at least this much covered by images is a scan: a scanner's image
// is often placed on part of a larger page (a half-covered A4 page in the corpus).
const SCAN_WITHOUT_TEXT = 0.25;
// Under a few letters of text, the page must be mostly image: a photograph with a caption is not a scan.
const MOSTLY_IMAGE = 0.5;
// Glyph outlines of a few lines of text already weigh this much; rules and boxes of a form far less.
const VECTOR_TEXT_WEIGHT = 2000;

/** True when a page's text layer is too thin to tell whether it needs OCR without looking at what it paints. */
export function needsPaintEvidence(text: TextEvidence): boolean {
  return !text.garbled && text.letters < SPARSE_LETTERS;
}

/**
 * Whether a page is read by OCR, and why: garbled text (fonts without a
 * Unicode map); no text layer over a page at least a quarter covered by an
 * image or drawn as vector outlines; or a text layer of a few letters over a
 * page mostly image or vector outlines. A page with a
 * good text layer never is; nor is a blank page or a page of rules.
 */
export function ocrReason(text: TextEvidence, paint?: PaintEvidence): OcrReason | undefined {
  if (text.garbled) return 'garbled';
  if (text.letters >= SPARSE_LETTERS || !paint) return undefined;
  const imageNeeded = text.letters === 0 ? SCAN_WITHOUT_TEXT : MOSTLY_IMAGE;
  if (paint.imageShare < imageNeeded && paint.pathWeight < VECTOR_TEXT_WEIGHT) return undefined;
  return text.letters === 0 ? 'no_text_layer' : 'sparse_text';
}

const IMAGE_OPS = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat, OPS.paintImageMaskXObject]);

type Matrix = [number, number, number, number, number, number];

/**
 * Walks an operator list, following the transformation matrix through
 * save/restore, and measures the area images cover (an image fills the unit
 * square of its matrix) and the weight of the paths drawn.
 */
export function paintEvidence(ops: { fnArray: number[]; argsArray: unknown[] }, view: number[]): PaintEvidence {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = view;
  const pageArea = Math.abs((x1 - x0) * (y1 - y0)) || 1;
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let imageArea = 0;
  let pathWeight = 0;
  ops.fnArray.forEach((fn, i) => {
    const args = ops.argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform && args) ctm = multiply(ctm, args as Matrix);
    else if (IMAGE_OPS.has(fn)) imageArea += Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
    else if (fn === OPS.constructPath && args) pathWeight += pathLength(args[1]);
  });
  return { imageShare: Math.min(1, imageArea / pageArea), pathWeight };
}

function pathLength(data: unknown): number {
  const first = Array.isArray(data) ? data[0] : data;
  return ArrayBuffer.isView(first) ? (first as Float32Array).length : Array.isArray(first) ? first.length : 0;
}

function multiply(m: Matrix, [a, b, c, d, e, f]: Matrix): Matrix {
  return [a * m[0] + b * m[2], a * m[1] + b * m[3], c * m[0] + d * m[2], c * m[1] + d * m[3], e * m[0] + f * m[2] + m[4], e * m[1] + f * m[3] + m[5]];
}
