import { FENCE } from './segments.js';
import { countTokens } from './tokenizer.js';

/**
 * A code block or table whose body a chunk may start inside: `lead` is what
 * such a chunk needs before its text to read on its own (the opening fence
 * line, or the table's header and delimiter rows).
 */
export interface Continuable {
  /** Where the body begins: the line after the opening fence, or the first row after the delimiter row. */
  bodyStart: number;
  /** The end of the block's last line. */
  end: number;
  lead: string;
  /** Tokens of `lead` plus its line break. */
  cost: number;
}

const TABLE_ROW = /^ {0,3}\|/;
const DELIMITER_ROW = /^ {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * The fenced code blocks and pipe tables of `md`, in order. A table that is
 * the first block under its heading (a spreadsheet's sheet, a CSV's title)
 * repeats that heading line above its header and delimiter rows, so that a
 * chunk of rows says which sheet and which columns it holds. A code lead
 * longer than a quarter of `maxTokens`, or a table lead longer than half of
 * it, is left out (a chunk starting inside that block gets no prefix), so
 * that repeating it never leaves too little room for the chunk's own text;
 * a table lead that is too long with its heading is tried without it.
 */
export function continuables(md: string, maxTokens: number): Continuable[] {
  const lines = lineSpans(md);
  const out: Continuable[] = [];
  for (let i = 0; i < lines.length; i++) {
    const [start, end] = lines[i]!;
    const line = md.slice(start, end);
    const open = FENCE.exec(line);
    if (open) {
      let j = i + 1;
      while (j < lines.length && !closes(md.slice(lines[j]![0], lines[j]![1]), open[1]!)) j++;
      push(out, [line], lines[i + 1]?.[0], lines[Math.min(j, lines.length - 1)]![1], Math.floor(maxTokens / 4));
      i = j;
    } else if (TABLE_ROW.test(line) && i + 1 < lines.length && DELIMITER_ROW.test(md.slice(lines[i + 1]![0], lines[i + 1]![1]))) {
      let j = i + 2;
      while (j < lines.length && TABLE_ROW.test(md.slice(lines[j]![0], lines[j]![1]))) j++;
      const header = md.slice(start, lines[i + 1]![1]);
      const heading = headingAbove(md, lines, i);
      push(out, heading === undefined ? [header] : [`${heading}\n\n${header}`, header], lines[i + 2]?.[0], lines[j - 1]![1], Math.floor(maxTokens / 2));
      i = j - 1;
    }
  }
  return out;
}

/** Adds the block with the first of `leads` (longest first) that costs at most `budget` tokens, if any. */
function push(out: Continuable[], leads: string[], bodyStart: number | undefined, end: number, budget: number): void {
  if (bodyStart === undefined || bodyStart >= end) return;
  for (const lead of leads) {
    const cost = countTokens(`${lead}\n`);
    if (cost <= budget) {
      out.push({ bodyStart, end, lead: lead.trimStart(), cost: cost + 1 });
      return;
    }
  }
}

const ATX_LINE = /^ {0,3}#{1,6}[ \t]+\S/;

/** The ATX heading line right above the table starting on line `i` (one blank line between), if any. */
function headingAbove(md: string, lines: readonly [number, number][], i: number): string | undefined {
  if (i < 2 || md.slice(lines[i - 1]![0], lines[i - 1]![1]).trim() !== '') return undefined;
  const line = md.slice(lines[i - 2]![0], lines[i - 2]![1]);
  return ATX_LINE.test(line) ? line.trim() : undefined;
}

function closes(line: string, fence: string): boolean {
  // As the outline reads fences (segments.ts), so both agree on where a block ends.
  return line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '';
}

function lineSpans(md: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let pos = 0; pos <= md.length;) {
    const nl = md.indexOf('\n', pos);
    const end = nl === -1 ? md.length : nl;
    spans.push([pos, end]);
    if (nl === -1) break;
    pos = nl + 1;
  }
  return spans;
}

/** Finds the block whose body holds a position; positions may come in any order. */
export class ContinuationIndex {
  constructor(private readonly blocks: readonly Continuable[]) {}

  /** The block a chunk starting at `pos` continues, if any. */
  at(pos: number): Continuable | undefined {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = this.blocks[mid]!;
      if (pos < b.bodyStart) hi = mid - 1;
      else if (pos >= b.end) lo = mid + 1;
      else return b;
    }
    return undefined;
  }

  /** Tokens to keep free in a chunk starting at `pos` for its prefix. */
  cost(pos: number): number {
    return this.at(pos)?.cost ?? 0;
  }
}
