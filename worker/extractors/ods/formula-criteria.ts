import { finite, FormulaError, sum, type Args, type Value } from './formula-values.js';
import { Unsupported } from './formula-parse.js';

/** The (range, criterion) argument pairs of a *IFS function, from argument `from` on. */
export function pairs(a: Args, from: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = from; i + 1 < a.nodes.length; i += 2) out.push([i, i + 1]);
  return out;
}

/**
 * SUMIF, COUNTIF, AVERAGEIF and their *IFS forms: the cells where every
 * criterion holds (a number or text for equality, or `<`, `<=`, `>`, `>=`,
 * `<>`, `=` before one), of ranges of one shape. Text criteria that could be
 * wildcard patterns or regular expressions (which a file's settings turn
 * on) are unsupported.
 */
export function conditional(a: Args, kind: 'sum' | 'count' | 'average', tests: [number, number][], target: number | undefined): Value {
  const grids = tests.map(([range]) => a.grid(range));
  const criteria = tests.map(([, c]) => criterion(a.scalar(c)));
  const values = target === undefined ? undefined : a.grid(target);
  const [first] = grids;
  const sameShape = (g: Value[][]) => g.length === first!.length && g[0]!.length === first![0]!.length;
  if (!first || !grids.every(sameShape)) return new FormulaError('#VALUE!');
  // SUMIF and AVERAGEIF with a sum range of another shape take the range's shape from its corner; not done here.
  if (values && !sameShape(values)) throw new Unsupported('sum range of another shape');
  for (const c of criteria) if (c instanceof FormulaError) return c;
  const picked: number[] = [];
  let count = 0;
  for (let r = 0; r < first.length; r++) {
    for (let c = 0; c < first[0]!.length; c++) {
      if (!criteria.every((test, i) => (test as (v: Value) => boolean)(grids[i]![r]![c]!))) continue;
      count += 1;
      const v = values?.[r]![c]!;
      if (v instanceof FormulaError) return v;
      if (typeof v === 'number') picked.push(v);
    }
  }
  if (kind === 'count') return count;
  if (kind === 'sum') return finite(sum(picked));
  return picked.length ? finite(sum(picked) / picked.length) : new FormulaError('#DIV/0!');
}

function criterion(v: Value): ((cell: Value) => boolean) | FormulaError {
  if (v instanceof FormulaError) return v;
  if (typeof v === 'number' || typeof v === 'boolean') return (cell) => (typeof cell === 'number' || typeof cell === 'boolean') && Number(cell) === Number(v);
  const m = /^(<=|>=|<>|<|>|=)?(.*)$/s.exec(v ?? '')!;
  const op = m[1] ?? '=';
  const operand = m[2]!;
  // Text may be a wildcard pattern or a regular expression, as the file's settings say (ODF's default: regular expressions).
  if (Number.isNaN(Number(operand)) && /[*?~.[\]()+^$|\\{}]/.test(operand)) throw new Unsupported('pattern criterion');
  const n = operand.trim() === '' ? NaN : Number(operand);
  if (!Number.isNaN(n)) {
    return (cell) => {
      if (typeof cell !== 'number') return op === '<>';
      return op === '=' ? cell === n : op === '<>' ? cell !== n : op === '<' ? cell < n : op === '<=' ? cell <= n : op === '>' ? cell > n : cell >= n;
    };
  }
  const text = operand.toLowerCase();
  if (op === '=') return (cell) => (text === '' ? cell === null || cell === '' : typeof cell === 'string' && cell.toLowerCase() === text);
  if (op === '<>') return (cell) => (text === '' ? !(cell === null || cell === '') : !(typeof cell === 'string' && cell.toLowerCase() === text));
  return (cell) => {
    if (typeof cell !== 'string') return false;
    const t = cell.toLowerCase();
    return op === '<' ? t < text : op === '<=' ? t <= text : op === '>' ? t > text : t >= text;
  };
}
