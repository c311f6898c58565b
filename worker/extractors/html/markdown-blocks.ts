import type { AnyNode, Element } from 'domhandler';
import { escapeLineStart } from '../common/escape-markdown.js';

/**
 * The pieces the HTML-to-Markdown walk builds with: blocks that carry their
 * Markdown and their plain text side by side, and the joins, clean-ups and
 * DOM look-ups that keep the two in step.
 */

/** How a block joins its neighbours: paragraphs by a blank line, consecutive lines by a line break. */
export type Kind = 'para' | 'line' | 'list' | 'other';
/** A block as Markdown and as the plain text `markdownToText` reads from that Markdown. */
export interface Block { md: string; text: string; kind: Kind }
/** Inline content as Markdown and as plain text. */
export interface Inline { md: string; text: string }

/** Indents every line but the first (and blank ones). */
export function indent(body: string, pad: string): string {
  return pad === '' || !body.includes('\n') ? body : body.split('\n').map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n');
}

/** The class of a `pre`'s `code` child, where highlighters name the language. */
export function codeClass(el: Element): string {
  const code = (el.children ?? []).find((c) => c.type === 'tag' && (c as Element).name === 'code') as Element | undefined;
  return code?.attribs?.class ?? '';
}

/** The rows of a table (not of tables nested in it) and their cells. */
export function tableRows(table: Element): Element[][] {
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
export function join(blocks: readonly Block[], item: boolean, key: 'md' | 'text'): string {
  let out = '';
  let prev: Block | undefined;
  for (const b of blocks) {
    if (b[key] === '') continue;
    if (prev) out += (item && b.kind === 'list' && prev.kind !== 'list') || (b.kind === 'line' && prev.kind === 'line') ? '\n' : '\n\n';
    out += b[key];
    prev = b;
  }
  return out;
}

/** Tidies a paragraph's plain text: no spaces around line breaks, no blank lines, single spaces. */
export function cleanText(text: string): string {
  if (!text.includes('\n') && !text.includes('  ')) return text.trim();
  return text.replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, '\n').replace(/ {2,}/g, ' ').replace(/\n{2,}/g, '\n').trim();
}

/** {@link cleanText} for a paragraph's Markdown, escaping each line's start so it stays text. */
export function cleanInline(md: string): string {
  if (!md.includes('\n') && !md.includes('  ')) return escapeLineStart(md.trim());
  return md
    .replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, '\n')
    .replace(/ {2,}/g, ' ')
    .replace(/\n{2,}/g, '\n')
    .trim()
    .split('\n')
    .map(escapeLineStart)
    .join('\n');
}

/** A space when children that render nothing still held whitespace between words, else nothing. */
export function inlineSpace(children: readonly AnyNode[]): string {
  return children.some((c) => c.type === 'text' && /\s/.test((c as unknown as { data: string }).data)) ? ' ' : '';
}

/** The first text node's data down the first-child chain (bounded), to see if content opens with a space. */
export function firstText(nodes: readonly AnyNode[]): string {
  let n = nodes[0];
  for (let i = 0; n && n.type !== 'text' && i < 50; i++) n = ((n as Element).children ?? [])[0];
  return n?.type === 'text' ? (n as unknown as { data: string }).data : '';
}

/** The last text node's data down the last-child chain (bounded), to see if content ends with a space. */
export function lastText(nodes: readonly AnyNode[]): string {
  let n = nodes[nodes.length - 1];
  for (let i = 0; n && n.type !== 'text' && i < 50; i++) n = ((n as Element).children ?? []).at(-1);
  return n?.type === 'text' ? (n as unknown as { data: string }).data : '';
}

/** A code span fenced with more backticks than the text holds in a row. */
export function codeSpan(text: string): string {
  const ticks = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((t) => t.length)) + 1);
  return text.startsWith('`') || text.endsWith('`') ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}
