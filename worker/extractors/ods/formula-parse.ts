/**
 * A parser of OpenFormula expressions as ODS cells store them
 * (`of:=SUM([.A1:.B3])*2`), into a small tree the evaluator walks. Only what
 * the evaluator can compute is accepted; anything else (named ranges,
 * external files, the union and intersection operators, array constants) is
 * {@link Unsupported}, and the cell keeps the value the file stores.
 */

/** A reference to one cell or a rectangle, 0-based; `sheet` undefined is the formula's own sheet. */
export interface Ref {
  sheet: string | undefined;
  col: number;
  row: number;
  col2: number;
  row2: number;
}

export type Node =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 'err'; v: string }
  | { k: 'ref'; ref: Ref }
  | { k: 'neg'; a: Node }
  | { k: 'pct'; a: Node }
  | { k: 'bin'; op: string; a: Node; b: Node }
  | { k: 'call'; name: string; args: Node[] };

/** A formula (or part of one) this evaluator does not compute. */
export class Unsupported extends Error {}

/** Formulas longer than this are not read. */
const MAX_LENGTH = 8192;
/** Nesting of parentheses and calls past this is not read: it bounds the parser's and the evaluator's recursion. */
const MAX_NESTING = 64;
/** Operators of one precedence in a row past this are not read: `1+1+…` nests the tree as deep as parentheses do. */
const MAX_CHAIN = 256;

/** The tree of a cell's `table:formula`, or {@link Unsupported} for another grammar or syntax. */
export function parseFormula(formula: string): Node {
  // `of:` is OpenFormula (ODF 1.2), `oooc:` the older OpenOffice grammar, which writes references the same way.
  const m = /^(?:(of|oooc):)?=(.*)$/s.exec(formula);
  if (!m || formula.length > MAX_LENGTH) throw new Unsupported(`formula grammar`);
  const p = new Parser(m[2]!);
  const node = p.comparison(0);
  p.skipSpace();
  if (!p.done()) throw new Unsupported(`trailing text at ${p.pos}`);
  return node;
}

const COMPARISONS = ['<>', '<=', '>=', '=', '<', '>'];
// Binary operators by precedence, loosest first: comparison, text concatenation, sums, products, powers.
const LEVELS: readonly (readonly string[])[] = [COMPARISONS, ['&'], ['+', '-'], ['*', '/'], ['^']];

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.pos >= this.s.length;
  }

  skipSpace(): void {
    while (/\s/.test(this.s[this.pos] ?? '')) this.pos++;
  }

  private take(...ops: string[]): string | undefined {
    this.skipSpace();
    const op = ops.find((o) => this.s.startsWith(o, this.pos));
    if (op) this.pos += op.length;
    return op;
  }

  /** One more operator of a chain; a chain past {@link MAX_CHAIN} is unsupported (it would nest the tree as deep). */
  private link(n: number, op: string, a: Node, b: Node): Node {
    if (n >= MAX_CHAIN) throw new Unsupported('operator chain');
    return { k: 'bin', op, a, b };
  }

  comparison(depth: number): Node {
    if (depth > MAX_NESTING) throw new Unsupported('nesting');
    return this.binary(0, depth);
  }

  /** The operators of one precedence level and those binding tighter, left-associative. */
  private binary(level: number, depth: number): Node {
    const ops = LEVELS[level];
    if (!ops) return this.unary(depth);
    let a = this.binary(level + 1, depth);
    for (let op = this.take(...ops), n = 0; op; op = this.take(...ops), n++) a = this.link(n, op, a, this.binary(level + 1, depth));
    return a;
  }

  private unary(depth: number): Node {
    const op = this.take('-', '+');
    if (op) {
      if (depth > MAX_NESTING) throw new Unsupported('nesting');
      const a = this.unary(depth + 1);
      return op === '-' ? { k: 'neg', a } : a;
    }
    let a = this.primary(depth);
    while (this.take('%')) a = { k: 'pct', a };
    return a;
  }

  private primary(depth: number): Node {
    this.skipSpace();
    const s = this.s;
    const c = s[this.pos];
    if (c === undefined) throw new Unsupported('unexpected end');
    if (c === '(') {
      this.pos++;
      const inner = this.comparison(depth + 1);
      if (!this.take(')')) throw new Unsupported('unclosed parenthesis');
      return inner;
    }
    if (c === '"') return { k: 'str', v: this.string() };
    if (c === '[') return { k: 'ref', ref: this.reference() };
    if (c === '#') {
      const m = /^#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A)/i.exec(s.slice(this.pos));
      if (!m) throw new Unsupported('error literal');
      this.pos += m[0].length;
      return { k: 'err', v: m[0].toUpperCase() };
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(s.slice(this.pos, this.pos + 400));
    if (num) {
      this.pos += num[0].length;
      return { k: 'num', v: Number(num[0]) };
    }
    const name = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(s.slice(this.pos, this.pos + 256));
    if (!name) throw new Unsupported(`unexpected ${c}`);
    this.pos += name[0].length;
    if (!this.take('(')) {
      // TRUE and FALSE may be written without parentheses; any other bare name is a named range.
      const upper = name[0].toUpperCase();
      if (upper === 'TRUE' || upper === 'FALSE') return { k: 'call', name: upper, args: [] };
      throw new Unsupported('named range');
    }
    const args: Node[] = [];
    this.skipSpace();
    if (!this.take(')')) {
      do {
        this.skipSpace();
        // An omitted argument (`IF(A1;;2)`) is an empty string here, as LibreOffice reads it in the functions supported.
        args.push(this.s[this.pos] === ';' || this.s[this.pos] === ')' ? { k: 'str', v: '' } : this.comparison(depth + 1));
      } while (this.take(';'));
      if (!this.take(')')) throw new Unsupported('unclosed call');
    }
    return { k: 'call', name: name[0].toUpperCase().replace(/^(?:COM\.MICROSOFT|ORG\.OPENOFFICE|_XLFN)\./, ''), args };
  }

  private string(): string {
    let out = '';
    for (this.pos++; this.pos < this.s.length; this.pos++) {
      if (this.s[this.pos] !== '"') out += this.s[this.pos];
      else if (this.s[this.pos + 1] === '"') out += '"', this.pos++;
      else {
        this.pos++;
        return out;
      }
    }
    throw new Unsupported('unclosed string');
  }

  /** `[.A1]`, `[$Sheet2.$B$3]`, `['Sheet two'.A1:.B2]`; a range across sheets, a column or row range and external files are unsupported. */
  private reference(): Ref {
    const end = this.s.indexOf(']', this.pos);
    if (end < 0) throw new Unsupported('unclosed reference');
    const body = this.s.slice(this.pos + 1, end);
    this.pos = end + 1;
    const [from, to, ...rest] = splitRange(body);
    if (from === undefined || rest.length > 0) throw new Unsupported('reference');
    const a = cellAddress(from);
    const b = to === undefined ? a : cellAddress(to);
    if (b.sheet !== undefined && b.sheet !== a.sheet) throw new Unsupported('3-D reference');
    return { sheet: a.sheet, col: Math.min(a.col, b.col), row: Math.min(a.row, b.row), col2: Math.max(a.col, b.col), row2: Math.max(a.row, b.row) };
  }
}

/** Splits `from:to` at the colon outside quotes. */
function splitRange(body: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let part = '';
  for (const ch of body) {
    if (ch === "'") quoted = !quoted;
    if (ch === ':' && !quoted) {
      parts.push(part);
      part = '';
    } else part += ch;
  }
  parts.push(part);
  return parts;
}

const ADDRESS = /^\$?(?:'((?:[^']|'')*)'|([^'.#]*))\.\$?([A-Z]{1,3})\$?(\d{1,7})$/i;

function cellAddress(text: string): { sheet: string | undefined; col: number; row: number } {
  const m = ADDRESS.exec(text.trim());
  if (!m) throw new Unsupported(`address ${text}`);
  const sheet = m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2] || undefined;
  let col = 0;
  for (const ch of m[3]!.toUpperCase()) col = col * 26 + ch.charCodeAt(0) - 64;
  return { sheet, col: col - 1, row: Number(m[4]) - 1 };
}
