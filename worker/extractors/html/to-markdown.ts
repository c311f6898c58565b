import type { AnyNode, Element } from 'domhandler';
import { escapeText } from '../common/escape-markdown.js';
import { cleanInline, cleanText, codeClass, codeSpan, firstText, indent, inlineSpace, join, lastText, tableRows, type Block, type Inline } from './markdown-blocks.js';
import { BLOCK, CODE, CONTAINER, EMPHASIS, HEADING, LINE_CONTAINER, SKIPPED, STRONG } from './tags.js';
import { imageText, isFormula } from './image-alt.js';
import { isHidden, nodesToText, type WalkOptions } from './to-text.js';
import { divGridRows, isJumpTable, tableBlocks } from './table-blocks.js';

/** How {@link nodesToMarkdown} reads a tree. */
export interface MarkdownOptions extends WalkOptions {
  /** Return true to leave a link (and its text) out, e.g. footnote back-links. */
  dropLink?: (el: Element) => boolean;
  /** Levels added to every heading (at most `######`), to put them under a title; default 0. */
  headingShift?: number;
}

// Deeper structure is flattened to text: marked slows down sharply with list and quote nesting,
// and the recursion below must stay far from the call-stack limit.
const MAX_NESTING = 8;
const MAX_DEPTH = 200;

// Inside a heading: 'text' while its own words are read, 'images' when it has none and its images' alts stand for them.
interface Ctx { opts: MarkdownOptions; depth: number; nesting: number; pre: boolean; content: boolean; heading?: 'text' | 'images' }

/**
 * Converts DOM nodes to Markdown: `h1`–`h6` as `#` headings, lists with their
 * markers and start numbers (nested by indentation), simple tables as GFM
 * tables (merged cells spread over the columns they cover, paragraphs in a
 * cell joined by `<br>`, rules, spacers and heading rows taken apart, layout
 * tables as their blocks, a bar of in-page links left out; see `table-blocks.ts`),
 * `pre` as fenced code, block quotes, bold/italic/code spans; links keep their
 * text only; images their `alt` as `imageAlt` says (see `imageText`: formulas'
 * TeX always), inline where they stand. Blocks are
 * separated by one blank line.
 */
export function nodesToMarkdown(roots: readonly AnyNode[], opts: MarkdownOptions = {}): string {
  return nodesToMarkdownAndText(roots, opts).markdown;
}

/**
 * {@link nodesToMarkdown}, and in the same walk the plain text that
 * `markdownToText` would read from that Markdown (heading marks, emphasis,
 * bullets, pipes, fences and escapes left out; list numbers kept), so a page
 * is not parsed a second time.
 */
export function nodesToMarkdownAndText(roots: readonly AnyNode[], opts: MarkdownOptions = {}): { markdown: string; text: string } {
  const blocks = withoutEdgeRules(renderNodes(roots, { opts, depth: 0, nesting: 0, pre: false, content: false }));
  return { markdown: join(blocks, false, 'md'), text: join(blocks, false, 'text') };
}

/**
 * A heading's words without the escapes a paragraph needs at its start: after
 * `## ` a number and a dot (`2. Using`), a dash or plus and a space, or a `>`
 * open no list or quote, so `## 2. Using` is written as it reads.
 */
function headingLineStart(md: string): string {
  return md.replace(/^(\d{1,9})\\([.)])/, '$1$2').replace(/^\\([-+](?=\s)|>)/, '$1');
}

/** The blocks without the rules (`<hr>`) before the first and after the last other block: they separate nothing. */
function withoutEdgeRules(blocks: Block[]): Block[] {
  const isRule = (b: Block): boolean => (b.md === '---' || b.md === '') && b.text === '';
  let start = 0;
  let end = blocks.length;
  while (start < end && isRule(blocks[start]!)) start++;
  while (end > start && isRule(blocks[end - 1]!)) end--;
  return start === 0 && end === blocks.length ? blocks : blocks.slice(start, end);
}

function renderNodes(nodes: readonly AnyNode[], ctx: Ctx): Block[] {
  const blocks: Block[] = [];
  let inline = '';
  let inlineText = '';
  const flush = (): void => {
    const md = cleanInline(inline);
    if (md !== '') blocks.push({ md, text: cleanText(inlineText), kind: 'para' });
    inline = '';
    inlineText = '';
  };
  for (const node of nodes) {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      const text = ctx.pre ? data : data.replace(/\s+/g, ' ');
      inline += ctx.pre ? text : escapeText(text);
      inlineText += text;
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'root') continue;
    const el = node as Element;
    const name = el.name ?? '';
    if (SKIPPED.has(name) || (node.type === 'tag' && isHidden(el)) || (node.type === 'tag' && ctx.opts.skip?.(el, ctx.content))) continue;
    const content = ctx.content || name === 'main' || name === 'article' || el.attribs?.role === 'main';
    const child: Ctx = { opts: ctx.opts, depth: ctx.depth + 1, nesting: ctx.nesting, pre: ctx.pre, content, heading: ctx.heading };
    if (ctx.depth > MAX_DEPTH) {
      flush();
      const text = nodesToText([el], ctx.opts);
      if (text) blocks.push({ md: escapeText(text), text, kind: 'other' });
      continue;
    }
    const rendered = renderElement(el, name, child);
    if (!Array.isArray(rendered)) {
      inline += rendered.md;
      inlineText += rendered.text;
    } else {
      flush();
      for (const b of rendered) blocks.push(b);
    }
  }
  flush();
  return blocks;
}

const inlineOf = (md: string, text = md): Inline => ({ md, text });
const NOTHING = inlineOf('');

/** An element as inline Markdown or as blocks. */
function renderElement(el: Element, name: string, ctx: Ctx): Inline | Block[] {
  const children = (el.children ?? []) as AnyNode[];
  if (name === 'br') return inlineOf('\n');
  if (name === 'img') {
    // A heading's words are its text; an image in it is decoration unless the heading has no other
    // words, when a content image's alt is the heading (on a web page too).
    const mode = ctx.heading === 'images' ? (ctx.opts.imageAlt ?? 'content') : ctx.opts.imageAlt;
    const alt = ctx.heading === 'text' && !isFormula(el) ? undefined : imageText(el, mode);
    return alt ? inlineOf(` ${escapeText(alt)} `, ` ${alt} `) : NOTHING;
  }
  if (name === 'hr') return [{ md: '---', text: '', kind: 'other' }];
  const heading = HEADING.exec(name);
  if (heading) {
    let blocks = renderNodes(children, { ...ctx, heading: 'text' });
    if (join(blocks, false, 'text').trim() === '') blocks = renderNodes(children, { ...ctx, heading: 'images' });
    const md = headingLineStart(join(blocks, false, 'md').replace(/\s*\n\s*/g, ' ').replace(/^#+ /, '').trim());
    const text = join(blocks, false, 'text').replace(/\s*\n\s*/g, ' ').trim();
    // A trailing run of # would read as the heading's closing sequence.
    const level = Math.min(6, Number(heading[1]) + (ctx.opts.headingShift ?? 0));
    return md ? [{ md: `${'#'.repeat(level)} ${md.replace(/(^|\s)(#+)$/, '$1\\$2')}`, text, kind: 'other' }] : [];
  }
  if (name === 'ul' || name === 'ol' || name === 'menu') return renderList(el, name === 'ol', ctx);
  if (name === 'pre') return renderPre(el, ctx);
  if (name === 'blockquote') {
    const blocks = renderNodes(children, { ...ctx, nesting: ctx.nesting + 1 });
    const inner = join(blocks, false, 'md');
    if (!inner) return [];
    const text = join(blocks, false, 'text');
    if (ctx.nesting >= MAX_NESTING) return [{ md: inner, text, kind: 'other' }];
    return [{ md: inner.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n'), text, kind: 'other' }];
  }
  if (name === 'table') return renderTable(el, ctx);
  const grid = name === 'div' ? divGridRows(el) : undefined;
  if (grid) return tableBlocks(grid, grid.map((row) => row.map((cell) => renderNodes((cell.children ?? []) as AnyNode[], ctx))));
  if (name === 'a' && ctx.opts.dropLink?.(el)) return NOTHING;
  if (CONTAINER.has(name)) {
    const blocks = renderNodes(children, ctx);
    // A div of text is a line: consecutive ones stay on consecutive lines of one paragraph.
    if (LINE_CONTAINER.has(name) && blocks.length === 1 && blocks[0]!.kind === 'para') return [{ ...blocks[0]!, kind: 'line' }];
    return blocks;
  }
  // Inline elements: wrap their content unless it turned out to hold blocks.
  const simple = renderInline(children, ctx);
  if (simple) return wrap(name, simple, ctx);
  const blocks = renderNodes(children, ctx);
  if (blocks.length === 0) return inlineOf(inlineSpace(children));
  if (blocks.length > 1 || (blocks[0]!.kind !== 'para' && blocks[0]!.kind !== 'line')) return blocks;
  const { md, text } = blocks[0]!;
  const lead = /^\s/.test(firstText(children)) ? ' ' : '';
  const trail = /\s$/.test(lastText(children)) ? ' ' : '';
  const plain = `${lead}${text}${trail}`;
  if (ctx.pre) return inlineOf(md, text);
  if (STRONG.has(name)) return inlineOf(`${lead}**${md}**${trail}`, plain);
  if (EMPHASIS.has(name)) return inlineOf(`${lead}*${md}*${trail}`, plain);
  if (CODE.has(name) && !md.includes('\n')) return inlineOf(`${lead}${codeSpan(text)}${trail}`, plain);
  return inlineOf(`${lead}${md}${trail}`, plain);
}

/** Inline content only: undefined as soon as a block element turns up (the caller then renders blocks). */
function renderInline(nodes: readonly AnyNode[], ctx: Ctx): Inline | undefined {
  let md = '';
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      const plain = ctx.pre ? data : data.replace(/\s+/g, ' ');
      md += ctx.pre ? plain : escapeText(plain);
      text += plain;
      continue;
    }
    if (node.type !== 'tag') continue;
    const el = node as Element;
    const name = el.name;
    if (SKIPPED.has(name) || isHidden(el) || ctx.opts.skip?.(el, ctx.content)) continue;
    if (BLOCK.has(name) || HEADING.test(name) || ctx.depth > MAX_DEPTH) return undefined;
    let part: Inline | undefined;
    if (name === 'br') part = inlineOf('\n');
    else if (name === 'img' || (name === 'a' && ctx.opts.dropLink?.(el))) part = renderElement(el, name, ctx) as Inline;
    else {
      const inner = renderInline((el.children ?? []) as AnyNode[], { opts: ctx.opts, depth: ctx.depth + 1, nesting: ctx.nesting, pre: ctx.pre, content: ctx.content, heading: ctx.heading });
      if (!inner) return undefined;
      part = wrap(name, inner, ctx);
    }
    md += part.md;
    text += part.text;
  }
  return { md, text };
}

/** Emphasis, strong and code marks around inline content, with its outer spaces moved outside them. */
function wrap(name: string, inner: Inline, ctx: Ctx): Inline {
  const md = inner.md.trim();
  if (md === '') return inlineOf(/\s/.test(inner.md) ? ' ' : '');
  const lead = /^\s/.test(inner.md) ? ' ' : '';
  const trail = /\s$/.test(inner.md) ? ' ' : '';
  const text = inner.text.trim();
  const plain = `${lead}${text}${trail}`;
  if (ctx.pre) return inner;
  if (STRONG.has(name)) return inlineOf(`${lead}**${md}**${trail}`, plain);
  if (EMPHASIS.has(name)) return inlineOf(`${lead}*${md}*${trail}`, plain);
  if (CODE.has(name) && !md.includes('\n')) return inlineOf(`${lead}${codeSpan(text)}${trail}`, plain);
  return inlineOf(`${lead}${md}${trail}`, plain);
}

function renderList(el: Element, ordered: boolean, ctx: Ctx): Block[] {
  const inner: Ctx = { ...ctx, nesting: ctx.nesting + 1 };
  let number = ordered ? Number.parseInt(el.attribs?.start ?? '1', 10) : 0;
  if (!Number.isFinite(number)) number = 1;
  const items: Inline[] = [];
  // A list whose items hold headings lays out sections (Javadoc's blockList): read as its blocks.
  const sections: Block[] = [];
  let headed = false;
  let loose = false;
  for (const child of (el.children ?? []) as AnyNode[]) {
    const isItem = child.type === 'tag' && (child as Element).name === 'li';
    if (child.type === 'text' && !/\S/.test((child as unknown as { data: string }).data)) continue;
    if (isItem) {
      const value = Number.parseInt((child as Element).attribs?.value ?? '', 10);
      if (ordered && Number.isFinite(value)) number = value;
    }
    const blocks = renderNodes(isItem ? ((child as Element).children as AnyNode[]) : [child], inner);
    for (const b of blocks) sections.push(b);
    if (blocks.some((b) => b.kind === 'other' && /^#{1,6} /.test(b.md))) headed = true;
    const body = join(blocks, true, 'md');
    const text = join(blocks, true, 'text');
    if (!isItem && body === '') continue;
    if (!isItem && items.length > 0 && blocks.every((b) => b.kind === 'list')) {
      // A list nested directly in a list belongs to the item before it.
      const last = items[items.length - 1]!;
      last.md += `\n${body}`;
      last.text += `\n${indent(text, '  ')}`;
      continue;
    }
    if (blocks.filter((b) => b.kind !== 'list').length > 1) loose = true;
    const marker = ordered ? `${number}.` : '-';
    number++;
    const pad = ctx.nesting >= MAX_NESTING ? '' : ' '.repeat(marker.length + 1);
    items.push({ md: `${marker} ${indent(body, pad)}`.trimEnd(), text: `${ordered ? `${marker} ` : ''}${indent(text, '  ')}`.trimEnd() });
  }
  if (headed) return sections;
  if (items.length === 0) return [];
  return [{ md: items.map((i) => i.md).join(loose ? '\n\n' : '\n'), text: items.map((i) => i.text).join('\n'), kind: 'list' }];
}

function renderPre(el: Element, ctx: Ctx): Block[] {
  const code = nodesToText([el], ctx.opts).replace(/^\n+|\s+$/g, '');
  if (!code) return [];
  const lang = /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(`${el.attribs?.class ?? ''} ${codeClass(el)}`)?.[1] ?? '';
  let fence = '```';
  while (code.includes(fence)) fence += '`';
  return [{ md: `${fence}${lang}\n${code}\n${fence}`, text: code, kind: 'other' }];
}

function renderTable(el: Element, ctx: Ctx): Block[] {
  const rows = tableRows(el);
  if (isJumpTable(rows)) return [];
  const caption = ((el.children ?? []) as AnyNode[]).find((c) => c.type === 'tag' && (c as Element).name.toLowerCase() === 'caption') as Element | undefined;
  const cells = rows.map((row) => row.map((cell) => renderNodes((cell.children ?? []) as AnyNode[], ctx)));
  return [...(caption ? renderNodes([caption], ctx) : []), ...tableBlocks(rows, cells)];
}
