import { Lexer, type Token, type Tokens } from 'marked';
import { SourceError } from '../../shared/source-errors.js';
import { decodeText } from '../text-decode.js';
import { htmlFragmentToText } from './html.js';
import { decodeEntities } from './html-text.js';
import type { RawExtraction } from './types.js';

// marked's time grows faster than cubically with list nesting (800 levels take seconds);
// 500 characters of indentation and markers is far beyond any real document.
const MAX_PREFIX = 500;
const PREFIX = /^(?:[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t])+/gm;

/**
 * Extracts the words of a Markdown document from marked's token tree (not by
 * stripping syntax with patterns): headings and paragraphs as paragraphs,
 * list items as lines, table cells tab-separated, code kept as text, link and
 * image text kept without their targets, HTML blocks reduced to their text.
 */
export async function extractMarkdown(bytes: Uint8Array): Promise<RawExtraction> {
  const { text: source } = decodeText(bytes);
  if (containerPrefix(source) > MAX_PREFIX) {
    throw new SourceError('too_complex', 'The Markdown nests lists or quotes too deeply to read.');
  }
  try {
    return { markdown: blocks(new Lexer({ gfm: true }).lex(source)) };
  } catch (err) {
    if (err instanceof RangeError) throw new SourceError('too_complex', 'The Markdown is nested too deeply to read.');
    throw err;
  }
}

/** The longest run of indentation, quote and list markers that opens a line. */
function containerPrefix(source: string): number {
  let max = 0;
  for (const m of source.matchAll(PREFIX)) max = Math.max(max, m[0].length);
  return max;
}

function blocks(tokens: readonly Token[]): string {
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
      return `${blocks(token.tokens ?? [])}\n\n`;
    case 'list':
      return `${(token as Tokens.List).items.map((item) => blocks(item.tokens).replace(/\n+$/, '\n')).join('')}\n`;
    case 'table': {
      const table = token as Tokens.Table;
      const rows = [table.header, ...table.rows].map((cells) => cells.map((c) => inline(c.tokens)).join('\t'));
      return `${rows.join('\n')}\n\n`;
    }
    case 'html':
      return `${htmlFragmentToText(token.text)}\n\n`;
    case 'hr':
    case 'space':
      return '\n\n';
    case 'def':
      return '';
    default: {
      const generic = token as Tokens.Generic;
      return generic.tokens ? blocks(generic.tokens) : '';
    }
  }
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
