import { Lexer, type Token, type Tokens } from 'marked';
import { htmlFragmentToMarkdown } from '../html/extract-html.js';
import { decodeEntities } from '../common/decode-entities.js';

/**
 * Plain text of a Markdown document, read from marked's token tree (not by
 * stripping syntax with patterns): headings and paragraphs as paragraphs
 * separated by a blank line, list items on their own lines with their
 * numbers (nested items indented), table cells tab-separated, code kept as
 * text, links and images reduced to their text, HTML reduced to its text.
 */
export function markdownToText(markdown: string): string {
  return tokensToText(new Lexer({ gfm: true }).lex(markdown)).replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}

/** {@link markdownToText} over tokens already lexed. */
export function tokensToText(tokens: readonly Token[]): string {
  return tokens.map(block).join('');
}

function block(token: Token): string {
  switch (token.type) {
    case 'heading':
    case 'paragraph':
      return `${inline(token.tokens ?? [])}\n\n`;
    case 'text':
      return `${token.tokens ? inline(token.tokens) : decodeEntities(token.text)}\n`;
    case 'code':
      return `${token.text}\n\n`;
    case 'blockquote':
      return `${tokensToText(token.tokens ?? [])}\n\n`;
    case 'list':
      return `${list(token as Tokens.List)}\n`;
    case 'table': {
      const table = token as Tokens.Table;
      const rows = [table.header, ...table.rows].map((cells) => cells.map((c) => inline(c.tokens)).join('\t'));
      return `${rows.join('\n')}\n\n`;
    }
    case 'html':
      return `${htmlBlock(token as Tokens.HTML).text}\n\n`;
    case 'hr':
    case 'space':
      return '\n\n';
    case 'def':
      return '';
    default: {
      const generic = token as Tokens.Generic;
      return generic.tokens ? tokensToText(generic.tokens) : '';
    }
  }
}

const htmlBlocks = new WeakMap<Tokens.HTML, { markdown: string; text: string }>();

/** An HTML block of a Markdown document as Markdown and text, parsed once however many renderings read it. */
export function htmlBlock(token: Tokens.HTML): { markdown: string; text: string } {
  let parts = htmlBlocks.get(token);
  if (!parts) {
    parts = htmlFragmentToMarkdown(token.text);
    htmlBlocks.set(token, parts);
  }
  return parts;
}

function list(token: Tokens.List): string {
  let number = typeof token.start === 'number' ? token.start : 1;
  return token.items
    .map((item) => {
      const body = tokensToText(item.tokens).replace(/\n+$/, '');
      number = itemNumber(item, number);
      const marker = token.ordered ? `${number++}. ` : '';
      return `${marker}${body.split('\n').map((l, j) => (j === 0 || l === '' ? l : `  ${l}`)).join('\n')}\n`;
    })
    .join('');
}

/**
 * The number an ordered item is written with: Markdown renders a list's items
 * from its start on, but the written numbers are the document's (Word lists
 * that restart or jump keep their numbers in one list).
 */
export function itemNumber(item: Tokens.ListItem, next: number): number {
  const written = /^\s*(\d{1,9})[.)]/.exec(item.raw)?.[1];
  return written === undefined ? next : Number(written);
}

function inline(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        out += token.tokens ? inline(token.tokens) : decodeEntities(token.text);
        break;
      case 'escape':
      case 'codespan':
        out += token.text;
        break;
      case 'image':
        out += token.text;
        break;
      case 'br':
        out += '\n';
        break;
      case 'html':
        out += /^<br\b/i.test(token.text) ? '\n' : '';
        break;
      case 'checkbox':
        break;
      default: {
        const generic = token as Tokens.Generic;
        out += generic.tokens ? inline(generic.tokens) : String(generic.text ?? '');
      }
    }
  }
  return out;
}
