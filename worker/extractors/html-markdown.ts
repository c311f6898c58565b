import type { AnyNode, Element } from 'domhandler';
import { isHidden, nodesToText, type WalkOptions } from './html-text.js';

/** How {@link nodesToMarkdown} reads a tree. */
export interface MarkdownOptions extends WalkOptions {
  /** Return true to leave a link (and its text) out, e.g. footnote back-links. */
  dropLink?: (el: Element) => boolean;
}

const NEVER = new Set([
  'head', 'title', 'meta', 'link', 'base', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'frame', 'object', 'embed', 'canvas',
  'audio', 'video', 'map', 'select', 'input', 'button', 'textarea', 'datalist',
]);
const CONTAINER = new Set([
  'html', 'body', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'form', 'fieldset', 'address', 'details',
  'summary', 'figure', 'figcaption', 'center', 'caption', 'legend', 'dl', 'dt', 'dd', 'li', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'hgroup', 'option', 'p',
]);
// Blocks that today's text put on their own line rather than in their own paragraph.
const LINE = new Set(['div', 'dt', 'dd', 'caption', 'figcaption', 'summary', 'legend', 'option']);
const HEADING = /^h([1-6])$/;
const STRONG = new Set(['b', 'strong']);
const EMPHASIS = new Set(['i', 'em']);
const CODE = new Set(['code', 'kbd', 'samp', 'tt']);
// Deeper structure is flattened to text: marked slows down sharply with list and quote nesting,
// and the recursion below must stay far from the call-stack limit.
const MAX_NESTING = 8;
const MAX_DEPTH = 200;

type Kind = 'para' | 'line' | 'list' | 'other';
interface Block { md: string; kind: Kind }
interface Ctx { opts: MarkdownOptions; depth: number; nesting: number; pre: boolean; content: boolean }

/**
 * Converts DOM nodes to Markdown: `h1`–`h6` as `#` headings, lists with their
 * markers and start numbers (nested by indentation), simple tables as GFM
 * tables (merged cells as tab-separated rows, layout tables as their blocks),
 * `pre` as fenced code, block quotes, bold/italic/code spans; links keep their
 * text only; images only their `alt` when `imageAlt` is set. Blocks are
 * separated by one blank line.
 */
export function nodesToMarkdown(roots: readonly AnyNode[], opts: MarkdownOptions = {}): string {
  return join(renderNodes(roots, { opts, depth: 0, nesting: 0, pre: false, content: false }), false);
}

function renderNodes(nodes: readonly AnyNode[], ctx: Ctx): Block[] {
  const blocks: Block[] = [];
  let inline = '';
  const flush = (): void => {
    const md = cleanInline(inline);
    if (md !== '') blocks.push({ md, kind: 'para' });
    inline = '';
  };
  for (const node of nodes) {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      inline += ctx.pre ? data : escapeText(data.replace(/\s+/g, ' '));
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'root') continue;
    const el = node as Element;
    const name = el.name?.toLowerCase() ?? '';
    if (NEVER.has(name) || (node.type === 'tag' && isHidden(el)) || (node.type === 'tag' && ctx.opts.skip?.(el, ctx.content))) continue;
    const child: Ctx = { ...ctx, depth: ctx.depth + 1, content: ctx.content || name === 'main' || name === 'article' || el.attribs?.role === 'main' };
    if (ctx.depth > MAX_DEPTH) {
      flush();
      const text = nodesToText([el], ctx.opts);
      if (text) blocks.push({ md: escapeText(text), kind: 'other' });
      continue;
    }
    const rendered = renderElement(el, name, child);
    if (typeof rendered === 'string') inline += rendered;
    else {
      flush();
      blocks.push(...rendered);
    }
  }
  flush();
  return blocks;
}

/** An element as inline Markdown (a string) or as blocks. */
function renderElement(el: Element, name: string, ctx: Ctx): string | Block[] {
  const children = (el.children ?? []) as AnyNode[];
  if (name === 'br') return '\n';
  if (name === 'img') {
    const alt = ctx.opts.imageAlt ? el.attribs?.alt?.replace(/\s+/g, ' ').trim() : undefined;
    return alt ? ` ${escapeText(alt)} ` : '';
  }
  if (name === 'hr') return [{ md: '---', kind: 'other' }];
  const heading = HEADING.exec(name);
  if (heading) {
    const text = join(renderNodes(children, ctx), false).replace(/\s*\n\s*/g, ' ').replace(/^#+ /, '').trim();
    return text ? [{ md: `${'#'.repeat(Number(heading[1]))} ${text}`, kind: 'other' }] : [];
  }
  if (name === 'ul' || name === 'ol' || name === 'menu') return renderList(el, name === 'ol', ctx);
  if (name === 'pre') return renderPre(el, ctx);
  if (name === 'blockquote') {
    const inner = join(renderNodes(children, { ...ctx, nesting: ctx.nesting + 1 }), false);
    if (!inner) return [];
    if (ctx.nesting >= MAX_NESTING) return [{ md: inner, kind: 'other' }];
    return [{ md: inner.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n'), kind: 'other' }];
  }
  if (name === 'table') return renderTable(el, ctx);
  if (name === 'a' && ctx.opts.dropLink?.(el)) return '';
  if (CONTAINER.has(name)) {
    const blocks = renderNodes(children, ctx);
    // A div of text is a line: consecutive ones stay on consecutive lines of one paragraph.
    if (LINE.has(name) && blocks.length === 1 && blocks[0]!.kind === 'para') return [{ md: blocks[0]!.md, kind: 'line' }];
    return blocks;
  }
  // Inline elements: wrap their content unless it turned out to hold blocks.
  const blocks = renderNodes(children, ctx);
  if (blocks.length === 0) return inlineSpace(children);
  if (blocks.length > 1 || (blocks[0]!.kind !== 'para' && blocks[0]!.kind !== 'line')) return blocks;
  const md = blocks[0]!.md;
  const lead = /^\s/.test(firstText(children)) ? ' ' : '';
  const trail = /\s$/.test(lastText(children)) ? ' ' : '';
  if (ctx.pre) return md;
  if (STRONG.has(name)) return `${lead}**${md}**${trail}`;
  if (EMPHASIS.has(name)) return `${lead}*${md}*${trail}`;
  if (CODE.has(name) && !md.includes('\n')) return `${lead}${codeSpan(unescapeText(md))}${trail}`;
  return `${lead}${md}${trail}`;
}

function renderList(el: Element, ordered: boolean, ctx: Ctx): Block[] {
  const inner: Ctx = { ...ctx, nesting: ctx.nesting + 1 };
  let number = ordered ? Number.parseInt(el.attribs?.start ?? '1', 10) : 0;
  if (!Number.isFinite(number)) number = 1;
  const items: string[] = [];
  let loose = false;
  for (const child of (el.children ?? []) as AnyNode[]) {
    const isItem = child.type === 'tag' && (child as Element).name.toLowerCase() === 'li';
    if (child.type === 'text' && !/\S/.test((child as unknown as { data: string }).data)) continue;
    if (isItem) {
      const value = Number.parseInt((child as Element).attribs?.value ?? '', 10);
      if (ordered && Number.isFinite(value)) number = value;
    }
    const blocks = renderNodes(isItem ? ((child as Element).children as AnyNode[]) : [child], inner);
    const body = join(blocks, true);
    if (!isItem && body === '') continue;
    if (!isItem && items.length > 0 && blocks.every((b) => b.kind === 'list')) {
      // A list nested directly in a list belongs to the item before it.
      items[items.length - 1] += `\n${body}`;
      continue;
    }
    if (blocks.filter((b) => b.kind !== 'list').length > 1) loose = true;
    const marker = ordered ? `${number}.` : '-';
    number++;
    const pad = ctx.nesting >= MAX_NESTING ? '' : ' '.repeat(marker.length + 1);
    items.push(`${marker} ${body.split('\n').map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n')}`.trimEnd());
  }
  return items.length ? [{ md: items.join(loose ? '\n\n' : '\n'), kind: 'list' }] : [];
}

function renderPre(el: Element, ctx: Ctx): Block[] {
  const code = nodesToText([el], ctx.opts).replace(/^\n+|\s+$/g, '');
  if (!code) return [];
  const lang = /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(`${el.attribs?.class ?? ''} ${codeClass(el)}`)?.[1] ?? '';
  let fence = '```';
  while (code.includes(fence)) fence += '`';
  return [{ md: `${fence}${lang}\n${code}\n${fence}`, kind: 'other' }];
}

function codeClass(el: Element): string {
  const code = (el.children ?? []).find((c) => c.type === 'tag' && (c as Element).name === 'code') as Element | undefined;
  return code?.attribs?.class ?? '';
}

function renderTable(el: Element, ctx: Ctx): Block[] {
  const rows = tableRows(el);
  const cells = rows.map((row) => row.map((cell) => renderNodes((cell.children ?? []) as AnyNode[], ctx)));
  const width = Math.max(0, ...rows.map((r) => r.length));
  // One column, or cells holding paragraphs, lists or tables: a layout table, read as its blocks.
  const layout = width <= 1 || cells.some((row) => row.some((c) => c.length > 1 || c.some((b) => b.kind !== 'para' && b.kind !== 'line')));
  if (layout) return cells.flat(2);
  const text = cells.map((row) => row.map((c) => c.map((b) => b.md).join(' ').replace(/\s*\n\s*/g, ' ')));
  if (text.every((row) => row.every((c) => c === ''))) return [];
  const merged = rows.some((row) => row.some((c) => Number(c.attribs?.colspan ?? 1) > 1 || Number(c.attribs?.rowspan ?? 1) > 1));
  if (merged || rows.some((r) => r.length !== width)) {
    return [{ md: text.map((row) => row.map(unescapeText).join('\t')).filter((r) => r.trim() !== '').join('\n'), kind: 'para' }];
  }
  const line = (row: string[]) => `| ${row.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const [head, ...body] = text;
  return [{ md: [line(head!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n'), kind: 'other' }];
}

/** The rows of a table (not of tables nested in it) and their cells. */
function tableRows(table: Element): Element[][] {
  const rows: Element[][] = [];
  const visit = (el: Element): void => {
    for (const child of (el.children ?? []) as AnyNode[]) {
      if (child.type !== 'tag') continue;
      const c = child as Element;
      const name = c.name.toLowerCase();
      if (name === 'tr') rows.push(((c.children ?? []) as AnyNode[]).filter((x): x is Element => x.type === 'tag' && /^t[dh]$/i.test((x as Element).name)));
      else if (name === 'thead' || name === 'tbody' || name === 'tfoot') visit(c);
    }
  };
  visit(table);
  return rows.filter((r) => r.length > 0);
}

/** Joins blocks with a blank line; inside a list item, a nested list follows its text directly. */
function join(blocks: readonly Block[], item: boolean): string {
  let out = '';
  blocks.forEach((b, i) => {
    const prev = blocks[i - 1];
    if (prev) out += (item && b.kind === 'list' && prev.kind !== 'list') || (b.kind === 'line' && prev.kind === 'line') ? '\n' : '\n\n';
    out += b.md;
  });
  return out;
}

function cleanInline(md: string): string {
  return md
    .replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, '\n')
    .replace(/ {2,}/g, ' ')
    .replace(/\n{2,}/g, '\n')
    .trim()
    .split('\n')
    .map(escapeLineStart)
    .join('\n');
}

function inlineSpace(children: readonly AnyNode[]): string {
  return children.some((c) => c.type === 'text' && /\s/.test((c as unknown as { data: string }).data)) ? ' ' : '';
}

function firstText(nodes: readonly AnyNode[]): string {
  let n = nodes[0];
  for (let i = 0; n && n.type !== 'text' && i < 50; i++) n = ((n as Element).children ?? [])[0];
  return n?.type === 'text' ? (n as unknown as { data: string }).data : '';
}

function lastText(nodes: readonly AnyNode[]): string {
  let n = nodes[nodes.length - 1];
  for (let i = 0; n && n.type !== 'text' && i < 50; i++) n = ((n as Element).children ?? []).at(-1);
  return n?.type === 'text' ? (n as unknown as { data: string }).data : '';
}

function codeSpan(text: string): string {
  const ticks = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((t) => t.length)) + 1);
  return text.startsWith('`') || text.endsWith('`') ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** Escapes what would otherwise read as markup inside a line: HTML-like tags and backslash escapes. */
export function escapeText(text: string): string {
  return text.replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\').replace(/</g, '\\<');
}

function unescapeText(md: string): string {
  return md.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** Escapes a marker that would turn a line of text into a heading, list item, quote or rule. */
export function escapeLineStart(line: string): string {
  return line
    .replace(/^(#{1,6})(?=\s|$)/, '\\$1')
    .replace(/^([-+*])(?=\s|$)/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
    .replace(/^>/, '\\>')
    .replace(/^(=+|-{3,}|_{3,}|\*{3,})\s*$/, '\\$1')
    .replace(/^(`{3,}|~{3,})/, '\\$1');
}
