import { SourceError } from '../../../shared/source-errors.js';
import { OfficePackage, textOf, type OrderedNode, type XmlNode } from '../office/office-package.js';
import { attrOf, childrenOf, path, tagOf } from '../office/ordered-xml.js';
import { chartMarkdown } from '../office/chart-markdown.js';
import { odfChartText } from '../office/odf-chart-text.js';
import { embeddedSheetTables } from '../ods/spreadsheet.js';
import { escapeLineStart, escapeText } from '../common/escape-markdown.js';
import { gfmTable } from '../table/gfm-table.js';
import { formulaText } from './formula-text.js';
import { listStyles, type ListLevel } from './odt-lists.js';
import type { RawExtraction } from '../types.js';

/** Limits of one document's extraction. */
export interface OdtOptions {
  /** Refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxUnpackedBytes?: number;
}

interface Walk {
  blocks: string[];
  notes: string[];
  /**
   * What the whole document shares: the package (for embedded objects), its
   * list styles, and the blocks of the charts and sheets met in the paragraph
   * being read, which follow it.
   */
  doc: { pkg: OfficePackage; lists: Map<string, ListLevel[]>; lastNumber: Map<string, number>; objects: string[] };
}

/**
 * Extracts an OpenDocument text (ODT): headings at their outline level,
 * paragraphs, nested lists, tables as GFM tables, sections and frames in
 * place, and footnotes and endnotes as a numbered list at the end, as for
 * DOCX; a chart object's title, axis titles and series names, and an
 * embedded spreadsheet's tables, after the paragraph that anchors them. A package whose manifest lists `encryption-data` fails `encrypted`.
 * The ZIP gets the DOCX bomb checks and no part with a DOCTYPE is parsed.
 */
export async function extractOdt(bytes: Uint8Array, opts: OdtOptions = {}): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'ODT', opts.maxUnpackedBytes);
  if (/encryption-data/.test(pkg.text('META-INF/manifest.xml') ?? '')) {
    throw new SourceError('encrypted', 'The OpenDocument file is protected by a password.');
  }
  const content = pkg.orderedXml('content.xml');
  const body = path(content, 'document-content', 'body', 'text');
  if (!content || !body) throw new SourceError('corrupt', 'The ODT has no text body: it is damaged or not a text document.');
  const walk: Walk = { blocks: [], notes: [], doc: { pkg, lists: listStyles(pkg, content), lastNumber: new Map(), objects: [] } };
  blocks(childrenOf(body), walk, 0);
  const notes = walk.notes.map((n, i) => `${i + 1}. ${n}`).join('\n');
  const markdown = [...walk.blocks, ...(notes ? [notes] : [])].join('\n\n');
  const meta = pkg.xml('meta.xml')?.['document-meta'] as XmlNode | undefined;
  const title = textOf((meta?.meta as XmlNode | undefined)?.title).replace(/\s+/g, ' ').trim();
  return { markdown, ...(title ? { title } : {}) };
}

function blocks(nodes: readonly OrderedNode[], walk: Walk, listDepth: number): void {
  for (const node of nodes) {
    switch (tagOf(node)) {
      case 'h': {
        const text = inline(childrenOf(node), walk);
        const level = Math.min(Math.max(Number(attrOf(node, 'outline-level') ?? 1), 1), 6);
        if (text) walk.blocks.push(`${'#'.repeat(level)} ${text}`);
        flushObjects(walk);
        break;
      }
      case 'p': {
        const text = inline(childrenOf(node), walk);
        if (text) walk.blocks.push(escapeLineStart(text));
        flushObjects(walk);
        break;
      }
      case 'list':
        walk.blocks.push(...listLines(node, walk, { indent: '', depth: 0, style: undefined }));
        break;
      case 'table':
        walk.blocks.push(table(node, walk));
        break;
      case 'object': {
        // A frame anchored to the page sits among the paragraphs, not inside one.
        const blocks = objectBlocks(walk, attrOf(node, 'href'));
        const formula = blocks ? '' : formulaText(walk.doc.pkg, attrOf(node, 'href'));
        if (blocks) walk.blocks.push(...blocks);
        else if (formula) walk.blocks.push(escapeLineStart(escapeText(formula)));
        break;
      }
      case 'section': case 'frame': case 'text-box': case 'g': case 'index-body':
      case 'table-of-content': case 'alphabetical-index': case 'illustration-index':
        blocks(childrenOf(node), walk, listDepth);
        break;
      default:
        break;
    }
  }
}

/** The charts and sheets of the paragraph just read, after it. */
function flushObjects(walk: Walk): void {
  walk.blocks.push(...walk.doc.objects);
  walk.doc.objects.length = 0;
}

/**
 * The blocks of a chart object (its title as a paragraph, axis titles and
 * series names as a list) or of an embedded spreadsheet (its sheets' used
 * ranges as tables); undefined for any other object.
 */
function objectBlocks(walk: Walk, href: string | undefined): string[] | undefined {
  const chart = odfChartText(walk.doc.pkg, href);
  if (chart) return [chartMarkdown(chart)];
  const tables = embeddedSheetTables(walk.doc.pkg, href, MAX_OBJECT_TEXT);
  return tables.length > 0 ? tables : undefined;
}

/** Bound on the table text of one embedded spreadsheet. */
const MAX_OBJECT_TEXT = 1_000_000;

/** Where a list sits: the indentation of its items, its nesting depth and the list style it inherits. */
interface ListPlace {
  indent: string;
  depth: number;
  style: string | undefined;
}

/**
 * A list as one block of Markdown lines: items of a numbered level (per the
 * list style) as `1.` from the level's start (or on from the previous list
 * of the same style when it continues numbering), others as `-`; nested
 * lists indented under their item's text.
 */
function listLines(list: OrderedNode, walk: Walk, place: ListPlace): string[] {
  const style = attrOf(list, 'style-name') ?? place.style;
  const level = style ? walk.doc.lists.get(style)?.[Math.min(place.depth, 9)] : undefined;
  const key = `${style}/${place.depth}`;
  let number = attrOf(list, 'continue-numbering') === 'true' || attrOf(list, 'continue-list') ? (walk.doc.lastNumber.get(key) ?? (level?.start ?? 1) - 1) : (level?.start ?? 1) - 1;
  const lines: string[] = [];
  for (const item of childrenOf(list)) {
    if (tagOf(item) !== 'list-item' && tagOf(item) !== 'list-header') continue;
    const start = Number(attrOf(item, 'start-value'));
    if (level?.numbered && tagOf(item) === 'list-item') number = Number.isInteger(start) && start > 0 ? start : number + 1;
    const marker = level?.numbered && tagOf(item) === 'list-item' ? `${number}.` : '-';
    const inner = `${place.indent}${' '.repeat(marker.length + 1)}`;
    let first = true;
    for (const part of childrenOf(item)) {
      if (tagOf(part) === 'list') {
        lines.push(...listLines(part, walk, { indent: inner, depth: place.depth + 1, style }));
        continue;
      }
      const nested: Walk = { blocks: [], notes: walk.notes, doc: walk.doc };
      blocks([part], nested, place.depth + 1);
      for (const text of nested.blocks) {
        lines.push(`${first ? `${place.indent}${marker} ` : inner}${text.replace(/\n/g, `\n${inner}`)}`);
        first = false;
      }
    }
  }
  if (level?.numbered) walk.doc.lastNumber.set(key, number);
  return lines.length > 0 ? [lines.join('\n')] : [];
}

function table(node: OrderedNode, walk: Walk): string {
  const rows: string[][] = [];
  const collect = (nodes: readonly OrderedNode[]) => {
    for (const n of nodes) {
      const tag = tagOf(n);
      if (tag === 'table-row') {
        rows.push(childrenOf(n).filter((c) => tagOf(c) === 'table-cell' || tagOf(c) === 'covered-table-cell').map((cell) => {
          const inner: Walk = { blocks: [], notes: walk.notes, doc: walk.doc };
          blocks(childrenOf(cell), inner, 0);
          return inner.blocks.join(' ');
        }));
      } else if (tag === 'table-header-rows' || tag === 'table-rows' || tag === 'table-row-group') collect(childrenOf(n));
    }
  };
  collect(childrenOf(node));
  return gfmTable(rows, true);
}

/** The text of a paragraph's content; a note's body goes to the notes and leaves its number in the text. */
function inline(nodes: readonly OrderedNode[], walk: Walk): string {
  let text = '';
  for (const n of nodes) {
    if ('#text' in n) {
      text += escapeText(String(n['#text']));
      continue;
    }
    switch (tagOf(n)) {
      case 's': text += ' '.repeat(Math.min(Number(attrOf(n, 'c') ?? 1), 100)); break;
      case 'tab': case 'line-break': text += ' '; break;
      // Ruby annotations, comments, deleted text and a drawing's own name and description are not the text.
      case 'ruby-text': case 'annotation': case 'tracked-changes': case 'title': case 'desc': break;
      case 'object': {
        const blocks = objectBlocks(walk, attrOf(n, 'href'));
        if (blocks) walk.doc.objects.push(...blocks);
        else text += ` ${formulaText(walk.doc.pkg, attrOf(n, 'href'))} `;
        break;
      }
      case 'note': {
        const noteBody = childrenOf(childrenOf(n).find((c) => tagOf(c) === 'note-body'));
        const inner: Walk = { blocks: [], notes: walk.notes, doc: walk.doc };
        blocks(noteBody, inner, 0);
        walk.notes.push(inner.blocks.join(' '));
        text += `[${walk.notes.length}]`;
        break;
      }
      // Spans, links, fields, references and the like: their text is the paragraph's.
      default: text += inline(childrenOf(n), walk); break;
    }
  }
  return text.replace(/[ \t\n]+/g, ' ').trim();
}
