import { FUNCTIONS, MAX_TEXT } from './formula-functions.js';
import { approxAdd, finite, FormulaError, textOf, toNumber, type Args, type Value } from './formula-values.js';
import { Unsupported, type Node, type Ref } from './formula-parse.js';

export { FormulaError, generalNumber, type Value } from './formula-values.js';

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

function joined(a: string, b: string): string {
  if (a.length + b.length > MAX_TEXT) throw new Unsupported('text too long');
  return a + b;
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
