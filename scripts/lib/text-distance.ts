/** Character and word error rates of OCR text against the text it was made from. */

/** Whitespace collapsed, Markdown heading marks and emphasis dropped, typographic quotes and dashes made plain. */
export function normalizeForDistance(text: string): string {
  return text
    .replace(/^#+\s+/gm, '')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Levenshtein distance between two sequences (two rows of the table at a time). */
export function editDistance<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** Character error rate: edits to turn `ocr` into `reference`, over the reference's length. */
export function cer(reference: string, ocr: string): number {
  const ref = normalizeForDistance(reference);
  return editDistance(ref, normalizeForDistance(ocr)) / Math.max(1, ref.length);
}

/** Word error rate, the same over words. */
export function wer(reference: string, ocr: string): number {
  const ref = normalizeForDistance(reference).split(' ');
  return editDistance(ref, normalizeForDistance(ocr).split(' ')) / Math.max(1, ref.length);
}
