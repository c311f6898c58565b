import type { OfficePackage } from './office-package.js';

/** The words a DrawingML chart shows besides its data. */
export interface ChartText {
  /** The chart's title. */
  title: string | undefined;
  /** Its axes' titles, then its series' names, each in document order, without repeats or the title again. */
  labels: string[];
}

const AXES = new Set(['valAx', 'catAx', 'dateAx', 'serAx']);

/**
 * Reads a chart part (`c:chartSpace`, in XLSX and PPTX alike): the chart's
 * title, each axis's title and each series' name, from rich text (`a:t`) or
 * from the cached text of a cell reference (`c:strCache`). Data values and
 * categories are left out: they are the sheet's cells or the slide's table,
 * and a chart would otherwise repeat every one of them. Undefined when the
 * part is missing or has none of these.
 */
export function chartText(pkg: OfficePackage, part: string): ChartText | undefined {
  const scan = pkg.has(part) ? pkg.scan(part) : undefined;
  if (!scan) return undefined;
  const stack: string[] = [];
  let title: string | undefined;
  const axes: string[] = [];
  const series: string[] = [];
  // The title or series name being read, and the depth of its element.
  let current: { into: 'title' | 'axis' | 'series'; depth: number; text: string } | undefined;
  while (scan.next()) {
    if (scan.closing) {
      stack.pop();
      if (current && stack.length < current.depth) {
        const text = current.text.replace(/\s+/g, ' ').trim();
        if (text && current.into === 'title') title ??= text;
        else if (text) (current.into === 'axis' ? axes : series).push(text);
        current = undefined;
      }
      continue;
    }
    if (scan.empty) continue;
    const parent = stack[stack.length - 1] ?? '';
    stack.push(scan.name);
    if (current === undefined && scan.name === 'title' && (parent === 'chart' || AXES.has(parent))) {
      current = { into: parent === 'chart' ? 'title' : 'axis', depth: stack.length, text: '' };
    } else if (current === undefined && scan.name === 'tx' && parent === 'ser') {
      current = { into: 'series', depth: stack.length, text: '' };
    } else if (current && (scan.name === 't' || scan.name === 'v')) {
      // Runs of one paragraph join as they are; paragraphs and cached cells stay apart.
      current.text += scan.name === 'v' ? ` ${scan.text()}` : scan.text();
    } else if (current && scan.name === 'p') {
      current.text += ' ';
    }
  }
  const labels = [...new Set([...axes, ...series])].filter((l) => l !== title);
  return title || labels.length > 0 ? { title, labels } : undefined;
}
