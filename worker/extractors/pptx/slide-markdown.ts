import type { OfficePackage, OrderedNode } from '../office/office-package.js';
import { escapeLineStart, escapeText } from '../common/escape-markdown.js';
import { chartBlocks } from '../office/chart-markdown.js';
import { chartText } from '../office/chart-text.js';
import { gfmTable } from '../table/gfm-table.js';
import { attrOf, child, childrenOf, descendants, paragraphText, path, tagOf, textIn } from '../office/ordered-xml.js';

/** One block of a slide's body: a list item with its level (numbered from `start` when auto-numbered), or a paragraph. */
type Block = { kind: 'item'; level: number; text: string; start?: number; newShape?: boolean } | { kind: 'para'; text: string } | { kind: 'table'; text: string };

/** What a slide's shape tree says: its title, and its body in reading order. */
export interface SlideContent {
  title: string | undefined;
  blocks: Block[];
}

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
// Placeholders whose paragraphs are bullets unless they say otherwise (the master's body style).
const BULLETED_TYPES = new Set([undefined, 'body', 'obj']);

/**
 * Reads a slide's shape tree in document order: the title placeholder's
 * text, body paragraphs as list items with their levels (in a bulleted
 * placeholder, or where a paragraph sets a bullet), other text as
 * paragraphs, tables, groups, SmartArt text from the diagram's data part,
 * and a chart's title, axis titles and series names from its chart part.
 */
export function readSlide(pkg: OfficePackage, part: string, tree: OrderedNode[]): SlideContent {
  const rels = pkg.relationships(part);
  const content: SlideContent = { title: undefined, blocks: [] };
  const spTree = path(tree, 'sld', 'cSld', 'spTree') ?? path(tree, 'notes', 'cSld', 'spTree');
  walk(childrenOf(spTree), content, (id) => rels.get(id)?.target, pkg);
  return content;
}

function walk(nodes: OrderedNode[], out: SlideContent, target: (id: string) => string | undefined, pkg: OfficePackage): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === 'sp') shape(node, out);
    else if (tag === 'grpSp') walk(childrenOf(node), out, target, pkg);
    else if (tag === 'graphicFrame') frame(node, out, target, pkg);
    else if (tag === 'AlternateContent') walk(childrenOf(child(childrenOf(node), 'Choice') ?? child(childrenOf(node), 'Fallback')), out, target, pkg);
  }
}

function shape(sp: OrderedNode, out: SlideContent): void {
  const ph = path(childrenOf(sp), 'nvSpPr', 'nvPr', 'ph');
  // The slide number, date and footer placeholders are kept when the slide holds their text: the
  // slide shows it. An empty one shows the layout's, which is not this slide's text and is not read.
  const type = ph ? attrOf(ph, 'type') : undefined;
  const paragraphs = descendants(childrenOf(child(childrenOf(sp), 'txBody')), 'p');
  if (ph && type && TITLE_TYPES.has(type) && out.title === undefined) {
    const title = paragraphs.map(paragraphText).filter(Boolean).join(' ');
    if (title) {
      out.title = title;
      return;
    }
  }
  const bulleted = ph !== undefined && BULLETED_TYPES.has(type);
  // Each shape numbers its own list.
  let newShape = true;
  for (const p of paragraphs) {
    const text = paragraphText(p);
    if (!text) continue;
    const pPr = child(childrenOf(p), 'pPr');
    const props = childrenOf(pPr);
    const autoNum = child(props, 'buAutoNum');
    const bullet = child(props, 'buNone') ? false : child(props, 'buChar') || autoNum ? true : bulleted;
    const level = Number(attrOf(pPr, 'lvl') ?? 0);
    if (bullet) {
      out.blocks.push({ kind: 'item', level, text, ...(autoNum ? { start: Number(attrOf(autoNum, 'startAt') ?? 1) } : {}), ...(newShape ? { newShape } : {}) });
      newShape = false;
    } else out.blocks.push({ kind: 'para', text });
  }
}

function frame(node: OrderedNode, out: SlideContent, target: (id: string) => string | undefined, pkg: OfficePackage): void {
  const data = path(childrenOf(node), 'graphic', 'graphicData');
  const table = child(childrenOf(data), 'tbl');
  if (table) {
    const rows = childrenOf(table).filter((n) => tagOf(n) === 'tr').map((tr) =>
      childrenOf(tr).filter((n) => tagOf(n) === 'tc').map((tc) => descendants(childrenOf(tc), 'p').map(paragraphText).filter(Boolean).join(' ')));
    if (rows.some((r) => r.some(Boolean))) out.blocks.push({ kind: 'table', text: gfmTable(rows, true) });
    return;
  }
  const chartRef = child(childrenOf(data), 'chart');
  if (chartRef) {
    // A chart's title, axis titles and series names; its values are the data behind it, not slide text.
    const chart = chartText(pkg, target(attrOf(chartRef, 'id') ?? '') ?? '');
    let first = true;
    for (const block of chart ? chartBlocks(chart) : []) {
      out.blocks.push(block.kind === 'para' ? block : { kind: 'item', level: 0, text: block.text, ...(first ? { newShape: true } : {}) });
      if (block.kind === 'item') first = false;
    }
    return;
  }
  const relIds = child(childrenOf(data), 'relIds');
  const dataPart = relIds && target(attrOf(relIds, 'dm') ?? '');
  if (dataPart && pkg.has(dataPart)) {
    // SmartArt: the text lives in the diagram's data model, one point per shape.
    const points = descendants(pkg.orderedXml(dataPart) ?? [], 'pt');
    for (const pt of points) {
      const text = descendants(childrenOf(pt), 'p').map(paragraphText).filter(Boolean).join(' ') || textIn(childrenOf(child(childrenOf(pt), 't'))).trim();
      if (text) out.blocks.push({ kind: 'item', level: 0, text });
    }
  }
}

/**
 * A slide's blocks as Markdown: list items one per line, auto-numbered ones
 * as `1.`, `2.` (from their `startAt`, counting on while the list goes on at
 * that level), each level indented to its parent item's text; paragraphs and
 * tables apart.
 */
export function blocksToMarkdown(blocks: readonly Block[]): string {
  let md = '';
  let previous: Block['kind'] | undefined;
  const list = new ListNumbers();
  for (const block of blocks) {
    let line: string;
    if (block.kind === 'item') line = list.line(block);
    else {
      list.reset();
      line = block.kind === 'table' ? block.text : escapeStart(block.text);
    }
    md += previous === undefined ? line : previous === 'item' && block.kind === 'item' ? `\n${line}` : `\n\n${line}`;
    previous = block.kind;
  }
  return md;
}

const MAX_LEVEL = 8;

/** Markers and indentation of the items of one list, level by level. */
class ListNumbers {
  private numbers: (number | undefined)[] = [];
  private contentColumns: number[] = [];

  line(item: { level: number; text: string; start?: number; newShape?: boolean }): string {
    if (item.newShape) this.reset();
    const level = Math.min(Math.max(item.level, 0), MAX_LEVEL);
    // A shallower item ends the deeper lists under the previous one.
    this.numbers.length = Math.min(this.numbers.length, level + 1);
    this.contentColumns.length = Math.min(this.contentColumns.length, level + 1);
    let marker = '-';
    if (item.start !== undefined) {
      const number = this.numbers[level] !== undefined ? this.numbers[level]! + 1 : item.start;
      this.numbers[level] = number;
      marker = `${number}.`;
    } else this.numbers[level] = undefined;
    const indent = level === 0 ? 0 : (this.contentColumns[level - 1] ?? 2 * level);
    this.contentColumns[level] = indent + marker.length + 1;
    return `${' '.repeat(indent)}${marker} ${escapeStart(item.text)}`;
  }

  reset(): void {
    this.numbers = [];
    this.contentColumns = [];
  }
}

/** Slide text as Markdown text: tag-like words (`<IfModule>`) and emphasis marks kept as text, and no line read as structure. */
export function escapeStart(text: string): string {
  return escapeLineStart(escapeText(text)).replace(/^\|/, '\\|');
}
