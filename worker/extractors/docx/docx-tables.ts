import type { AnyNode, Element } from 'domhandler';
import { tableRows } from '../html/markdown-blocks.js';
import { nodesToMarkdownAndText, type MarkdownOptions } from '../html/to-markdown.js';

/** Markdown and plain text side by side. */
export interface Rendered { markdown: string; text: string }

// Word allows 63 columns; a wider grid is a hostile gridSpan, not a table.
const MAX_COLUMNS = 64;
/** Past this many characters a cell is a page region of a layout table (a chunk holds about as much). */
export const MAX_CELL = 2000;
// Tables nested deeper than this are read by the HTML walk as it reads any table.
const MAX_NESTING = 8;

const isTable = (node: AnyNode): node is Element => node.type === 'tag' && (node as Element).name === 'table';

/**
 * Converts mammoth's HTML of a Word body to Markdown and text, writing its
 * tables the way pandoc and GitHub do, not as the HTML walk reads web pages
 * (where a cell holding a heading or a table, or a single column, makes a
 * layout table read as its blocks): every Word table is data, one GFM row
 * per table row, whatever its cells hold (see {@link docxTable}), except a
 * table of one cell, a frame whose content is read as blocks.
 */
export function docxMarkdown(nodes: readonly AnyNode[], opts: MarkdownOptions): Rendered {
  const parts: Rendered[] = [];
  let run: AnyNode[] = [];
  const flush = (): void => {
    if (run.length) parts.push(nodesToMarkdownAndText(run, opts));
    run = [];
  };
  for (const node of nodes) {
    if (!isTable(node)) {
      run.push(node);
      continue;
    }
    flush();
    const rows = tableRows(node);
    // One cell around the content is a frame (a letterhead, a boxed section); a cell as long as a page
    // lays out the page (an article beside a margin column). Their cells are read as blocks.
    const table = rows.length === 1 && rows[0]!.length === 1 ? undefined : docxTable(node, opts);
    if (table) parts.push(table);
    else for (const cell of rows.flat()) parts.push(docxMarkdown((cell.children ?? []) as AnyNode[], opts));
  }
  flush();
  const join = (key: keyof Rendered) => parts.map((p) => p[key]).filter((s) => s !== '').join('\n\n');
  return { markdown: join('markdown'), text: join('text') };
}

/**
 * One Word table as a GFM table: the first row as the header, a cell's
 * paragraphs, list items and headings joined by `<br>` (by a space in the
 * text), a table nested in a cell flattened into it one row a line, and
 * merged cells (`gridSpan` and `vMerge`, which mammoth writes as `colspan`
 * and `rowspan`) holding their value in their first column and row, the
 * slots they cover empty, so every row has the table's column count.
 * Empty rows stay (they are rows of the document); a table with no text at
 * all gives nothing. Undefined for a table with a cell longer than
 * {@link MAX_CELL}: a page laid out in a table, not a value in a row.
 */
export function docxTable(table: Element, opts: MarkdownOptions): Rendered | undefined {
  const rows = tableRows(table);
  const values = rows.map((row) => row.map((cell) => cellLines(cell, opts, 0)));
  if (values.some((row) => row.some((c) => c.text.reduce((n, l) => n + l.length + 1, 0) > MAX_CELL))) return undefined;
  const layout = gridOf(rows);
  if (layout.width === 0 || values.every((row) => row.every((c) => c.text.length === 0))) return { markdown: '', text: '' };
  const md = layout.at.map((row, r) => row.map((i) => (i >= 0 ? values[r]![i]!.md.join('<br>').replace(/\|/g, '\\|') : '')));
  const text = layout.at.map((row, r) => row.map((i) => (i >= 0 ? values[r]![i]!.text.join(' ') : '')));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const [head, ...body] = md;
  return {
    markdown: [line(head!), `|${' --- |'.repeat(layout.width)}`, ...body.map(line)].join('\n'),
    text: text.map((row) => row.join('\t').replace(/\t+$/, '')).join('\n'),
  };
}

interface Lines { md: string[]; text: string[] }

/** A cell's content as lines: its blocks' lines, a nested table's rows one a line (their cells side by side). */
function cellLines(cell: Element, opts: MarkdownOptions, depth: number): Lines {
  const out: Lines = { md: [], text: [] };
  let run: AnyNode[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    const { markdown, text } = nodesToMarkdownAndText(run, opts);
    out.md.push(...lines(markdown));
    out.text.push(...lines(text));
    run = [];
  };
  for (const node of (cell.children ?? []) as AnyNode[]) {
    if (node.type === 'tag' && /^h[1-6]$/.test((node as Element).name)) {
      // A heading style inside a cell is the cell's text, not a section of the document.
      (node as Element).name = 'p';
    }
    if (!isTable(node) || depth >= MAX_NESTING) {
      run.push(node);
      continue;
    }
    flush();
    for (const row of tableRows(node)) {
      const cells = row.map((c) => cellLines(c, opts, depth + 1));
      const md = cells.map((c) => c.md.join(' ')).filter(Boolean).join(' ');
      const text = cells.map((c) => c.text.join(' ')).filter(Boolean).join(' ');
      if (text !== '' || md !== '') {
        out.md.push(md);
        out.text.push(text);
      }
    }
  }
  flush();
  return out;
}

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean);

const span = (cell: Element, attr: 'colspan' | 'rowspan', limit: number) => Math.max(1, Math.min(limit, Math.floor(Number(cell.attribs[attr] ?? 1)) || 1));

/**
 * Lays the cells out on the table's grid: for each row and column, the
 * index of the cell whose value goes there (its first slot) or -1 for a
 * slot a merged cell covers or no cell fills.
 */
function gridOf(rows: Element[][]): { width: number; at: number[][] } {
  const taken: boolean[][] = rows.map(() => []);
  const at: number[][] = rows.map(() => []);
  rows.forEach((row, r) => {
    let col = 0;
    row.forEach((cell, i) => {
      while (col < MAX_COLUMNS && taken[r]![col]) col++;
      if (col >= MAX_COLUMNS) return;
      at[r]![col] = i;
      const colspan = span(cell, 'colspan', MAX_COLUMNS - col);
      const rowspan = span(cell, 'rowspan', rows.length - r);
      for (let dr = 0; dr < rowspan; dr++) for (let dc = 0; dc < colspan; dc++) taken[r + dr]![col + dc] = true;
      col += colspan;
    });
  });
  const width = taken.reduce((w, t) => Math.max(w, t.length), 0);
  return { width, at: at.map((row) => Array.from({ length: width }, (_, c) => row[c] ?? -1)) };
}
