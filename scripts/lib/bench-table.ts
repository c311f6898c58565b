/** One line of the bench's table. */
export interface Row {
  measurement: string;
  result: string;
  reference: string;
  referenceResult: string;
  /** A bare ratio, or a paired one already formatted with its spread. */
  ratio: number | string | undefined;
  target: string;
}

export const fmt = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Prints the rows as one Markdown table on stdout. */
export function printTable(rows: Row[]): void {
  console.log('| measurement | result | reference | reference result | ratio | target |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : typeof r.ratio === 'number' ? fmt(r.ratio) : r.ratio;
    console.log(`| ${r.measurement} | ${r.result} | ${r.reference} | ${r.referenceResult} | ${ratio} | ${r.target} |`);
  }
}
