import type { ExtractionWarning } from '../warning.js';

// A page with fewer visible characters says too little to judge.
const MIN_JUDGED_CHARS = 20;
// Prose is mostly letters and digits; a font without a Unicode map gives mostly symbols instead.
const MAX_ODD_SHARE = 0.35;
// The warning is given when garbled pages hold this share of the visible characters.
const MIN_GARBLED_SHARE = 0.1;

const SCRIPTS: Array<[string, RegExp]> = [
  ['latin', /\p{Script=Latin}/u],
  ['greek', /\p{Script=Greek}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['cjk', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
];

/**
 * Unmapped glyphs (private use, U+FFFD, controls), symbols, and words
 * mixing letters of unrelated scripts (glyph ids read as code points), against
 * letters, digits and ordinary punctuation.
 */
function oddShare(text: string): { visible: number; odd: number } {
  // A page whose letters are all Latin (most pages) cannot mix scripts: only its symbols and unmapped glyphs are odd.
  if (!/[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(text)) {
    const odd = text.match(/[^\s\p{L}\p{N}\p{M}.,;:!?'"()[\]/…\-\u2010-\u2015\u2018-\u201f]/gu)?.length ?? 0;
    return { visible: text.replace(/\s+/g, '').length, odd };
  }
  let visible = 0;
  let ordinary = 0;
  for (const word of text.split(/\s+/)) {
    visible += word.length;
    if (/^[\p{Script=Latin}\p{N}\p{M}.,;:!?'"()[\]/…\-\u2010-\u2015\u2018-\u201f]*$/u.test(word)) {
      ordinary += word.length;
      continue;
    }
    const plain = word.match(/[\p{L}\p{N}\p{M}.,;:!?'"()[\]\-\u2010-\u2015\u2018-\u201f/…]/gu)?.length ?? 0;
    if (!mixesScripts(word)) ordinary += plain;
  }
  return { visible, odd: visible - ordinary };
}

/** Latin beside CJK is ordinary ("PDFファイル"); other pairs in one word are not. */
function mixesScripts(word: string): boolean {
  const found = SCRIPTS.filter(([, re]) => re.test(word)).map(([name]) => name);
  if (found.length < 2) return false;
  return !(found.length === 2 && found.includes('latin') && found.includes('cjk'));
}

/** 1-based numbers of the pages whose text is mostly unmapped glyphs or symbols. */
export function garbledPages(pages: string[]): number[] {
  return pages.map(oddShare).flatMap(({ visible, odd }, i) => (isGarbled(visible, odd) ? [i + 1] : []));
}

const isGarbled = (visible: number, odd: number) => visible >= MIN_JUDGED_CHARS && odd > MAX_ODD_SHARE * visible;

/**
 * `garbled_text` when pages holding a large share of the text are mostly
 * symbols or unmapped glyphs (fonts without a Unicode map); `partial_text`
 * when some pages are images without a text layer while others have text.
 */
export function pdfWarnings(pages: string[], imageOnlyPages: number[]): ExtractionWarning[] {
  const warnings: ExtractionWarning[] = [];
  const shares = pages.map(oddShare);
  const garbled = shares.flatMap(({ visible, odd }, i) => (isGarbled(visible, odd) ? [i + 1] : []));
  const total = shares.reduce((n, s) => n + s.visible, 0);
  const inGarbled = garbled.reduce((n, p) => n + shares[p - 1]!.visible, 0);
  if (garbled.length > 0 && inGarbled >= MIN_GARBLED_SHARE * total) {
    warnings.push({
      code: 'garbled_text',
      message: `The text of ${pageList(garbled)} is mostly symbols or unmapped glyphs (fonts without a Unicode map); it may be unreadable.`,
    });
  }
  if (imageOnlyPages.length > 0) {
    warnings.push({
      code: 'partial_text',
      message: `${capitalize(pageList(imageOnlyPages))} ${imageOnlyPages.length === 1 ? 'has' : 'have'} no text layer (scanned images needing OCR); only the other pages were read.`,
    });
  }
  return warnings;
}

/** "page 3", "pages 2–5, 9". */
export function pageList(pages: number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < pages.length;) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    ranges.push(j > i ? `${pages[i]}–${pages[j]}` : `${pages[i]}`);
    i = j + 1;
  }
  return `${pages.length === 1 ? 'page' : 'pages'} ${ranges.join(', ')}`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
