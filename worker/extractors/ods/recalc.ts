import { Budget, Evaluator, Exhausted, FormulaError, type CellSource, type Value } from './formula-eval.js';
import { parseFormula, Unsupported, type Node, type Ref } from './formula-parse.js';
import { PERCENT, type NumberStyles } from './number-styles.js';

/** One stored cell of an ODS sheet: what the file says it shows and holds. */
export interface SheetCell {
  /** The displayed text (`text:p`), paragraphs joined by a space. */
  text: string;
  /** `office:value-type` (`float`, `string`, `date`…), absent when the file stores no value. */
  type?: string;
  /** The stored value of that type (`office:value`, `office:date-value`, `office:boolean-value`…). */
  value?: string;
  /** `error` when LibreOffice's `calcext:value-type` says the stored result is an error. */
  calcType?: string;
  formula?: string;
  /** The cell's own `table:style-name`. */
  style?: string;
  /** The column's `table:default-cell-style-name`. */
  columnStyle?: string;
  /** Written once for several columns or rows (`number-*-repeated`): its formula is not recalculated. */
  repeated?: boolean;
}

/** A sheet's cells by 0-based row and column, the rows in order. */
export interface SheetGrid {
  cells: Map<number, Map<number, SheetCell>>;
  rows: number[];
}

/**
 * Bounds of one document's recalculation: steps over all formulas, nesting
 * of formula nodes (cells read inside others included), the node depth past
 * which a cell read is put off and computed on its own first, and how many
 * times that may happen.
 */
export const RECALC_BUDGET = { steps: 2_000_000, depth: 400, cellDepth: 200, putOff: 10_000 };

/** A cell read too deep inside others: compute {@link Workbook.putOff} first, then try again. */
class PutOff extends Exhausted {}

/**
 * Which formula cells LibreOffice computes again when it opens an ODS with
 * its default settings (never recalculate on load): those whose stored
 * result it does not take (an error, no value at all, a 0 shown as
 * nothing, an error written as text by older versions) and those with a
 * number result but no style of their own, which it computes to learn their
 * number format. Text results it keeps. Dates, times, percentages and
 * currencies without a style keep their text here: the format LibreOffice
 * would infer for them is not modelled.
 */
export function needsRecalc(cell: SheetCell): boolean {
  if (!cell.formula || cell.repeated) return false;
  if (cell.calcType === 'error') return true;
  if (/^(?:|Err:\d+|#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A))$/.test(cell.text)) return true;
  if (cell.type === undefined || (cell.type !== 'string' && cell.value === undefined)) return true;
  if (cell.type !== 'string' && Number(cell.value) === 0 && cell.text === '') return true;
  return cell.style === undefined && (cell.type === 'float' || cell.type === 'boolean');
}

/**
 * The workbook as formulas read it: stored values, and the values of cells
 * {@link needsRecalc} picks computed on demand, once each (cycles and cells
 * past the bounds keep their stored value).
 */
export class Workbook implements CellSource {
  private readonly computed = new Map<string, Value | 'visiting'>();
  private readonly budget = new Budget(RECALC_BUDGET.steps, RECALC_BUDGET.depth);
  private readonly evaluator: Evaluator;
  private readonly trees = new WeakMap<SheetCell, Node | Unsupported>();
  /** The cell whose read was put off last (see {@link PutOff}). */
  private putOff: [string, number, number] | undefined;
  private putOffs = 0;

  constructor(
    private readonly sheets: ReadonlyMap<string, SheetGrid>,
    private readonly styles: NumberStyles,
    settings: { decimal: string; caseSensitive: boolean },
  ) {
    this.evaluator = new Evaluator(this, this.budget, settings.decimal, settings.caseSensitive);
  }

  has(sheet: string): boolean {
    return this.sheets.has(sheet);
  }

  /** The text a cell shows after LibreOffice's recalculation on load; its stored text when not recalculated or not computable. */
  display(sheet: string, col: number, row: number, cell: SheetCell): string {
    if (!needsRecalc(cell)) return cell.text;
    try {
      const tree = this.tree(cell);
      const dataStyle = this.styles.dataStyleOf(cell.style ?? cell.columnStyle) ?? (cell.style === undefined ? (tree.k === 'pct' ? PERCENT : this.inferredStyle(tree, sheet)) : undefined);
      if (!this.styles.supported(dataStyle)) return cell.text;
      return this.styles.format(this.settle(sheet, col, row), dataStyle);
    } catch (err) {
      // A stack overflow despite the bounds (a very deep formula on a small stack) costs this cell's recalculation only.
      if (err instanceof Unsupported || err instanceof RangeError) return cell.text;
      throw err;
    }
  }

  /**
   * A cell's value, computing first the cells put off on the way (a chain
   * of formulas longer than the recursion bound is computed from its far end,
   * a stretch at a time, instead of failing).
   */
  private settle(sheet: string, col: number, row: number): Value {
    const todo: [string, number, number][] = [[sheet, col, row]];
    for (;;) {
      const [s, c, r] = todo[todo.length - 1]!;
      try {
        const value = this.value(s, c, r);
        todo.pop();
        if (todo.length === 0) return value;
      } catch (err) {
        if (!(err instanceof PutOff) || !this.putOff || ++this.putOffs > RECALC_BUDGET.putOff) throw err;
        todo.push(this.putOff);
        this.putOff = undefined;
      }
    }
  }

  value(sheet: string, col: number, row: number): Value {
    const cell = this.sheets.get(sheet)?.cells.get(row)?.get(col);
    if (!cell) return null;
    if (!needsRecalc(cell)) return storedValue(cell);
    const key = `${sheet}\u0000${col}\u0000${row}`;
    const known = this.computed.get(key);
    // A cycle aborts every cell on it: LibreOffice shows Err:522 there, the stored text is kept here.
    if (known === 'visiting') throw new Exhausted('circular reference');
    if (known !== undefined) return known;
    if (this.budget.depth >= RECALC_BUDGET.cellDepth) {
      this.putOff = [sheet, col, row];
      throw new PutOff('deep');
    }
    this.computed.set(key, 'visiting');
    let result: Value;
    try {
      result = this.evaluator.evaluate(this.tree(cell), sheet);
    } catch (err) {
      this.computed.delete(key);
      // Out of steps or too deep here: this cell may still be computed when reached from closer by.
      if (err instanceof Exhausted || !(err instanceof Unsupported)) throw err;
      result = storedValue(cell);
    }
    this.computed.set(key, result);
    return result;
  }

  private tree(cell: SheetCell): Node {
    let tree = this.trees.get(cell);
    if (tree === undefined) {
      try {
        tree = parseFormula(cell.formula!);
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        tree = err;
      }
      this.trees.set(cell, tree);
    }
    if (tree instanceof Unsupported) throw tree;
    return tree;
  }

  *cells(sheet: string, ref: Ref, budget: Budget): Iterable<Value> {
    const grid = this.sheets.get(sheet);
    if (!grid) return;
    for (let i = firstAtLeast(grid.rows, ref.row); i < grid.rows.length && grid.rows[i]! <= ref.row2; i++) {
      const row = grid.rows[i]!;
      const cells = grid.cells.get(row)!;
      // Each cell looked at costs a step, so a narrow range over wide rows reads only its columns.
      if (ref.col2 - ref.col + 1 < cells.size) {
        for (let col = ref.col; col <= ref.col2; col++) {
          budget.step();
          if (cells.has(col)) yield this.value(sheet, col, row);
        }
      } else {
        for (const col of cells.keys()) {
          budget.step();
          if (col >= ref.col && col <= ref.col2) yield this.value(sheet, col, row);
        }
      }
    }
  }

  /**
   * The number format LibreOffice gives a formula cell without a style: that
   * of the first cell it reads through arithmetic or an aggregate (`=B2*2`
   * shows as B2 does); functions that count, measure text or compare give
   * none. A formula ending in a percent sign (`=5%`) shows 0.00% instead.
   */
  private inferredStyle(node: Node, sheet: string, depth = 0): string | undefined {
    if (depth > 64) return undefined;
    switch (node.k) {
      case 'ref': {
        const cell = this.sheets.get(node.ref.sheet ?? sheet)?.cells.get(node.ref.row)?.get(node.ref.col);
        return cell ? this.styles.dataStyleOf(cell.style ?? cell.columnStyle) : undefined;
      }
      case 'neg': return this.inferredStyle(node.a, sheet, depth + 1);
      case 'bin': return '+-*/^'.includes(node.op) ? (this.inferredStyle(node.a, sheet, depth + 1) ?? this.inferredStyle(node.b, sheet, depth + 1)) : undefined;
      case 'call': {
        if (!FORMAT_PASSING.has(node.name)) return undefined;
        const args = node.name === 'IF' ? node.args.slice(1) : node.args;
        for (const a of args) {
          const style = this.inferredStyle(a, sheet, depth + 1);
          if (style) return style;
        }
        return undefined;
      }
      default: return undefined;
    }
  }
}

const FORMAT_PASSING = new Set(['SUM', 'MIN', 'MAX', 'AVERAGE', 'PRODUCT', 'ROUND', 'ROUNDUP', 'ROUNDDOWN', 'TRUNC', 'INT', 'ABS', 'IF', 'IFERROR', 'IFNA']);

/** Index of the first entry of sorted `rows` at or past `row`. */
function firstAtLeast(rows: readonly number[], row: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]! < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A cell's stored value as formulas read it; dates and times as LibreOffice's serial numbers (days since 1899-12-30). */
export function storedValue(cell: SheetCell): Value {
  if (cell.calcType === 'error') return new FormulaError(cell.text.startsWith('#') ? cell.text : '#VALUE!');
  switch (cell.type) {
    case 'float': case 'percentage': case 'currency': return cell.value === undefined ? null : Number(cell.value);
    case 'boolean': return cell.value === 'true' || cell.value === '1';
    case 'date': return dateSerial(cell.value ?? '');
    case 'time': return timeFraction(cell.value ?? '');
    case 'string': return cell.value ?? cell.text;
    default: return cell.text === '' ? null : cell.text;
  }
}

function dateSerial(text: string): Value {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d(?:\.\d+)?))?/.exec(text);
  if (!m) return new FormulaError('#VALUE!');
  const days = (Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - Date.UTC(1899, 11, 30)) / 86_400_000;
  return days + (Number(m[4] ?? 0) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0)) / 86_400;
}

function timeFraction(text: string): Value {
  const m = /^-?PT?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(text);
  if (!m) return new FormulaError('#VALUE!');
  return (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) / 86_400 * (text.startsWith('-') ? -1 : 1);
}
