import type { AnyNode, Element } from 'domhandler';
import { imageText, type AltText } from './image-alt.js';
import { CELL, CONTENT, LINE_BLOCK, PARAGRAPH_BLOCK, SKIPPED } from './tags.js';

/** Decides which elements a walk leaves out, beyond the always-skipped ones. */
export interface WalkOptions {
  /** Return true to leave `el` and everything in it out. `inContent` is true inside main/article. */
  skip?: (el: Element, inContent: boolean) => boolean;
  /**
   * Which images' `alt` becomes text (see `imageText`): `all` (DOCX image descriptions are the
   * author's), `content` (a book's illustrations: content images' meaningful alts), or by
   * default only formulas' TeX (a web page's main text, as readers and extractors of pages take it).
   */
  imageAlt?: AltText;
}

interface Frame { node: AnyNode; pre: boolean; content: boolean; cell: boolean; exit?: true }

/**
 * Turns DOM nodes into plain text in document order: paragraph-level blocks
 * are separated by a blank line, list items, rows and other blocks by a line
 * break, table cells by a tab; whitespace collapses outside `<pre>`. Scripts,
 * styles, embedded content and hidden elements are left out. The walk keeps
 * its own stack, so nesting depth is bounded by memory, not the call stack.
 */
export function nodesToText(roots: readonly AnyNode[], opts: WalkOptions = {}): string {
  const out: string[] = [];
  let pending = 0;
  let lastSpace = true;
  const emit = (text: string): void => {
    if (text === '') return;
    if (pending > 0 && out.length > 0) out.push('\n'.repeat(pending));
    pending = 0;
    out.push(text);
    lastSpace = /\s$/.test(text);
  };
  const brk = (n: number): void => {
    pending = Math.max(pending, n);
    lastSpace = true;
  };
  // Blocks inside a table cell only space their words, so a row stays on one line.
  const space = (): void => {
    if (!lastSpace) emit(' ');
  };
  let cellDone = false;

  const stack: Frame[] = [...roots].reverse().map((node) => ({ node, pre: false, content: false, cell: false }));
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node } = frame;
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      if (frame.pre) emit(data);
      else {
        let text = data.replace(/\s+/g, ' ');
        if (lastSpace) text = text.replace(/^ /, '');
        if (text !== ' ' || pending === 0) emit(text);
      }
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'root') continue;
    const el = node as Element;
    const name = el.name?.toLowerCase() ?? '';
    if (frame.exit) {
      if (CELL.has(name)) cellDone = true;
      else if (frame.cell && (PARAGRAPH_BLOCK.has(name) || LINE_BLOCK.has(name))) space();
      else closeBlock(name, brk);
      continue;
    }
    if (SKIPPED.has(name) || isHidden(el) || opts.skip?.(el, frame.content)) continue;
    if (name === 'img') {
      const alt = imageText(el, opts.imageAlt);
      if (alt) emit(lastSpace ? `${alt} ` : ` ${alt} `);
      continue;
    }
    if (CELL.has(name)) {
      if (cellDone && pending === 0) emit('\t');
      cellDone = false;
    } else if (frame.cell && (PARAGRAPH_BLOCK.has(name) || LINE_BLOCK.has(name))) space();
    else {
      cellDone = false;
      if (name === 'br' || name === 'hr') brk(name === 'br' ? 1 : 2);
      else closeBlock(name, brk);
    }
    const cell = frame.cell || CELL.has(name);
    stack.push({ node, pre: frame.pre, content: frame.content, cell: frame.cell, exit: true });
    const pre = frame.pre || name === 'pre' || name === 'textarea';
    const content = frame.content || CONTENT.has(name) || el.attribs?.role === 'main';
    const children = el.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i] as AnyNode, pre, content, cell });
  }
  return out.join('').replace(/ *\t */g, '\t').replace(/ +\n/g, '\n');
}

function closeBlock(name: string, brk: (n: number) => void): void {
  if (PARAGRAPH_BLOCK.has(name)) brk(2);
  else if (LINE_BLOCK.has(name)) brk(1);
}

/** Hidden by the `hidden` attribute, `aria-hidden="true"` or an inline `display:none` / `visibility:hidden`. */
export function isHidden(el: Element): boolean {
  const a = el.attribs ?? {};
  if ('hidden' in a || a['aria-hidden'] === 'true' || (el.name === 'input' && a.type === 'hidden')) return true;
  const style = a.style;
  return style !== undefined && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}
