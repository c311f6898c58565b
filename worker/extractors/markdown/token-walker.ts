import { Lexer, type Token, type Tokens } from 'marked';
import { decodeEntities } from '../common/decode-entities.js';
import { escapeLineStart, escapeText } from '../common/escape-markdown.js';
import { htmlFragmentToMarkdown } from '../html/extract-html.js';
import { INLINE_HTML } from '../html/tags.js';

/** One piece of a Markdown document, written back as Markdown and read as plain text. */
export interface Rendered {
  markdown: string;
  text: string;
}

/**
 * The one walk over marked's token tree. It writes each token back as
 * normalized Markdown (ATX headings, `-` bullets, renumbered ordered lists
 * keeping their start, fenced code, GFM tables, links reduced to their text,
 * images to their alt text, HTML blocks converted, reference definitions
 * dropped) and, in the same step, reads its plain text (headings and
 * paragraphs separated by a blank line, list items on their own lines with
 * their numbers and nested items indented, table cells tab-separated, code
 * kept, HTML reduced to its text), so a document is lexed and walked once.
 * The text is not yet tidied: {@link markdownToText} does that.
 */
export function renderTokens(tokens: readonly Token[]): Rendered {
  return joinBlocks(tokens.map(block), '\n\n');
}

/**
 * Plain text of a Markdown document, read from marked's token tree (not by
 * stripping syntax with patterns); see {@link renderTokens}.
 */
export function markdownToText(markdown: string): string {
  return renderTokens(new Lexer({ gfm: true }).lex(markdown)).text.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}

/** The plain text of one block token as {@link renderTokens} reads it (e.g. a heading, for a title). */
export function blockText(token: Token): string {
  return block(token).text;
}

// The two renderings join blocks differently: Markdown puts `separator` between the non-empty
// ones, while each block's text already ends with the line breaks that follow it.
function joinBlocks(parts: readonly Rendered[], separator: string): Rendered {
  return {
    markdown: parts.map((p) => p.markdown).filter((m) => m !== '').join(separator),
    text: parts.map((p) => p.text).join(''),
  };
}

function block(token: Token): Rendered {
  switch (token.type) {
    case 'heading': {
      const inner = inline(token.tokens ?? []);
      const md = inner.markdown.replace(/\s*\n\s*/g, ' ').trim();
      return { markdown: md ? `${'#'.repeat(token.depth)} ${md}` : '', text: `${inner.text}\n\n` };
    }
    case 'paragraph': {
      const inner = inline(token.tokens ?? []);
      return { markdown: inner.markdown.trim(), text: `${inner.text}\n\n` };
    }
    case 'text': {
      if (!token.tokens) return { markdown: escapeText(token.text), text: `${decodeEntities(token.text)}\n` };
      const inner = inline(token.tokens);
      return { markdown: inner.markdown.trim(), text: `${inner.text}\n` };
    }
    case 'code': {
      let fence = '```';
      while (token.text.includes(fence)) fence += '`';
      return { markdown: `${fence}${token.lang ?? ''}\n${token.text}\n${fence}`, text: `${token.text}\n\n` };
    }
    case 'blockquote': {
      const inner = renderTokens(token.tokens ?? []);
      const markdown = inner.markdown ? inner.markdown.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n') : '';
      return { markdown, text: `${inner.text}\n\n` };
    }
    case 'list':
      return list(token as Tokens.List);
    case 'table':
      return table(token as Tokens.Table);
    case 'html': {
      const { markdown, text } = htmlFragmentToMarkdown(token.text);
      return { markdown, text: `${text}\n\n` };
    }
    case 'hr':
      return { markdown: '---', text: '\n\n' };
    case 'space':
      return { markdown: '', text: '\n\n' };
    case 'def':
      return { markdown: '', text: '' };
    default: {
      const generic = token as Tokens.Generic;
      return generic.tokens ? renderTokens(generic.tokens) : { markdown: '', text: '' };
    }
  }
}

function list(token: Tokens.List): Rendered {
  let number = typeof token.start === 'number' ? token.start : 1;
  const markdown: string[] = [];
  let text = '';
  for (const item of token.items) {
    number = itemNumber(item, number);
    const marker = token.ordered ? `${number++}.` : '-';
    const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    // A task's checkbox renders as nothing in either form.
    const parts = item.tokens.filter((t) => t.type !== 'checkbox').map(block);
    const body = joinBlocks(parts, item.loose ? '\n\n' : '\n');
    const pad = ' '.repeat(marker.length + 1);
    markdown.push(`${marker} ${check}${indent(body.markdown, pad)}`.trimEnd());
    text += `${token.ordered ? `${marker} ` : ''}${indent(body.text.replace(/\n+$/, ''), '  ')}\n`;
  }
  return { markdown: markdown.join(token.loose ? '\n\n' : '\n'), text: `${text}\n` };
}

/** Indents every line but the first (and blank ones). */
function indent(body: string, pad: string): string {
  return body.split('\n').map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n');
}

function table(token: Tokens.Table): Rendered {
  const rows = [token.header, ...token.rows].map((cells) => cells.map((c) => inline(c.tokens)));
  const line = (cells: Rendered[]) => `| ${cells.map((c) => c.markdown.replace(/\s*\n\s*/g, ' ').trim()).join(' | ')} |`;
  const [head, ...body] = rows;
  return {
    markdown: [line(head!), `|${' --- |'.repeat(token.header.length)}`, ...body.map(line)].join('\n'),
    text: `${rows.map((cells) => cells.map((c) => c.text).join('\t')).join('\n')}\n\n`,
  };
}

/**
 * The number an ordered item is written with: Markdown renders a list's items
 * from its start on, but the written numbers are the document's (Word lists
 * that restart or jump keep their numbers in one list).
 */
function itemNumber(item: Tokens.ListItem, next: number): number {
  const written = /^\s*(\d{1,9})[.)]/.exec(item.raw)?.[1];
  return written === undefined ? next : Number(written);
}

function inline(tokens: readonly Token[]): Rendered {
  let markdown = '';
  let text = '';
  const add = (md: string, plain = md): void => {
    markdown += md;
    text += plain;
  };
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        if (token.tokens) {
          const inner = inline(token.tokens);
          add(inner.markdown, inner.text);
        } else add(token.raw, decodeEntities(token.text));
        break;
      case 'escape':
      case 'codespan':
        add(token.raw, token.text);
        break;
      case 'strong':
      case 'em':
      case 'del': {
        const inner = inline(token.tokens ?? []);
        const mark = token.type === 'strong' ? '**' : token.type === 'em' ? '*' : '~~';
        add(`${mark}${inner.markdown}${mark}`, inner.text);
        break;
      }
      case 'image':
        add(escapeText(token.text), token.text);
        break;
      case 'br':
        add('\n');
        break;
      case 'html': {
        const name = /^<\/?([a-z][\w-]*)>$/i.exec(token.text)?.[1]?.toLowerCase();
        if (name && !INLINE_HTML.has(name)) add(escapeText(token.text), token.text);
        else add(/^<br\b/i.test(token.text) ? '\n' : '');
        break;
      }
      case 'checkbox':
        break;
      default: {
        const generic = token as Tokens.Generic;
        if (generic.tokens) {
          const inner = inline(generic.tokens);
          add(inner.markdown, inner.text);
        } else add(escapeText(String(generic.text ?? '')), String(generic.text ?? ''));
      }
    }
  }
  // A line break inside a paragraph must not start a line that reads as a block marker.
  if (markdown.includes('\n')) markdown = markdown.split('\n').map((l, i) => (i === 0 ? l : escapeLineStart(l.trimStart()))).join('\n');
  return { markdown, text };
}
