import type { AnyNode, Element } from 'domhandler';
import type { Block } from './markdown-blocks.js';

/**
 * A table's rendered cells laid out as Markdown: data tables as GFM tables,
 * layout tables as the blocks they hold. What generators put in tables
 * besides data is taken apart first: rows that only draw a rule or hold
 * one empty cell (Texinfo's `<td colspan=4><hr>`, Doxygen's `memSeparator`)
 * are dropped, a row that holds only a heading (Doxygen's "Public Member
 * Functions") becomes that heading with the rows after it a table of their
 * own, columns that stay empty (spacers) are dropped, and a group's label
 * row ("A" of an index) keeps its label in the first column left.
 */
export function tableBlocks(rows: Element[][], cells: Block[][][]): Block[] {
  const out: Block[] = [];
  let segment: number[] = [];
  const flush = (): void => {
    if (segment.length) for (const b of dataTable(segment.map((r) => rows[r]!), segment.map((r) => cells[r]!))) out.push(b);
    segment = [];
  };
  cells.forEach((row, r) => {
    const filled = row.filter((c) => !isEmpty(c));
    // A rule, or one cell of space across the table; other empty rows (a form's blank lines) stay.
    if (filled.length === 0 && (row.length === 1 || row.some((c) => c.some(isRule)))) return;
    if (filled.length === 1 && filled[0]!.some(isHeading) && filled[0]!.every((b) => isHeading(b) || b.text === '')) {
      flush();
      for (const b of filled[0]!) if (isHeading(b)) out.push(b);
      return;
    }
    segment.push(r);
  });
  flush();
  return out;
}

/**
 * True for a table of in-page links only, such as Texinfo's "Jump to:" letters
 * above an index: navigation, not data. Header cells may label it; every other
 * cell holds nothing but links to anchors of the page (at least three of them).
 */
export function isJumpTable(rows: Element[][]): boolean {
  let links = 0;
  for (const row of rows) {
    for (const cell of row) {
      if (cell.name.toLowerCase() === 'th') continue;
      const stack: AnyNode[] = [...(cell.children as AnyNode[])];
      for (let node = stack.pop(); node; node = stack.pop()) {
        if (node.type === 'text') {
          if (/\S/.test((node as unknown as { data: string }).data.replace(/\u00a0/g, ' '))) return false;
          continue;
        }
        if (node.type !== 'tag') continue;
        const el = node as Element;
        if (el.name.toLowerCase() === 'a') {
          if (!/^#./.test(el.attribs.href ?? '')) return false;
          links++;
          continue;
        }
        if (el.name.toLowerCase() === 'table') return false;
        for (const child of el.children as AnyNode[]) stack.push(child);
      }
    }
  }
  return links >= 3;
}

const SUMMARY_TABLE = /(?:^|\s)summary-table(?:\s|$)/;
const SUMMARY_WIDTH: Record<string, number> = { two: 2, three: 3, four: 4 };

/**
 * The rows of a table that Javadoc 16 and later write as a CSS grid of
 * divs (`div.summary-table.three-column-summary`, its cells the grid's
 * children, the header cells first), or undefined for any other div.
 */
export function divGridRows(el: Element): Element[][] | undefined {
  const cls = el.attribs.class ?? '';
  if (!SUMMARY_TABLE.test(cls)) return undefined;
  const width = SUMMARY_WIDTH[/(?:^|\s)(two|three|four)-column-summary(?:\s|$)/.exec(cls)?.[1] ?? ''];
  if (!width) return undefined;
  const cells = (el.children as AnyNode[]).filter((c): c is Element => c.type === 'tag' && (c as Element).name === 'div');
  if (cells.length < width || cells.length % width !== 0) return undefined;
  const rows: Element[][] = [];
  for (let i = 0; i < cells.length; i += width) rows.push(cells.slice(i, i + width));
  return rows;
}

// Past this many characters a cell is a page region of a layout table, not a value.
const MAX_CELL = 2000;

const isRule = (b: Block) => b.md === '---' && b.text === '';
const isEmpty = (cell: Block[]) => cell.every((b) => b.text.trim() === '');
const isHeading = (b: Block) => b.kind === 'other' && /^#{1,6} /.test(b.md);

/** Rows of one data segment as a GFM table, or their blocks when they are a layout. */
function dataTable(rows: Element[][], cells: Block[][][]): Block[] {
  const kept = cells.map((row) => row.map((c) => c.filter((b) => !isRule(b))));
  let width = Math.max(0, ...rows.map((r) => r.reduce((n, c) => n + span(c, 'colspan'), 0)));
  // One column, cells holding tables, code or headings, a cell as long as a page, or one row whose
  // cells hold lists (a page's menu column beside its text): a layout table, read as its blocks.
  const layout = width <= 1 || kept.some((row) => row.some((c) => c.some((b) => b.kind === 'other') || c.reduce((n, b) => n + b.text.length, 0) > MAX_CELL))
    || (kept.length === 1 && kept[0]!.some((c) => c.some((b) => b.kind === 'list')));
  if (layout) return kept.flat(2);
  // Paragraphs and list items inside a cell (DOCX cells often hold several) are kept apart by <br>.
  const flat = (c: Block[], key: 'md' | 'text') => c.flatMap((b) => b[key].split('\n')).map((l) => l.trim()).filter(Boolean).join(key === 'md' ? '<br>' : ' ');
  const layoutGrid = grid(rows, width);
  let md = fill(layoutGrid, kept.map((row) => row.map((c) => flat(c, 'md'))));
  let text = fill(layoutGrid, kept.map((row) => row.map((c) => flat(c, 'text'))));
  const columns = keptColumns(layoutGrid.slots, text);
  if (columns.length < width) {
    const fold = (values: string[][], strong: boolean) => values.map((row) => {
      const label = row.findIndex((v) => v !== '');
      const out = columns.map((c) => row[c]!);
      // A group's label in a dropped column moves to the first column left (the row holds nothing else).
      if (label >= 0 && !columns.includes(label)) out[0] = strong ? `**${row[label]!}**` : row[label]!;
      return out;
    });
    md = fold(md, true);
    text = fold(text, false);
    width = columns.length;
    if (width <= 1) return text.flatMap((row, r) => (row[0] ? [{ md: md[r]![0]!, text: row[0], kind: 'para' as const }] : []));
  }
  if (text.every((row) => row.every((c) => c === ''))) return [];
  const line = (row: string[]) => `| ${row.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const [head, ...body] = md;
  return [{ md: [line(head!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n'), text: text.map((row) => row.join('\t').replace(/\t+$/, '')).join('\n'), kind: 'other' }];
}

/**
 * The columns worth keeping: those with a value in some row other than a
 * group label (a row whose one value sits in a header cell, like an index's
 * letter). All of them when no row is more than a label.
 */
function keptColumns(slots: Array<Array<Element | undefined>>, text: string[][]): number[] {
  const width = text[0]?.length ?? 0;
  const isLabel = text.map((row, r) => {
    const filled = row.flatMap((v, c) => (v !== '' ? [c] : []));
    return filled.length === 1 && slots[r]![filled[0]!]?.name.toLowerCase() === 'th';
  });
  if (isLabel.every(Boolean)) return Array.from({ length: width }, (_, c) => c);
  const columns: number[] = [];
  for (let c = 0; c < width; c++) if (text.some((row, r) => !isLabel[r] && row[c] !== '')) columns.push(c);
  return columns;
}

const span = (cell: Element, attr: 'colspan' | 'rowspan') => Math.max(1, Math.min(1000, Math.floor(Number(cell.attribs?.[attr] ?? 1)) || 1));

/**
 * Lays cells out on a `width`-column grid: for each slot, the index of the
 * cell whose value goes there (its first slot), -1 for a slot a merged cell
 * covers, undefined for none; and the cell element at each first slot.
 */
interface Layout { at: number[][]; slots: Array<Array<Element | undefined>> }

function grid(rows: Element[][], width: number): Layout {
  const at: number[][] = rows.map(() => Array<number>(width).fill(-1));
  const slots: Array<Array<Element | undefined>> = rows.map(() => Array<Element | undefined>(width).fill(undefined));
  const taken = rows.map(() => Array<boolean>(width).fill(false));
  rows.forEach((row, r) => {
    let col = 0;
    row.forEach((cell, i) => {
      while (col < width && taken[r]![col]) col++;
      if (col >= width) return;
      at[r]![col] = i;
      slots[r]![col] = cell;
      for (let dr = 0; dr < span(cell, 'rowspan') && r + dr < rows.length; dr++) {
        for (let dc = 0; dc < span(cell, 'colspan') && col + dc < width; dc++) taken[r + dr]![col + dc] = true;
      }
      col += span(cell, 'colspan');
    });
  });
  return { at, slots };
}

/** The values of each row's cells in their first slots, the slots merged cells cover empty. */
function fill(layout: Layout, values: string[][]): string[][] {
  return layout.at.map((row, r) => row.map((i) => (i >= 0 ? values[r]![i]! : '')));
}
