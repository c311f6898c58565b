import type { ChartText } from './chart-text.js';
import type { OfficePackage } from './office-package.js';

/**
 * The words an OpenDocument chart object shows besides its data, as
 * {@link ChartText} gives them for DrawingML: the title, then the subtitle,
 * the axes' titles, the series' names and any data label written by hand.
 * `href` is the `draw:object`'s link (`./Object 1`); the object's
 * `content.xml` must hold a `chart:chart`. Series names come from the cell
 * each series names as its label: in the chart's own data table
 * (`local-table`, as ODT charts keep it), or, for a cell of the
 * spreadsheet, from that table's header row, where LibreOffice caches the
 * series' labels in series order. Undefined for another kind of object
 * (a formula, an embedded sheet) or a chart with none of these words.
 */
export function odfChartText(pkg: OfficePackage, href: string | undefined): ChartText | undefined {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const part = `${href.replace(/^\.\//, '').replace(/\/$/, '')}/content.xml`;
  // A formula or an embedded sheet is an object too; only a chart is read here.
  const xml = pkg.has(part) ? pkg.text(part) : undefined;
  const scan = xml && /<(?:[\w-]+:)?chart[\s/>]/.test(xml) ? pkg.scan(part) : undefined;
  if (!scan) return undefined;
  const stack: string[] = [];
  let title: string | undefined;
  const labels: string[] = [];
  const series: (string | undefined)[] = [];
  const localRows: string[][] = [];
  let inLocal = 0;
  // The element whose text is being read, and the depth it was opened at.
  let current: { into: 'title' | 'label' | 'cell'; depth: number; text: string } | undefined;
  while (scan.next()) {
    if (scan.closing) {
      stack.pop();
      if (current && stack.length < current.depth) {
        const text = current.text.replace(/\s+/g, ' ').trim();
        if (current.into === 'cell') localRows[localRows.length - 1]?.push(text);
        else if (text && current.into === 'title') title ??= text;
        else if (text) labels.push(text);
        current = undefined;
      }
      if (inLocal > stack.length) inLocal = 0;
      if (current) current.text += scan.text();
      continue;
    }
    const parent = stack[stack.length - 1] ?? '';
    const name = scan.name;
    if (name === 'series' && parent === 'plot-area') series.push(scan.attrs(['label-cell-address'])['label-cell-address']);
    if (name === 'table' && scan.attrs(['name']).name === 'local-table') inLocal = stack.length + 1;
    if (scan.empty) {
      if (inLocal && current === undefined && name === 'table-cell') localRows[localRows.length - 1]?.push('');
      // A space, tab or line break inside the text read, and the text after it.
      if (current) current.text += ` ${scan.text()}`;
      continue;
    }
    stack.push(name);
    if (current === undefined) {
      if ((name === 'title' || name === 'subtitle') && parent === 'chart') current = { into: name === 'title' ? 'title' : 'label', depth: stack.length, text: '' };
      else if ((name === 'title' && parent === 'axis') || name === 'data-label') current = { into: 'label', depth: stack.length, text: '' };
      else if (inLocal && name === 'table-row') localRows.push([]);
      else if (inLocal && name === 'table-cell') current = { into: 'cell', depth: stack.length, text: '' };
    } else if (name === 'p' && current.text !== '') current.text += ' ';
    if (current) current.text += scan.text();
  }
  series.forEach((address, i) => {
    const name = seriesName(address, i, localRows);
    if (name) labels.push(name);
  });
  const unique = [...new Set(labels)].filter((l) => l !== title);
  return title || unique.length > 0 ? { title, labels: unique } : undefined;
}

/** The text of a series' label cell (`local-table.$B$1`), or the header row's entry for it when the cell is the spreadsheet's. */
function seriesName(address: string | undefined, index: number, localRows: readonly string[][]): string | undefined {
  const m = address ? /^\$?'?(.*?)'?\.\$?([A-Z]{1,3})\$?(\d+)/i.exec(address) : null;
  if (m && m[1] === 'local-table') {
    let col = 0;
    for (const ch of m[2]!.toUpperCase()) col = col * 26 + ch.charCodeAt(0) - 64;
    return localRows[Number(m[3]) - 1]?.[col - 1] || undefined;
  }
  return address ? localRows[0]?.[index + 1] || undefined : undefined;
}
