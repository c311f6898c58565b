import { describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { buildOds, odsCell as cell, odsSheet } from '../fixtures/ods.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['ods'] as const };

/** Every table row of a section's GFM table, as its cells. */
function tableRows(markdown: string, sheet: string): string[][] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith(`${sheet}\n`)) ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('|') && !/^\|(?:\s*-+\s*\|)+$/.test(l));
  // A table without a header row gets an empty one.
  return lines.map((l) => l.slice(1, -1).split(' | ').map((c) => c.trim())).filter((r) => r.some((c) => c !== ''));
}

const column = (markdown: string, sheet: string) => tableRows(markdown, sheet).map((r) => r[0] ?? '');

// Number styles: two decimals, a percentage with one, scientific with two, and a cell style without a number format.
const STYLES = '<number:number-style style:name="N2"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1"/></number:number-style>'
  + '<number:percentage-style style:name="N3"><number:number number:decimal-places="1" number:min-decimal-places="1" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>'
  + '<number:number-style style:name="N4"><number:scientific-number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:min-exponent-digits="2"/></number:number-style>'
  + '<style:style style:name="ce1" style:family="table-cell" style:data-style-name="N2"/><style:style style:name="ce2" style:family="table-cell" style:data-style-name="N3"/>'
  + '<style:style style:name="ce3" style:family="table-cell" style:data-style-name="N4"/><style:style style:name="ce0" style:family="table-cell"/>';

describe('ODS formulas recalculated as LibreOffice does on opening', () => {
  it('computes the cells LibreOffice computes (errors, missing values, unstyled numbers) and keeps the others', async () => {
    // Each expectation is what LibreOffice 7.4 shows for the same cell after opening the file (CSV export "as shown").
    const rows = [
      [cell('1', { type: 'float', value: 1 })],
      [cell('#NUM!', { formula: '1/0', type: 'error' })], // a stored error: computed again
      [cell('0', { formula: 'ISERROR([.A2])', type: 'float', value: 0 })], // a number without a style: computed for its format
      [cell('10', { formula: '[.A3]+10', type: 'float', value: 10 })],
      [cell('99', { formula: '[.A1]*2', type: 'float', value: 99 })],
      [cell('', { formula: '[.A1]*3' })], // no stored value
      [cell('', { formula: '[.A1]+5', type: 'float', value: 0 })], // a 0 shown as nothing
      [cell('stale', { formula: '"x"&[.A1]', type: 'string' })], // a text result is kept
      [cell('99', { formula: '[.A1]*2', type: 'float', value: 99, style: 'ce0' })], // a style of its own: kept
      [cell('0.00', { formula: '[.A2]', type: 'float', value: 0, style: 'ce1' })], // kept, though it reads an error
      [cell('', { formula: '[.A1]/3', style: 'ce2' })],
      [cell('', { formula: '[.A1]/3', style: 'ce3' })],
      [cell('', { formula: '[.A1]*3', style: 'ce1' })],
      [cell('99', { formula: '[.A1]/3', type: 'float', value: 99 })],
      [cell('99', { formula: '[.A1]*1234567.5', type: 'float', value: 99 })],
      [cell('5', { formula: '0.3-0.2-0.1', type: 'float', value: 5 })],
    ];
    const r = await extractText(buildOds(odsSheet('S', rows), { automaticStyles: STYLES }), OPTS);
    expect(column(r.markdown, 'S')).toEqual(['1', '#DIV/0!', 'TRUE', '11', '2', '3', '6', 'stale', '99', '0.00', '33.3%', '3.33E-01', '3.00', '0.333333333333333', '1234567.5', '0']);
  });

  it('reads other sheets, ranges, text and logic functions, and writes numbers with the file\'s decimal comma', async () => {
    const data = odsSheet('My data', [
      [cell('Ada', { type: 'string' }), cell('2,5', { type: 'float', value: 2.5 })],
      [cell('Bob', { type: 'string' }), cell('4', { type: 'float', value: 4 })],
    ]);
    const formulas = [
      'SUM([\'My data\'.B1:.B2])', 'UPPER(LEFT([\'My data\'.A1];2))&LEN([$\'My data\'.A2])', 'ROUND(2.675;2)', 'AVERAGE([\'My data\'.$B$1:.$B$2])',
      'COUNTA([\'My data\'.A1:.B9])', 'MOD(-7;3)', 'AND([\'My data\'.B1]>1;NOT([\'My data\'.B2]<1))', 'TRIM("  a   b ")&"."',
      'IF([\'My data\'.B2]>3;"big";"small")', 'MID("spreadsheet";7;5)', 'CONCATENATE("n=";[\'My data\'.B1])', 'MAX([\'My data\'.B1:.B2];7)+MIN(3;[\'My data\'.B2])',
      'ERROR.TYPE([.A14])', '1/0', 'IFERROR(1/0;"none")', '"a"<"B"', '-2^2',
      'SUMIF([\'My data\'.B1:.B2];">3")', 'COUNTIF([\'My data\'.A1:.A2];"ada")', 'SUMIFS([\'My data\'.B1:.B2];[\'My data\'.A1:.A2];"Bob";[\'My data\'.B1:.B2];"<>2.5")',
      'SUMPRODUCT([\'My data\'.B1:.B2];[\'My data\'.B1:.B2])',
    ];
    const kept = cell('wildcards kept', { formula: 'COUNTIF([\'My data\'.A1:.A2];"A*")' });
    const r = await extractText(buildOds(data + odsSheet('Calc', [...formulas.map((f) => [cell('', { formula: f })]), [kept]])), OPTS);
    expect(column(r.markdown, 'Calc')).toEqual(['6,5', 'AD3', '2,68', '3,25', '4', '2', 'TRUE', 'a b.', 'big', 'sheet', 'n=2,5', '10', '2', '#DIV/0!', 'none', 'TRUE', '4', '4', '1', '4', '22,25', 'wildcards kept']);
  });

  it('agrees with LibreOffice on every formula of a set it was checked against', async () => {
    // What LibreOffice 7.4 shows for each formula (a file of these, without stored results, converted with
    // `soffice --convert-to csv`, cell contents as shown): booleans are numbers, SUM refuses text given
    // directly, the general format's thresholds, ß upper-cased to ẞ, text compared with case (ODF's default).
    const expected: [string, string][] = [
    ['SUM([Data.B1:.C4])', '2.6000001'], ['AVERAGE([Data.B1:.B4])', '-0.349999975'], ['MIN([Data.A1:.C4])', '-4'], ['MAX([Data.B1:.B4])', '2.5'],
    ['COUNT([Data.A1:.C4])', '6'], ['COUNTA([Data.A1:.C4])', '11'], ['COUNT(1;"2";TRUE();"x")', '3'], ['SUM(1;"2";TRUE())', '#VALUE!'],
    ['[Data.B1]+[Data.C1]', '3.5'], ['[Data.C2]*2', '24'], ['[Data.A3]+1', '1'], ['[Data.A3]&"!"', '!'], ['[Data.B3]*3-0.3', '0'],
    ['1/3', '0.333333333333333'], ['2/3*3', '2'], ['10^15', '1000000000000000'], ['10^16', '1E+016'], ['123456789012345678', '1.23456789012346E+017'],
    ['0.00001', '0.00001'], ['0.000012345', '0.000012345'], ['-0.1+0.3', '0.2'], ['1E-5', '0.00001'], ['1E-6*3', '0.000003'], ['ROUND(-2.5;0)', '-3'],
    ['ROUND(1234.5678;-2)', '1200'], ['ROUNDUP(-1.21;1)', '-1.3'], ['ROUNDDOWN(1.99;0)', '1'], ['INT(-1.5)', '-2'], ['TRUNC(-1.5)', '-1'],
    ['MOD(7;-3)', '-2'], ['MOD(-7.5;2)', '0.5'], ['ABS(-3)', '3'], ['SIGN(-2)', '-1'], ['LEN("héllo")', '5'], ['LEFT("abc")', 'a'],
    ['RIGHT("abc";5)', 'abc'], ['MID("abc";2;9)', 'bc'], ['UPPER("ß")', 'ẞ'], ['LOWER("ÀB")', 'àb'], ['TRIM("  a  b  ")', 'a b'],
    ['CONCATENATE(1.5;"x";TRUE())', '1.5x1'], ['1.5&"x"&TRUE()', '1.5x1'], ['IF(0;"a")', 'FALSE'], ['IF(1;"a")', 'a'], ['IF("";1;2)', '#VALUE!'],
    ['AND(1;0)', 'FALSE'], ['OR([Data.A1:.A2])', '#VALUE!'], ['NOT(0)', 'TRUE'], ['XOR(1;1;1)', 'TRUE'], ['"abc"="ABC"', 'FALSE'], ['"a"<1', 'FALSE'],
    ['1<"a"', 'TRUE'], ['TRUE()+1', '2'], ['[Data.A3]=0', 'TRUE'], ['[Data.A3]=""', 'TRUE'], ['IFERROR([Data.A1]*1;"bad")', 'bad'],
    ['ISNUMBER([Data.C2])', 'FALSE'], ['ISTEXT([Data.C2])', 'TRUE'], ['ISBLANK([Data.A3])', 'TRUE'], ['ERROR.TYPE(NA())', '7'],
    ['VALUE("1e3")', '1000'], ['EXACT("a";"A")', 'FALSE'], ['SUMIF([Data.A1:.A4];"ada";[Data.B1:.B4])', '2.5000001'],
    ['COUNTIF([Data.B1:.B4];"<0")', '1'], ['COUNTIF([Data.A1:.A4];"")', '1'], ['AVERAGEIF([Data.B1:.B4];">0")', '0.8666667'],
    ['SUMPRODUCT([Data.B1:.B2];[Data.C1:.C2])', '2.5'], ['POWER(2;0.5)', '1.4142135623731'], ['SQRT(-1)', 'Err:502'], ['LN(0)', 'Err:502'],
    ['EXP(710)', '#NUM!'], ['PI()*2', '6.28318530717959'], ['SIN(1)', '0.841470984807897'], ['LOG10(1000)', '3'], ['2^-1', '0.5'], ['-2^2', '4'],
    ['5%', '5.00%'], ['50%*2', '1'], ['(1+2)*3', '9'], ['"x"&1/4', 'x0.25'], ['[Data.B1]/0', '#DIV/0!'], ['MAX()', 'Err:511'],
    ['AVERAGE([Data.A1:.A2])', '#DIV/0!'], ['9.99*10^15', '9.99E+015'], ['10^16', '1E+016'], ['1.5*10^-5', '0.000015'], ['10^-5', '0.00001'],
    ['3*10^-6', '0.000003'], ['10^-7', '0.0000001'], ['1.5*10^-8', '0.000000015'], ['10^-9', '0.000000001'], ['1.23*10^-10', '1.23E-10'],
    ['0.000123456789012345', '0.000123456789012345'], ['123456789012345.6', '123456789012346'], ['1234567890123456', '1234567890123456'],
    ['-10^-7', '-0.0000001'], ['2^0.5*10^-6', '1.4142135623731E-06'], ['10^-4*1.234567', '0.0001234567'], ['10^-300', '1E-300'],
    ];
    const data = odsSheet('Data', [
      [cell('Ada', { type: 'string' }), cell('2.5', { type: 'float', value: 2.5 }), cell('TRUE', { type: 'boolean', value: 'true' })],
      [cell('bob', { type: 'string' }), cell('-4', { type: 'float', value: -4 }), cell('12', { type: 'string' })],
      [cell('', {}), cell('0.1', { type: 'float', value: 0.1 }), cell('x y', { type: 'string' })],
      [cell('Ada', { type: 'string' }), cell('1E-7', { type: 'float', value: 1e-7 }), cell('3', { type: 'float', value: 3 })],
    ]);
    const r = await extractText(buildOds(data + odsSheet('Calc', expected.map(([f]) => [cell('', { formula: f })]))), OPTS);
    const shown = tableRows(r.markdown, 'Calc').map((row) => row[0]!.replace(/\\(.)/g, '$1'));
    expect(expected.map(([f], i) => [f, shown[i]])).toEqual(expected);
  });

  it('writes recalculated results in their number styles as LibreOffice shows them: grouping, currency, conditions, literal text', async () => {
    const styles = '<number:number-style style:name="N5"><number:number number:decimal-places="0" number:min-integer-digits="1" number:grouping="true"/></number:number-style>'
      + '<number:currency-style style:name="N6P0"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><number:text> </number:text><number:currency-symbol>€</number:currency-symbol></number:currency-style>'
      + '<number:currency-style style:name="N6"><number:text>-</number:text><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><number:text> </number:text><number:currency-symbol>€</number:currency-symbol><style:map style:condition="value()&gt;=0" style:apply-style-name="N6P0"/></number:currency-style>'
      + '<number:percentage-style style:name="N7"><number:number number:decimal-places="0" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>'
      + '<number:number-style style:name="N8"><number:number number:decimal-places="3" number:min-decimal-places="1" number:min-integer-digits="0"/></number:number-style>'
      + '<number:number-style style:name="N9"><number:text>n = </number:text><number:number number:decimal-places="1" number:min-decimal-places="1" number:min-integer-digits="1"/><number:text> kg</number:text></number:number-style>'
      + ['N5', 'N6', 'N7', 'N8', 'N9'].map((n, i) => `<style:style style:name="c${i}" style:family="table-cell" style:data-style-name="${n}"/>`).join('');
    // Formula, cell style, and what LibreOffice 7.4 shows for a cell with no stored result.
    const expected: [string, string, string][] = [
      ['1234567.4', 'c0', '1,234,567'], ['-1234.5', 'c0', '-1,235'], ['1234.567', 'c1', '1,234.57 €'], ['-1234.567', 'c1', '-1,234.57 €'],
      ['0.256', 'c2', '26%'], ['-0.005', 'c2', '-1%'], ['0.5', 'c3', '.5'], ['0.12345', 'c3', '.123'], ['2', 'c3', '2.0'],
      ['-3.25', 'c4', '-n = 3.3 kg'], ['1/0', 'c1', '#DIV/0!'],
    ];
    const r = await extractText(buildOds(odsSheet('S', expected.map(([f, style]) => [cell('', { formula: f, style })])), { automaticStyles: styles }), OPTS);
    expect(column(r.markdown, 'S')).toEqual(expected.map(([, , shown]) => shown));
  });

  it('keeps the stored text of formulas it cannot compute: unknown functions, named ranges, cycles', async () => {
    const rows = [
      [cell('kept 1', { formula: 'VLOOKUP(1;[.B1:.C2];2;0)' })],
      [cell('kept 2', { formula: 'SUM(Prices)' })],
      [cell('5', { formula: '[.A4]+1', type: 'float', value: 5 })],
      [cell('6', { formula: '[.A3]+1', type: 'float', value: 6 })],
      [cell('kept 3', { formula: 'SUM([.B1:.B2])+[Nowhere.A1]' })],
    ];
    const r = await extractText(buildOds(odsSheet('S', rows)), OPTS);
    expect(column(r.markdown, 'S')).toEqual(['kept 1', 'kept 2', '5', '6', '#REF!']);
  });

  it('stays bounded on deep, long, cyclic and self-doubling formulas', async () => {
    const n = 3000;
    // A chain pointing down the sheet: each cell needs the next one first, deeper than the recursion bound.
    const down = Array.from({ length: n }, (_, i) => [i === n - 1 ? cell('1', { type: 'float', value: 1 }) : cell('0', { formula: `[.A${i + 2}]+1`, type: 'float', value: 0 })]);
    // A chain pointing up, as running totals do: computed in order, each from the one before.
    const up = Array.from({ length: n }, (_, i) => [i === 0 ? cell('1', { type: 'float', value: 1 }) : cell('0', { formula: `[.A${i}]+1`, type: 'float', value: 0 })]);
    const doubling = [[cell('xxxxxxxxxx', { type: 'string' })], ...Array.from({ length: 40 }, (_, i) => [cell('', { formula: `[.A${i + 1}]&[.A${i + 1}]` })])];
    const other = [
      [cell('long', { formula: Array.from({ length: 400 }, () => '1').join('+') })],
      [cell('nested', { formula: `${'('.repeat(100)}1${')'.repeat(100)}` })],
      [cell('big', { formula: 'SUMPRODUCT([.A1:.Z1048576])' })],
      [cell('', { formula: 'SUM([.B1:.B1048576])' }), cell('2', { type: 'float', value: 2 })],
    ];
    const started = process.hrtime.bigint();
    const r = await extractText(buildOds(odsSheet('Down', down) + odsSheet('Up', up) + odsSheet('Doubling', doubling) + odsSheet('Other', other)), OPTS);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // About a second on the shared 2-core machine; unbounded, the doubling alone would build text of gigabytes.
    expect(seconds).toBeLessThan(15);
    expect(column(r.markdown, 'Up').slice(-2)).toEqual([String(n - 1), String(n)]);
    // Deeper than the recursion bound: computed a stretch at a time from its far end.
    expect(column(r.markdown, 'Down')[0]).toBe(String(n));
    const doubled = column(r.markdown, 'Doubling');
    expect(doubled[3]).toBe('x'.repeat(80));
    expect(Math.max(...doubled.map((c) => c.length))).toBeLessThanOrEqual(32_767);
    expect(column(r.markdown, 'Other')).toEqual(['long', 'nested', 'big', '2']);
  });
});
