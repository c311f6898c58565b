import type { OrderedNode } from '../office/office-package.js';
import { attrOf, childrenOf, tagOf, textIn } from '../office/ordered-xml.js';
import { toFixedHalfUp } from '../xlsx/cell-format.js';
import { FormulaError, generalNumber, type Value } from './formula-eval.js';

/** One part of a number style, in order: literal text, the number itself, or the value as text. */
type Part =
  | { k: 'text'; text: string }
  | { k: 'number'; decimals: number | undefined; minDecimals: number; minInt: number; grouping: boolean; exponent?: number }
  | { k: 'value' };

interface DataStyle {
  kind: 'number' | 'percentage' | 'currency' | 'boolean' | 'text';
  parts: Part[];
  /** `style:map`: another style for values meeting a condition (`value()<0`). */
  maps: { test: (n: number) => boolean; style: string }[];
}

/**
 * The number styles of an ODS (`number:number-style` and its kin in
 * `content.xml` and `styles.xml`) and the cell styles pointing at them,
 * enough to write a recalculated value as the cell would show it. Date,
 * time and fraction styles are not read: a value under one of them is
 * {@link unsupportedStyle} and keeps the text the file stores.
 */
export class NumberStyles {
  private readonly cellStyles = new Map<string, { data?: string; parent?: string }>();
  private readonly dataStyles = new Map<string, DataStyle | 'other'>();

  /** `roots`: the `office:automatic-styles` and `office:styles` elements of both parts. */
  constructor(roots: readonly OrderedNode[], private readonly decimal: string) {
    this.dataStyles.set(PERCENT, { kind: 'percentage', parts: [{ k: 'number', decimals: 2, minDecimals: 2, minInt: 1, grouping: false }, { k: 'text', text: '%' }], maps: [] });
    for (const root of roots) {
      for (const node of childrenOf(root)) {
        const tag = tagOf(node);
        const name = attrOf(node, 'name');
        if (!name) continue;
        if (tag === 'style' && attrOf(node, 'family') === 'table-cell') this.cellStyles.set(name, { data: attrOf(node, 'data-style-name'), parent: attrOf(node, 'parent-style-name') });
        else if (tag && DATA_KINDS.has(tag)) this.dataStyles.set(name, readDataStyle(node, tag));
        else if (tag?.endsWith('-style')) this.dataStyles.set(name, 'other');
      }
    }
  }

  /** The data style of a cell style (following parents), undefined for the general format. */
  dataStyleOf(cellStyle: string | undefined): string | undefined {
    for (let name = cellStyle, hops = 0; name && hops < 8; hops++) {
      const style = this.cellStyles.get(name);
      if (!style) return undefined;
      if (style.data) return style.data;
      name = style.parent;
    }
    return undefined;
  }

  /** Whether values under this data style can be written here (not a date, time or fraction style). */
  supported(dataStyle: string | undefined): boolean {
    return dataStyle === undefined || !this.dataStyles.has(dataStyle) || this.dataStyles.get(dataStyle) !== 'other';
  }

  /** A value as a cell with this data style (undefined: general) shows it. */
  format(value: Value, dataStyle: string | undefined): string {
    if (value instanceof FormulaError) return value.code;
    if (value === null) return '';
    let style = dataStyle ? this.dataStyles.get(dataStyle) : undefined;
    if (style === 'other') style = undefined;
    if (typeof value === 'number' && style) {
      const mapped = style.maps.find((m) => m.test(value));
      const target = mapped ? this.dataStyles.get(mapped.style) : undefined;
      if (target && target !== 'other') return this.write(value, target, true);
      return this.write(value, style, false);
    }
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    if (typeof value === 'string') return style?.parts.some((p) => p.k === 'value') ? style.parts.map((p) => (p.k === 'text' ? p.text : p.k === 'value' ? value : '')).join('') : value;
    return generalNumber(value, this.decimal);
  }

  /**
   * `mapped`: the style was chosen by a condition. A style chosen by one, or
   * one with conditions (the last section of a format code), writes the sign
   * itself, as text or not at all; any other puts `-` before everything, its
   * literal text included (`-n = 3.3 kg`), as LibreOffice does.
   */
  private write(n: number, style: DataStyle, mapped: boolean): string {
    if (style.kind === 'boolean') return n !== 0 ? 'TRUE' : 'FALSE';
    const scaled = style.kind === 'percentage' ? n * 100 : n;
    let out = '';
    for (const part of style.parts) {
      if (part.k === 'text') out += part.text;
      else if (part.k === 'value') out += generalNumber(n, this.decimal);
      else out += this.number(Math.abs(scaled), part);
    }
    const negative = scaled < 0 && !mapped && style.maps.length === 0 && /[1-9]/.test(out);
    return negative ? `-${out}` : out;
  }

  private number(n: number, part: Extract<Part, { k: 'number' }>): string {
    if (part.exponent !== undefined) {
      const [mantissa, exp] = n.toExponential(part.decimals ?? 2).split('e');
      const e = Number(exp);
      return `${mantissa!.replace('.', this.decimal)}E${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(part.exponent, '0')}`;
    }
    if (part.decimals === undefined) return generalNumber(n, this.decimal);
    // Rounded as a spreadsheet rounds (1.005 to 1.01), not on the binary value as toFixed does.
    let [int = '0', frac = ''] = toFixedHalfUp(n, Math.min(part.decimals, 20)).split('.');
    while (frac.length > part.minDecimals && frac.endsWith('0')) frac = frac.slice(0, -1);
    if (int === '0' && part.minInt === 0) int = '';
    int = int.padStart(part.minInt, '0');
    if (part.grouping) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, this.decimal === ',' ? '.' : ',');
    return frac ? `${int}${this.decimal}${frac}` : int;
  }
}

/** The format LibreOffice gives a formula without a style that ends in a percent sign (`=5%`): 0.00%. */
export const PERCENT = '\u0000percent';

const DATA_KINDS = new Map<string, DataStyle['kind']>([['number-style', 'number'], ['percentage-style', 'percentage'], ['currency-style', 'currency'], ['boolean-style', 'boolean'], ['text-style', 'text']]);

/** A style whose parts this formatter cannot write (a fraction) is 'other', as date and time styles are. */
function readDataStyle(node: OrderedNode, tag: string): DataStyle | 'other' {
  const style: DataStyle = { kind: DATA_KINDS.get(tag)!, parts: [], maps: [] };
  for (const child of childrenOf(node)) {
    const name = tagOf(child);
    if (name === 'text' || name === 'currency-symbol') style.parts.push({ k: 'text', text: textIn(childrenOf(child)) });
    else if (name === 'text-content') style.parts.push({ k: 'value' });
    else if (name === 'number' || name === 'scientific-number') {
      const decimals = attrOf(child, 'decimal-places');
      style.parts.push({
        k: 'number',
        decimals: decimals === undefined ? undefined : Number(decimals),
        minDecimals: Number(attrOf(child, 'min-decimal-places') ?? decimals ?? 0),
        minInt: Number(attrOf(child, 'min-integer-digits') ?? 1),
        grouping: attrOf(child, 'grouping') === 'true',
        ...(name === 'scientific-number' ? { exponent: Number(attrOf(child, 'min-exponent-digits') ?? 2) } : {}),
      });
    } else if (name === 'map') {
      const m = /^value\(\)\s*(<=|>=|<>|!=|=|<|>)\s*(-?[\d.]+)$/.exec(attrOf(child, 'condition') ?? '');
      const target = attrOf(child, 'apply-style-name');
      if (m && target) style.maps.push({ test: condition(m[1]!, Number(m[2])), style: target });
    } else if (name === 'fraction') return 'other';
  }
  return style;
}

function condition(op: string, x: number): (n: number) => boolean {
  switch (op) {
    case '<': return (n) => n < x;
    case '<=': return (n) => n <= x;
    case '>': return (n) => n > x;
    case '>=': return (n) => n >= x;
    case '=': return (n) => n === x;
    default: return (n) => n !== x;
  }
}
