import { findGutters, type Gutter } from './columns.js';
import { composeAccents, joinTexLogos, texControlCodes } from './glyphs.js';

/**
 * Rebuilds the lines of one PDF page, in reading order, from the positions of
 * pdf.js text items: words from gaps, lines from baselines, columns from the
 * gutters no line crosses.
 */

/** A pdf.js text item, as far as layout needs it. */
export interface PdfTextItem {
  str: string;
  /** Text matrix [a, b, c, d, e, f] in page space. */
  transform: number[];
  width: number;
  height: number;
  /** True for fonts written top to bottom (CJK vertical writing). */
  vertical?: boolean;
  /** pdf.js's reading of the direction of the text. */
  dir?: string;
}

/** One line of text, in the frame where its text runs left to right and y grows upwards. */
export interface PdfLine {
  text: string;
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  /** Font size of most of its characters. */
  size: number;
  /** Lines of one column share a block id; a new id means the reading order jumped. */
  block: number;
  /** Pieces separated by wide gaps (table cells, tab stops); 1 for running text. */
  cells: number;
  /** The text of each of those pieces, when there are several. */
  parts?: string[];
  /** Within the top or bottom 15% of the page, where running headers and footers are. */
  nearEdge?: boolean;
  /** Set on the lines of a heading the PDF's outline names (see `outline-headings.ts`): its level, entry index and title. */
  heading?: { level: number; entry: number; title: string };
}

// Running headers and footers sit in this share of the page height from its top or bottom.
const EDGE_ZONE = 0.15;

interface Run {
  str: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  rtl: boolean;
}

interface Fragment {
  runs: Run[];
  row: number;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

// A gap wider than this share of the font size is a space: word spaces are about a third
// of an em and shrink to a fifth in justified lines; letter spacing and kerning stay below.
const SPACE_GAP = 0.17;
// Runs overlapping by more than this share of the font size do not continue each other.
const OVERLAP_GAP = 0.5;
// A gap wider than this splits a row into fragments, so that column gutters show.
const FRAGMENT_GAP = 1.0;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * The lines of one page in reading order; text in other directions than the
 * main one follows it. `view` is the page box [x0, y0, x1, y1], which tells
 * the lines near its top and bottom edges.
 */
export function pageLines(items: PdfTextItem[], view?: number[]): PdfLine[] {
  const byOrientation = new Map<number, Run[]>();
  let last: Run | undefined;
  for (const item of items) {
    const run = toRun(item);
    if (!run) {
      // A space pdf.js read between two items (often where the font changes) stays a space.
      if (last && item.str !== '' && item.width > 0) last.str = last.str.replace(/ ?$/, ' ');
      last = undefined;
      continue;
    }
    last = run;
    const key = orientation(item);
    const list = byOrientation.get(key) ?? [];
    list.push(run);
    byOrientation.set(key, list);
  }
  const groups = [...byOrientation].sort((a, b) => chars(b[1]) - chars(a[1]));
  const lines: PdfLine[] = [];
  let block = 0;
  for (const [turn, runs] of groups) {
    const laid = layout(runs, block);
    if (view) markEdges(laid, view, turn);
    lines.push(...laid);
    block = (laid.at(-1)?.block ?? block) + 1;
  }
  return lines;
}

function markEdges(lines: PdfLine[], [x0 = 0, y0 = 0, x1 = 0, y1 = 0]: number[], turn: number): void {
  const across = [[x0, y0], [x0, y1], [x1, y0], [x1, y1]].map(([e, f]) => -e! * SIN[turn]! + f! * COS[turn]!);
  const low = Math.min(...across);
  const high = Math.max(...across);
  const zone = EDGE_ZONE * (high - low);
  for (const line of lines) line.nearEdge = line.y > high - zone || line.y < low + zone;
}

const COS = [1, 0, -1, 0];
const SIN = [0, 1, 0, -1];
const chars = (runs: Run[]) => runs.reduce((n, r) => n + r.str.length, 0);

/** The direction of the text, in quarter turns; vertical writing counts as a turn downwards. */
function orientation(item: PdfTextItem): number {
  if (item.vertical) return 3;
  const [a = 1, b = 0] = item.transform;
  return ((Math.round(Math.atan2(b, a) / (Math.PI / 2)) % 4) + 4) % 4;
}

/** The item in its own text frame: x along the line, y across it (upwards). */
function toRun(item: PdfTextItem): Run | undefined {
  if (item.str.trim() === '') return undefined;
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform;
  const turn = orientation(item);
  const cos = COS[turn]!;
  const sin = SIN[turn]!;
  const size = Math.hypot(c, d) || Math.hypot(a, b) || item.height || 1;
  const x = e * cos + f * sin;
  const y = -e * sin + f * cos;
  const advance = item.vertical ? item.height : item.width;
  const str = unspaceLetters(texControlCodes(/\s\s|[^\S ]/.test(item.str) ? item.str.replace(/\s+/g, ' ') : item.str));
  return { str, x0: x, x1: x + Math.max(0, advance), y, size, rtl: item.dir === 'rtl' };
}

/**
 * pdf.js puts a space into an item wherever glyphs are more than a tenth of
 * an em apart, so a letter-spaced word comes out as "t r e a t"; the gap
 * between two such words is wider and ends the item. An item made only of
 * single letters and such spaces is one word (an alphabet excepted).
 */
export function unspaceLetters(str: string): string {
  // Cheap refusal first: this runs for every item.
  if (str.length < 5 || (str[1] !== ' ' && str[2] !== ' ')) return str;
  const trimmed = str.trim();
  if (!/^\p{L}(?: \p{L}){2,}$/u.test(trimmed)) return str;
  const word = trimmed.replace(/ /g, '');
  const alphabet = [...word].every((c, i) => i === 0 || c.charCodeAt(0) === word.charCodeAt(i - 1) + 1);
  return alphabet ? str : str.replace(trimmed, word);
}

function layout(runs: Run[], firstBlock: number): PdfLine[] {
  const fragments = toFragments(runs);
  if (fragments.length === 0) return [];
  const gutters = findGutters(fragments);
  return readingOrder(fragments, gutters, firstBlock);
}

/** Groups runs into rows by vertical overlap, then splits each row at wide gaps. */
function toFragments(runs: Run[]): Fragment[] {
  runs.sort((p, q) => q.y - p.y || p.x0 - q.x0);
  const rows: Run[][] = [];
  let ref: Run | undefined;
  for (const run of runs) {
    if (ref && sameRow(ref, run)) {
      rows.at(-1)!.push(run);
      if (run.size > ref.size) ref = run;
    } else {
      rows.push([run]);
      ref = run;
    }
  }
  const fragments: Fragment[] = [];
  rows.forEach((row, index) => {
    row.sort((p, q) => p.x0 - q.x0);
    let current: Run[] = [];
    for (const run of row) {
      const last = current.at(-1);
      if (last && run.x0 - last.x1 > FRAGMENT_GAP * Math.max(last.size, run.size)) {
        fragments.push(fragment(current, index));
        current = [];
      }
      current.push(run);
    }
    if (current.length) fragments.push(fragment(current, index));
  });
  return fragments;
}

/** Two runs share a row when their spans from descender to ascender overlap by half the smaller one. */
function sameRow(p: Run, q: Run): boolean {
  const low = Math.max(p.y - 0.2 * p.size, q.y - 0.2 * q.size);
  const high = Math.min(p.y + 0.8 * p.size, q.y + 0.8 * q.size);
  return high - low > 0.5 * Math.min(p.size, q.size);
}

function fragment(runs: Run[], row: number): Fragment {
  const main = dominant(runs);
  return { runs, row, x0: Math.min(...runs.map((r) => r.x0)), x1: Math.max(...runs.map((r) => r.x1)), y: main.y, size: main.size };
}

/** The run whose font size carries most characters (ties: the first). */
function dominant(runs: Run[]): Run {
  const first = runs[0]!;
  if (runs.every((r) => round(r.size) === round(first.size))) return first;
  const weight = new Map<number, number>();
  for (const r of runs) weight.set(round(r.size), (weight.get(round(r.size)) ?? 0) + r.str.length);
  const size = [...weight.entries()].sort((p, q) => q[1] - p[1])[0]![0];
  return runs.find((r) => round(r.size) === size)!;
}

const round = (n: number) => Math.round(n * 2) / 2;

/**
 * Top to bottom; between two fragments that cross a gutter, column after
 * column. Fragments of one row and one column become one line.
 */
function readingOrder(fragments: Fragment[], gutters: Gutter[], firstBlock: number): PdfLine[] {
  const column = (f: Fragment): number => {
    if (gutters.some((g) => f.x0 < g.start && f.x1 > g.end)) return -1;
    return gutters.filter((g) => f.x0 >= g.end - 1).length;
  };
  const lines: PdfLine[] = [];
  let block = firstBlock;
  let band: Fragment[][] = gutters.map(() => []).concat([[]]);
  const flushBand = () => {
    for (const col of band) {
      if (col.length === 0) continue;
      lines.push(...toLines(col, block));
      block++;
    }
    band = band.map(() => []);
  };
  // Fragments come row by row, top first.
  for (let i = 0; i < fragments.length;) {
    const row = fragments[i]!.row;
    const inRow: Fragment[] = [];
    while (i < fragments.length && fragments[i]!.row === row) inRow.push(fragments[i++]!);
    const spanning = inRow.filter((f) => column(f) < 0);
    if (spanning.length) {
      flushBand();
      lines.push(...toLines(inRow, block));
      continue;
    }
    for (const f of inRow) band[column(f)]!.push(f);
  }
  flushBand();
  return lines;
}

/** Fragments (top to bottom) to lines: those of one row join. */
function toLines(fragments: Fragment[], block: number): PdfLine[] {
  const lines: PdfLine[] = [];
  for (let i = 0; i < fragments.length;) {
    const row = fragments[i]!.row;
    const runs: Run[] = [];
    const pieces: Fragment[] = [];
    while (i < fragments.length && fragments[i]!.row === row) {
      runs.push(...fragments[i]!.runs);
      pieces.push(fragments[i++]!);
    }
    const text = joinRuns(runs);
    if (text === '') continue;
    const main = dominant(runs);
    lines.push({ text, x0: runs[0]!.x0, x1: Math.max(...runs.map((r) => r.x1)), y: main.y, size: main.size, block, cells: pieces.length,
      ...(pieces.length > 1 ? { parts: pieces.map((f) => joinRuns(f.runs)).filter(Boolean) } : {}) });
  }
  return lines;
}

/**
 * Joins runs in reading order (right to left when most of the text is
 * right-to-left): a space only where the gap is as wide as a space.
 */
export function joinRuns(runs: Run[]): string {
  const rtlChars = runs.reduce((n, r) => n + (r.rtl ? r.str.length : 0), 0);
  const rtl = rtlChars * 2 > runs.reduce((n, r) => n + r.str.length, 0);
  const ordered = runs.length === 1 ? runs : [...runs].sort(rtl ? (p, q) => q.x1 - p.x1 : (p, q) => p.x0 - q.x0);
  let text = '';
  let prev: Run | undefined;
  for (const run of ordered) {
    // Text drawn twice with a small offset (a fake bold) is read once.
    if (prev && run.str === prev.str && Math.abs(run.x0 - prev.x0) < 0.3 * run.size) continue;
    if (prev) {
      const gap = rtl ? prev.x0 - run.x1 : run.x0 - prev.x1;
      const spaced = text.endsWith(' ') || run.str.startsWith(' ');
      const cjk = CJK.test(text.slice(-1)) && CJK.test(run.str[0] ?? '');
      const em = Math.min(prev.size, run.size);
      // Far overlapping runs are different words drawn over each other (stacked legends, overprints).
      if (!spaced && !cjk && (gap > SPACE_GAP * em || gap < -OVERLAP_GAP * em)) text += ' ';
    }
    text += run.str;
    prev = run;
  }
  return joinTexLogos(composeAccents((text.includes('  ') ? text.replace(/ {2,}/g, ' ') : text).trim()));
}
