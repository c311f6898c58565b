import type { Node } from './formula-parse.js';

/** The values of formulas and the helpers that read and write them, shared by the evaluator, its functions and their criteria. */

/** An error value (`#DIV/0!`), as a cell shows it. */
export class FormulaError {
  constructor(readonly code: string) {}
}

/** A value a formula computes or reads: `null` is an empty cell. */
export type Value = number | string | boolean | FormulaError | null;

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

/** A finite result: `#NUM!` for an overflow, LibreOffice's `Err:502` (invalid argument) for a result that is not a number (`SQRT(-1)`). */
export function finite(n: number): number | FormulaError {
  if (Number.isNaN(n)) return new FormulaError('Err:502');
  return Number.isFinite(n) ? n : new FormulaError('#NUM!');
}

/**
 * A sum that is 0 when the two cancel out to within the last bits, as
 * LibreOffice's (rtl::math::approxAdd): `=0.3-0.2-0.1` shows 0, not -2.8E-17.
 */
export function approxAdd(x: number, y: number): number {
  if (Math.sign(x) === -Math.sign(y) && Math.abs(x + y) < Math.abs(x) * 2 ** -48) return 0;
  return x + y;
}

/** A compensated (Neumaier) sum, as LibreOffice's SUM has been since 7.2: the last digit shown matches it. */
export function sum(xs: readonly number[]): number {
  let total = 0;
  let carry = 0;
  for (const x of xs) {
    const t = total + x;
    carry += Math.abs(total) >= Math.abs(x) ? total - t + x : x - t + total;
    total = t;
  }
  return approxAdd(total, carry);
}
