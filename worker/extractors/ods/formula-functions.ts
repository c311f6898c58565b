import { conditional, pairs } from './formula-criteria.js';
import { Unsupported } from './formula-parse.js';
import { finite, FormulaError, sum, textOf, toNumber, type Args, type Value } from './formula-values.js';

type Fn = (args: Args) => Value;

/**
 * The spreadsheet functions recalculation supports, by OpenFormula name.
 * A formula calling any other is unsupported and keeps its stored value.
 * Aggregates skip text and empty cells of ranges and take direct arguments
 * as numbers; an error anywhere is the result.
 */
export const FUNCTIONS: Record<string, Fn> = {
  SUM: (a) => aggregate(a, sum),
  PRODUCT: (a) => aggregate(a, (xs) => xs.reduce((s, x) => s * x, 1)),
  AVERAGE: (a) => aggregate(a, (xs) => (xs.length ? sum(xs) / xs.length : new FormulaError('#DIV/0!'))),
  MIN: (a) => aggregate(a, (xs) => (xs.length ? Math.min(...xs) : 0)),
  MAX: (a) => aggregate(a, (xs) => (xs.length ? Math.max(...xs) : 0)),
  COUNT: (a) => {
    let n = 0;
    a.each((v, fromRange) => {
      if (typeof v === 'number' || typeof v === 'boolean' || (!fromRange && typeof v === 'string' && !(toNumber(v) instanceof FormulaError))) n++;
    });
    return n;
  },
  COUNTA: (a) => {
    let n = 0;
    a.each((v, fromRange) => {
      if (v !== null && !(fromRange && v === '')) n++;
    });
    return n;
  },
  IF: (a) => {
    const test = truth(a.scalar(0));
    if (test instanceof FormulaError) return test;
    if (test) return a.nodes.length > 1 ? a.scalar(1) : true;
    return a.nodes.length > 2 ? a.scalar(2) : false;
  },
  IFERROR: (a) => {
    const v = a.scalar(0);
    return v instanceof FormulaError ? a.scalar(1) : v;
  },
  IFNA: (a) => {
    const v = a.scalar(0);
    return v instanceof FormulaError && v.code === '#N/A' ? a.scalar(1) : v;
  },
  AND: (a) => logical(a, (xs) => xs.every(Boolean)),
  OR: (a) => logical(a, (xs) => xs.some(Boolean)),
  XOR: (a) => logical(a, (xs) => xs.filter(Boolean).length % 2 === 1),
  NOT: (a) => {
    const t = truth(a.scalar(0));
    return t instanceof FormulaError ? t : !t;
  },
  TRUE: () => true,
  FALSE: () => false,
  ROUND: (a) => rounding(a, Math.round),
  ROUNDUP: (a) => rounding(a, (x) => Math.sign(x) * Math.ceil(Math.abs(x))),
  ROUNDDOWN: (a) => rounding(a, Math.trunc),
  TRUNC: (a) => rounding(a, Math.trunc),
  INT: (a) => math(a, Math.floor),
  ABS: (a) => math(a, Math.abs),
  SIGN: (a) => math(a, Math.sign),
  SQRT: (a) => math(a, (x) => (x < 0 ? NaN : Math.sqrt(x))),
  EXP: (a) => math(a, Math.exp),
  LN: (a) => math(a, (x) => (x <= 0 ? NaN : Math.log(x))),
  LOG10: (a) => math(a, (x) => (x <= 0 ? NaN : Math.log10(x))),
  SIN: (a) => math(a, Math.sin),
  COS: (a) => math(a, Math.cos),
  TAN: (a) => math(a, Math.tan),
  ATAN: (a) => math(a, Math.atan),
  PI: () => Math.PI,
  POWER: (a) => binary(a, (x, y) => (x === 0 && y < 0 ? new FormulaError('#DIV/0!') : finite(x ** y))),
  MOD: (a) => binary(a, (x, y) => (y === 0 ? new FormulaError('#DIV/0!') : finite(x - y * Math.floor(x / y)))),
  LEN: (a) => text(a, (s) => [...s].length),
  // LibreOffice upper-cases ß to ẞ, keeping the length.
  UPPER: (a) => text(a, (s) => s.replace(/ß/g, 'ẞ').toUpperCase()),
  LOWER: (a) => text(a, (s) => s.toLowerCase()),
  TRIM: (a) => text(a, (s) => s.replace(/ +/g, ' ').trim()),
  LEFT: (a) => slice(a, (chars, n) => chars.slice(0, n)),
  RIGHT: (a) => slice(a, (chars, n) => (n === 0 ? [] : chars.slice(-n))),
  MID: (a) => {
    const s = a.scalar(0);
    const from = toNumber(a.scalar(1));
    const n = toNumber(a.scalar(2));
    if (s instanceof FormulaError) return s;
    if (from instanceof FormulaError) return from;
    if (n instanceof FormulaError) return n;
    if (from < 1 || n < 0) return new FormulaError('#VALUE!');
    return [...textOf(s, a.decimal)].slice(Math.trunc(from) - 1, Math.trunc(from) - 1 + Math.trunc(n)).join('');
  },
  CONCATENATE: (a) => concat(a),
  CONCAT: (a) => concat(a),
  EXACT: (a) => {
    const [x, y] = [a.scalar(0), a.scalar(1)];
    if (x instanceof FormulaError) return x;
    if (y instanceof FormulaError) return y;
    return textOf(x, a.decimal) === textOf(y, a.decimal);
  },
  VALUE: (a) => {
    const v = a.scalar(0);
    return typeof v === 'string' ? toNumber(v) : v instanceof FormulaError ? v : toNumber(v);
  },
  SUMIF: (a) => conditional(a, 'sum', [[0, 1]], a.nodes.length > 2 ? 2 : 0),
  SUMIFS: (a) => conditional(a, 'sum', pairs(a, 1), 0),
  AVERAGEIF: (a) => conditional(a, 'average', [[0, 1]], a.nodes.length > 2 ? 2 : 0),
  AVERAGEIFS: (a) => conditional(a, 'average', pairs(a, 1), 0),
  COUNTIF: (a) => conditional(a, 'count', [[0, 1]], undefined),
  COUNTIFS: (a) => conditional(a, 'count', pairs(a, 0), undefined),
  SUMPRODUCT: (a) => {
    const grids = a.nodes.map((_, i) => a.grid(i));
    const [first] = grids;
    if (!first || grids.some((g) => g.length !== first.length || g[0]!.length !== first[0]!.length)) return new FormulaError('#VALUE!');
    const products: number[] = [];
    for (let r = 0; r < first.length; r++) {
      for (let c = 0; c < first[0]!.length; c++) {
        let product = 1;
        for (const g of grids) {
          const v = g[r]![c]!;
          if (v instanceof FormulaError) return v;
          product *= typeof v === 'number' || typeof v === 'boolean' ? Number(v) : 0;
        }
        products.push(product);
      }
    }
    return finite(sum(products));
  },
  ISERROR: (a) => a.scalar(0) instanceof FormulaError,
  ISERR: (a) => {
    const v = a.scalar(0);
    return v instanceof FormulaError && v.code !== '#N/A';
  },
  ISNA: (a) => {
    const v = a.scalar(0);
    return v instanceof FormulaError && v.code === '#N/A';
  },
  ISNUMBER: (a) => typeof a.scalar(0) === 'number',
  ISTEXT: (a) => typeof a.scalar(0) === 'string',
  ISBLANK: (a) => a.scalar(0) === null,
  NA: () => new FormulaError('#N/A'),
  'ERROR.TYPE': (a) => {
    const v = a.scalar(0);
    const type = v instanceof FormulaError ? ERROR_TYPES.indexOf(v.code) + 1 : 0;
    return type > 0 ? type : new FormulaError('#N/A');
  },
};

/** Longer text from a formula is not computed: joining a cell to itself down a column would double it each row. */
export const MAX_TEXT = 32_767;

const ERROR_TYPES = ['#NULL!', '#DIV/0!', '#VALUE!', '#REF!', '#NAME?', '#NUM!', '#N/A'];

/**
 * Numbers of every argument: booleans count as 1 and 0 (LibreOffice's are
 * numbers), text and empty cells of ranges are skipped, text given directly
 * is `#VALUE!`; no argument at all is `Err:511` (missing argument).
 */
function aggregate(a: Args, reduce: (xs: number[]) => number | FormulaError): Value {
  if (a.nodes.length === 0) return new FormulaError('Err:511');
  const xs: number[] = [];
  let error: FormulaError | undefined;
  a.each((v, fromRange) => {
    if (error) return;
    if (v instanceof FormulaError) error = v;
    else if (typeof v === 'number' || typeof v === 'boolean') xs.push(Number(v));
    else if (!fromRange && v !== null) error = new FormulaError('#VALUE!');
  });
  if (error) return error;
  const result = reduce(xs);
  return typeof result === 'number' ? finite(result) : result;
}

function truth(v: Value): boolean | FormulaError {
  if (v instanceof FormulaError) return v;
  if (typeof v === 'string') {
    const t = v.trim().toUpperCase();
    if (t === 'TRUE' || t === 'FALSE') return t === 'TRUE';
    return new FormulaError('#VALUE!');
  }
  return Boolean(v);
}

function logical(a: Args, combine: (xs: boolean[]) => boolean): Value {
  const xs: boolean[] = [];
  let error: FormulaError | undefined;
  a.each((v, fromRange) => {
    if (error || (fromRange && (v === null || typeof v === 'string'))) return;
    const t = truth(v);
    if (t instanceof FormulaError) error = t;
    else xs.push(t);
  });
  if (error) return error;
  return xs.length ? combine(xs) : new FormulaError('#VALUE!');
}

function math(a: Args, f: (x: number) => number): Value {
  const x = toNumber(a.scalar(0));
  return x instanceof FormulaError ? x : finite(f(x));
}

function binary(a: Args, f: (x: number, y: number) => number | FormulaError): Value {
  const x = toNumber(a.scalar(0));
  if (x instanceof FormulaError) return x;
  const y = toNumber(a.scalar(1));
  return y instanceof FormulaError ? y : f(x, y);
}

/** ROUND and its kin: to `digits` decimals (negative: tens, hundreds), by decimal shifting so 1.005 rounds as written. */
function rounding(a: Args, f: (x: number) => number): Value {
  return binary(a, (x, digits) => {
    const d = Math.trunc(digits);
    if (Math.abs(d) > 300) return x;
    const shifted = Number(`${Math.abs(x)}e${d}`);
    return finite(Math.sign(x) * Number(`${f(shifted)}e${-d}`));
  });
}

function text(a: Args, f: (s: string) => Value): Value {
  const v = a.scalar(0);
  return v instanceof FormulaError ? v : f(textOf(v, a.decimal));
}

/** LEFT and RIGHT: by characters (code points), `n` 1 when omitted. */
function slice(a: Args, f: (chars: string[], n: number) => string[]): Value {
  const v = a.scalar(0);
  const n = a.nodes.length > 1 ? toNumber(a.scalar(1)) : 1;
  if (v instanceof FormulaError) return v;
  if (n instanceof FormulaError) return n;
  if (n < 0) return new FormulaError('#VALUE!');
  return f([...textOf(v, a.decimal)], Math.trunc(n)).join('');
}

function concat(a: Args): Value {
  let out = '';
  let error: FormulaError | undefined;
  a.each((v) => {
    if (v instanceof FormulaError) error ??= v;
    else out += textOf(v, a.decimal);
    if (out.length > MAX_TEXT) throw new Unsupported('text too long');
  });
  return error ?? out;
}
