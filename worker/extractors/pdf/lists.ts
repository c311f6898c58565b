import type { PdfLine } from './lines.js';

/**
 * Bulleted and numbered paragraphs as Markdown list items, nested by how far
 * their first line is indented among the page's list items.
 */

const BULLET = /^[•◦▪‣∙●○■□►▸–]\s+(?=\S)/u;
const NUMBERED = /^(\d{1,3})[.)]\s+(?=\S)/u;
// Items whose markers start within this many em of each other are of one level.
const LEVEL_EM = 1;
// Each level is indented this much: enough to sit inside a "- " or "10. " item, never a code block.
const INDENT = '    ';

/** Whether a paragraph starts with a bullet or a number and a dot or parenthesis. */
export const isListItem = (text: string): boolean => BULLET.test(text) || NUMBERED.test(text);

/** The level (0 for the outermost) of each list paragraph of a page, from where its first line starts. */
export function listLevels(paragraphs: PdfLine[][]): Map<PdfLine[], number> {
  const items = paragraphs.filter((p) => isListItem(p[0]!.text));
  const starts: number[] = [];
  for (const x of items.map((p) => p[0]!.x0).sort((a, b) => a - b)) {
    if (starts.length === 0 || x - starts.at(-1)! > LEVEL_EM * items[0]![0]!.size) starts.push(x);
  }
  return new Map(items.map((p) => [p, Math.max(0, starts.findLastIndex((s) => s <= p[0]!.x0 + 0.5))]));
}

/**
 * The paragraph's text as a list item at `level`: its indent, its marker ("-"
 * for a bullet, its own number for a numbered one) and the text after the
 * marker; undefined when the joined text no longer starts like an item (its
 * first line did, but CJK lines join without a space).
 */
export function listItem(text: string, level: number): { indent: string; marker: string; body: string } | undefined {
  const indent = INDENT.repeat(level);
  const bullet = BULLET.exec(text);
  if (bullet) return { indent, marker: '-', body: text.slice(bullet[0].length) };
  const numbered = NUMBERED.exec(text);
  return numbered ? { indent, marker: `${numbered[1]}.`, body: text.slice(numbered[0].length) } : undefined;
}
