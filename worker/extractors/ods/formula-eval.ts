import { FUNCTIONS, MAX_TEXT } from './formula-functions.js';
import { Unsupported, type Node, type Ref } from './formula-parse.js';

/** An error value (`#DIV/0!`), as a cell shows it. */
export class FormulaError {
  constructor(readonly code: string) {}
}

/** A value a formula computes or reads: `null` is an empty cell. */
export type Value = number | string | boolean | FormulaError | null;

/** What a formula reads: cell values, each by sheet and 0-based column and row. */
export interface CellSource {
  /** The value of one cell, computed first if it is itself recalculated (may throw {@link Unsupported}). */
  value(sheet: string, col: number, row: number): Value;
  /** The non-empty cells of a rectangle, row by row; each one costs a step of `budget`. */
  cells(sheet: string, ref: Ref, budget: Budget): Iterable<Value>;
  /** Whether a sheet of that name exists. */
  has(sheet: string): boolean;
}

/** The budget or the depth bound ran out: the formula might be computed from elsewhere, or not at all. */
export class Exhausted extends Unsupported {}

/**
 * The bounds of one document's recalculation: a step budget shared by every
 * formula (each node and each cell a range visits costs one) and a bound on
 * the recursion of nodes and of cells computed inside others. Past either,
 * the formula at hand is {@link Unsupported} and keeps its stored value;
 * once the steps are spent, every formula left does.
 */
export class Budget {
  depth = 0;
  constructor(public steps: number, readonly maxDepth: number) {}

  step(n = 1): void {
    this.steps -= n;
    if (this.steps < 0) throw new Exhausted('step budget spent');
  }

  enter(): void {
    if (this.depth >= this.maxDepth) throw new Exhausted('too deep');
    this.depth += 1;
  }

  leave(): void {
    this.depth -= 1;
  }
}

/** How a function reads its arguments (see `formula-functions.ts`). */
export interface Args {
  readonly nodes: readonly Node[];
  /** Argument `i` as one value (a one-cell range is its cell; a larger one is `#VALUE!`). */
  scalar(i: number): Value;
  /** Every value of every argument, ranges flattened; `fromRange` tells cells of a range from direct arguments. */
  each(visit: (v: Value, fromRange: boolean) => void): void;
  /**
   * Argument `i` as a rectangle of values, row by row (a single value is a
   * 1×1 one); every cell of it costs a step, empty ones included.
   */
  grid(i: number): Value[][];
  /** The decimal separator numbers are written with when a function turns one into text. */
  readonly decimal: string;
}

/**
 * Computes one formula tree. Values follow LibreOffice's rules where the
 * functions supported meet them: empty is 0 or "", text that reads as a
 * number converts, other text is `#VALUE!` in arithmetic, an error in an
 * operand is the result, text compares without case and above numbers.
 */
export class Evaluator {
  constructor(
    private readonly source: CellSource,
    private readonly budget: Budget,
    /** The decimal separator of the document's locale, for numbers turned into text. */
    readonly decimal: string,
    /** `table:case-sensitive` of the document's calculation settings (ODF's default: true). */
    private readonly caseSensitive = true,
  ) {}

  evaluate(node: Node, sheet: string): Value {
    this.budget.step();
    this.budget.enter();
    try {
      return this.node(node, sheet);
    } finally {
      this.budget.leave();
    }
  }

  private node(node: Node, sheet: string): Value {
    switch (node.k) {
      case 'num': return node.v;
      case 'str': return node.v;
      case 'err': return new FormulaError(node.v);
      case 'ref': return this.single(node.ref, sheet);
      case 'neg': return arithmetic('-', 0, this.evaluate(node.a, sheet));
      case 'pct': return arithmetic('/', this.evaluate(node.a, sheet), 100);
      case 'bin': {
        const a = this.evaluate(node.a, sheet);
        const b = this.evaluate(node.b, sheet);
        if (node.op === '&') return a instanceof FormulaError ? a : b instanceof FormulaError ? b : joined(this.text(a), this.text(b));
        if ('+-*/^'.includes(node.op)) return arithmetic(node.op, a, b);
        return compare(node.op, a, b, this.caseSensitive);
      }
      case 'call': {
        const fn = FUNCTIONS[node.name];
        if (!fn) throw new Unsupported(`function ${node.name}`);
        return fn(this.args(node.args, sheet));
      }
    }
  }

  /** A reference read as one value: its cell, or for a range `#VALUE!` (implicit intersection is not done). */
  private single(ref: Ref, sheet: string): Value {
    const name = ref.sheet ?? sheet;
    if (!this.source.has(name)) return new FormulaError('#REF!');
    if (ref.col !== ref.col2 || ref.row !== ref.row2) return new FormulaError('#VALUE!');
    return this.source.value(name, ref.col, ref.row);
  }

  private args(nodes: readonly Node[], sheet: string): Args {
    return {
      nodes,
      decimal: this.decimal,
      scalar: (i) => (nodes[i] === undefined ? null : this.evaluate(nodes[i]!, sheet)),
      grid: (i) => {
        const node = nodes[i];
        if (node?.k !== 'ref') return [[node === undefined ? null : this.evaluate(node, sheet)]];
        const name = node.ref.sheet ?? sheet;
        if (!this.source.has(name)) return [[new FormulaError('#REF!')]];
        const { col, row, col2, row2 } = node.ref;
        const area = (col2 - col + 1) * (row2 - row + 1);
        // A rectangle larger than the steps left is refused whole, so it does not spend them for every formula after it.
        if (area > this.budget.steps) throw new Unsupported('range too large');
        this.budget.step(area);
        return Array.from({ length: row2 - row + 1 }, (_, r) => Array.from({ length: col2 - col + 1 }, (_, c) => this.source.value(name, col + c, row + r)));
      },
      each: (visit) => {
        for (const node of nodes) {
          if (node.k === 'ref' && (node.ref.col !== node.ref.col2 || node.ref.row !== node.ref.row2)) {
            const name = node.ref.sheet ?? sheet;
            if (!this.source.has(name)) visit(new FormulaError('#REF!'), false);
            else for (const v of this.source.cells(name, node.ref, this.budget)) visit(v, true);
          } else if (node.k === 'ref') {
            visit(this.evaluate(node, sheet), true);
          } else visit(this.evaluate(node, sheet), false);
        }
      },
    };
  }

  /** A value as text, numbers in the general format with the document's decimal separator. */
  text(v: Value): string {
    return textOf(v, this.decimal);
  }
}

/** A value as `&` and the text functions see it. */
export function textOf(v: Value, decimal: string): string {
  if (v === null) return '';
  // LibreOffice's booleans are numbers shown as TRUE or FALSE: joined to text they are 1 and 0.
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return generalNumber(v, decimal);
  if (v instanceof FormulaError) return v.code;
  return v;
}

/**
 * A number as LibreOffice's general format writes it (checked against
 * LibreOffice 7.4): whole numbers up to 2^53 in full; others to 15
 * significant digits, fixed while that takes at most 20 characters and the
 * number is at least 1E-9 and below 1E15, else as `1.5E-10` or `1.5E+016`
 * (positive exponents with three digits, negative ones with two).
 */
export function generalNumber(n: number, decimal: string): string {
  if (n === 0) return '0';
  const abs = Math.abs(n);
  let text: string | undefined;
  if (Number.isInteger(n) && abs <= 2 ** 53) text = String(n);
  else if (abs < 1e15 && abs >= 1e-9) {
    const rounded = Number(n.toPrecision(15));
    const fixed = rounded.toFixed(Math.min(100, Math.max(0, 14 - Math.floor(Math.log10(Math.abs(rounded)))))).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
    if (fixed.replace('-', '').length <= 20) text = fixed;
  }
  if (text === undefined) {
    const [mantissa, exp] = n.toExponential(14).split('e');
    const e = Number(exp);
    text = `${mantissa!.replace(/\.?0+$/, '')}E${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(e < 0 ? 2 : 3, '0')}`;
  }
  return decimal === '.' ? text : text.replace('.', decimal);
}

/** A value as a number for arithmetic: empty is 0, TRUE 1, text that reads as a number converts; an error is returned as it is. */
export function toNumber(v: Value): number | FormulaError {
  if (v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof FormulaError) return v;
  const t = v.trim();
  if (t === '') return new FormulaError('#VALUE!');
  const n = Number(t);
  return Number.isFinite(n) ? n : new FormulaError('#VALUE!');
}

function joined(a: string, b: string): string {
  if (a.length + b.length > MAX_TEXT) throw new Unsupported('text too long');
  return a + b;
}

/** A finite result: `#NUM!` for an overflow, LibreOffice's `Err:502` (invalid argument) for a result that is not a number (`SQRT(-1)`). */
export function finite(n: number): number | FormulaError {
  if (Number.isNaN(n)) return new FormulaError('Err:502');
  return Number.isFinite(n) ? n : new FormulaError('#NUM!');
}

function arithmetic(op: string, a: Value, b: Value): Value {
  const x = toNumber(a);
  if (x instanceof FormulaError) return x;
  const y = toNumber(b);
  if (y instanceof FormulaError) return y;
  switch (op) {
    case '+': return finite(approxAdd(x, y));
    case '-': return finite(approxAdd(x, -y));
    case '*': return finite(x * y);
    case '/': return y === 0 ? new FormulaError('#DIV/0!') : finite(x / y);
    default: return x === 0 && y < 0 ? new FormulaError('#DIV/0!') : finite(x ** y);
  }
}

/**
 * A sum that is 0 when the two cancel out to within the last bits, as
 * LibreOffice's (rtl::math::approxAdd): `=0.3-0.2-0.1` shows 0, not -2.8E-17.
 */
export function approxAdd(x: number, y: number): number {
  if (Math.sign(x) === -Math.sign(y) && Math.abs(x + y) < Math.abs(x) * 2 ** -48) return 0;
  return x + y;
}

function compare(op: string, a: Value, b: Value, caseSensitive: boolean): Value {
  if (a instanceof FormulaError) return a;
  if (b instanceof FormulaError) return b;
  const order = compareValues(a, b, caseSensitive);
  switch (op) {
    case '=': return order === 0;
    case '<>': return order !== 0;
    case '<': return order < 0;
    case '<=': return order <= 0;
    case '>': return order > 0;
    default: return order >= 0;
  }
}

/** Numbers (and booleans as numbers) below text; text with or without case; empty equal to 0 and to "". */
function compareValues(a: Exclude<Value, FormulaError>, b: Exclude<Value, FormulaError>, caseSensitive: boolean): number {
  const kind = (v: typeof a) => (typeof v === 'string' ? 1 : 0);
  const x = a === null ? (typeof b === 'string' ? '' : 0) : a;
  const y = b === null ? (typeof a === 'string' ? '' : 0) : b;
  if (kind(x) !== kind(y)) return kind(x) - kind(y);
  if (typeof x === 'string') {
    const p = x.toLowerCase();
    const q = (y as string).toLowerCase();
    if (p !== q || !caseSensitive) return p < q ? -1 : p > q ? 1 : 0;
    return x < (y as string) ? -1 : x > (y as string) ? 1 : 0;
  }
  return Number(x) - Number(y);
}
