import type { OrderedNode } from '../office/office-package.js';
import { attrOf, childrenOf, tagOf } from '../office/ordered-xml.js';
import type { TableCaps } from '../table/gfm-table.js';
import type { SheetCell, SheetGrid } from './recalc.js';

/** One sheet as read: its rows in order (repeats expanded while they hold something), each row's sheet index, and the cells by position. */
export interface SheetRead {
  rows: (SheetCell | undefined)[][];
  rowIndex: number[];
  grid: SheetGrid;
}

const GROUPS = new Set(['table-header-rows', 'table-rows', 'table-row-group']);
const COLUMN_GROUPS = new Set(['table-header-columns', 'table-columns', 'table-column-group']);

/**
 * Reads a `table:table` within the caps: rows of cells with their stored
 * text, value, formula and styles. Empty repeats (often a million rows of
 * nothing) only move the position, they are never built; trailing empty
 * rows are dropped.
 */
export function readSheet(table: OrderedNode, caps: TableCaps): SheetRead {
  const columnStyles = readColumnStyles(table, caps.maxColumns);
  const out: SheetRead = { rows: [], rowIndex: [], grid: { cells: new Map(), rows: [] } };
  let index = 0;
  const visit = (nodes: readonly OrderedNode[]) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === 'table-row') {
        const declared = Math.max(1, Number(attrOf(node, 'number-rows-repeated') ?? 1) || 1);
        const cells = rowCells(node, caps.maxColumns + 1, columnStyles, declared > 1);
        const repeat = cells.length === 0 ? 0 : Math.min(declared, caps.maxRows + 1);
        for (let i = 0; i < repeat && out.rows.length <= caps.maxRows; i++) {
          out.rows.push(cells);
          out.rowIndex.push(index + i);
          const byColumn = new Map<number, SheetCell>();
          cells.forEach((c, col) => c && byColumn.set(col, c));
          out.grid.cells.set(index + i, byColumn);
          out.grid.rows.push(index + i);
        }
        index += declared;
      } else if (tag && GROUPS.has(tag)) visit(childrenOf(node));
    }
  };
  visit(childrenOf(table));
  return out;
}

/** Each column's default cell style, up to `maxColumns`. */
function readColumnStyles(table: OrderedNode, maxColumns: number): (string | undefined)[] {
  const styles: (string | undefined)[] = [];
  const visit = (nodes: readonly OrderedNode[]) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === 'table-column') {
        const style = attrOf(node, 'default-cell-style-name');
        const repeat = Math.min(Number(attrOf(node, 'number-columns-repeated') ?? 1) || 1, maxColumns - styles.length);
        for (let i = 0; i < repeat; i++) styles.push(style === 'Default' ? undefined : style);
      } else if (tag && COLUMN_GROUPS.has(tag)) visit(childrenOf(node));
      if (styles.length >= maxColumns) return;
    }
  };
  visit(childrenOf(table));
  return styles;
}

function rowCells(row: OrderedNode, maxColumns: number, columnStyles: readonly (string | undefined)[], rowRepeated: boolean): (SheetCell | undefined)[] {
  const cells: (SheetCell | undefined)[] = [];
  for (const node of childrenOf(row)) {
    if (tagOf(node) !== 'table-cell' && tagOf(node) !== 'covered-table-cell') continue;
    const declared = Math.max(1, Number(attrOf(node, 'number-columns-repeated') ?? 1) || 1);
    const cell = readCell(node, columnStyles[cells.length], declared > 1 || rowRepeated);
    // Empty repeats (often 1024 columns of nothing) are only counted, never built.
    if (!cell && cells.length + declared > maxColumns) break;
    const repeat = Math.min(declared, maxColumns);
    for (let i = 0; i < repeat && cells.length < maxColumns; i++) cells.push(cell && i > 0 && cell.columnStyle !== columnStyles[cells.length] ? { ...cell, columnStyle: columnStyles[cells.length] } : cell);
  }
  while (cells.length > 0 && cells[cells.length - 1] === undefined) cells.pop();
  return cells;
}

/** A cell's stored content, undefined when it has neither text nor a formula. */
function readCell(node: OrderedNode, columnStyle: string | undefined, repeated: boolean): SheetCell | undefined {
  const text = childrenOf(node).filter((n) => tagOf(n) === 'p').map((p) => paragraphText(childrenOf(p)).replace(/\s+/g, ' ').trim()).join(' ');
  const formula = attrOf(node, 'formula');
  if (text === '' && !formula) return undefined;
  // `office:value-type` and LibreOffice's `calcext:value-type` read as one name without their prefixes; they differ only for an error.
  const declared = attrOf(node, 'value-type');
  const type = declared === 'error' ? 'string' : declared;
  const value = type === 'date' ? attrOf(node, 'date-value') : type === 'time' ? attrOf(node, 'time-value') : type === 'boolean' ? attrOf(node, 'boolean-value') : type === 'string' ? attrOf(node, 'string-value') : attrOf(node, 'value');
  const cell: SheetCell = { text };
  if (type !== undefined) cell.type = type;
  if (value !== undefined) cell.value = value;
  if (declared === 'error') cell.calcType = 'error';
  if (formula) cell.formula = formula;
  const style = attrOf(node, 'style-name');
  if (style !== undefined) cell.style = style;
  if (columnStyle !== undefined) cell.columnStyle = columnStyle;
  if (repeated) cell.repeated = true;
  return cell;
}

/** A cell paragraph's text: spaces, tabs and line breaks (`text:s`, `text:tab`, `text:line-break`) as spaces, spans and links as their text. */
function paragraphText(nodes: readonly OrderedNode[]): string {
  let text = '';
  for (const n of nodes) {
    if ('#text' in n) text += String(n['#text']);
    else if (tagOf(n) === 's' || tagOf(n) === 'tab' || tagOf(n) === 'line-break') text += ' ';
    else if (tagOf(n) !== 'annotation') text += paragraphText(childrenOf(n));
  }
  return text;
}

/** The decimal separator the file's displayed numbers use: `,` when a stored fraction is shown with one, else `.`. */
export function decimalSeparator(sheets: readonly SheetRead[]): string {
  for (const sheet of sheets) {
    for (const row of sheet.rows) {
      for (const cell of row) {
        if (!cell || cell.type !== 'float' || !cell.value || Number.isInteger(Number(cell.value))) continue;
        if (/\d,\d/.test(cell.text) && !/\d\.\d/.test(cell.text)) return ',';
        if (/\d\.\d/.test(cell.text) && !/\d,\d/.test(cell.text)) return '.';
      }
    }
  }
  return '.';
}
