import { escapeLineStart, escapeText } from '../common/escape-markdown.js';
import type { ChartText } from './chart-text.js';

/**
 * The one way a chart's words are written, whichever format drew the chart
 * (DrawingML in XLSX and PPTX, read by `chartText`; OpenDocument in ODS and
 * ODT, read by `odfChartText`): its title as a paragraph, then its other
 * labels (axis titles, series names, data labels) as the items of one list.
 * Its values are never written: they are the sheet's cells or the slide's table.
 */

/** One block of a chart's words: the title paragraph or a list item. */
export type ChartBlock = { kind: 'para'; text: string } | { kind: 'item'; text: string };

/** A chart's words as blocks, in the order they are written. */
export function chartBlocks(chart: ChartText): ChartBlock[] {
  return [...(chart.title ? [{ kind: 'para' as const, text: chart.title }] : []), ...chart.labels.map((text) => ({ kind: 'item' as const, text }))];
}

/** A chart's words as Markdown, escaped so that none of them reads as markup. */
export function chartMarkdown(chart: ChartText): string {
  const title = chart.title ? escapeLineStart(escapeText(chart.title)) : '';
  const list = chart.labels.map((l) => `- ${escapeLineStart(escapeText(l))}`).join('\n');
  return [title, list].filter(Boolean).join('\n\n');
}

/** A chart's words as the plain text of that Markdown: the title, a blank line, one label a line. */
export function chartPlain(chart: ChartText): string {
  return [chart.title ?? '', chart.labels.join('\n')].filter(Boolean).join('\n\n');
}
