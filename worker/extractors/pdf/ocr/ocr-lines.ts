import type { PdfTextItem } from '../lines.js';
import type { OcrWord } from './tesseract.js';

/**
 * Turns the words Tesseract read on one image into text items in the frame
 * of the PDF text layer (points, y upwards), one item per OCR line with its
 * words joined by single spaces, so the page rebuild (`pageLines`,
 * `pageMarkdown`) treats an OCR'd page like any other: lines, columns,
 * paragraphs, and headings from line height.
 */
export function ocrTextItems(words: OcrWord[], image: { height: number; scale: number }): PdfTextItem[] {
  const lines = new Map<string, OcrWord[]>();
  for (const word of words) {
    const line = lines.get(word.line);
    if (line) line.push(word);
    else lines.set(word.line, [word]);
  }
  const items: PdfTextItem[] = [];
  for (const line of lines.values()) {
    line.sort((a, b) => a.left - b.left);
    const left = line[0]!.left;
    const right = Math.max(...line.map((w) => w.left + w.width));
    const size = fontSize(line) / image.scale;
    // The baseline sits under most letters: the bottom of the words without descenders.
    const plain = line.filter((w) => !DESCENDER.test(w.text));
    const bottom = median((plain.length ? plain : line).map((w) => w.top + w.height));
    items.push({
      str: line.map((w) => w.text).join(' '),
      transform: [size, 0, 0, size, left / image.scale, (image.height - bottom) / image.scale],
      width: (right - left) / image.scale,
      height: size,
    });
  }
  return items;
}

const ASCENDER = /[\p{Lu}\p{N}bdfhklt!?()[\]{}/\\|'"#$%&@]/u;
const DESCENDER = /[gjpqy,;()[\]{}|]/u;

/**
 * The font size of a line in pixels, from the heights of its words: a word's
 * box spans x-height, ascenders and descenders as its letters have them, so
 * each height is divided by the share of the em that its letters span.
 */
export function fontSize(line: OcrWord[]): number {
  return median(line.map((w) => w.height / emShare(w.text)));
}

function emShare(text: string): number {
  const up = ASCENDER.test(text);
  const down = DESCENDER.test(text);
  if (up && down) return 0.93;
  if (up) return 0.72;
  if (down) return 0.72;
  return 0.52;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Mean confidence (0–100) of `words`, each weighted by its length. */
export function meanConfidence(words: OcrWord[]): { sum: number; weight: number } {
  let sum = 0;
  let weight = 0;
  for (const w of words) {
    sum += w.conf * w.text.length;
    weight += w.text.length;
  }
  return { sum, weight };
}
