import { Lexer, type Token, type Tokens } from 'marked';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { decodeText } from '../../text-decode.js';
import { escapeLineStart, escapeText } from '../common/escape-markdown.js';
import { htmlBlock, itemNumber, tokensToText } from './token-walker.js';
import type { RawExtraction } from '../types.js';

// marked's time grows faster than cubically with list nesting (800 levels take seconds);
// 500 characters of indentation and markers is far beyond any real document.
const MAX_PREFIX = 500;
const PREFIX = /^(?:[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t])+/gm;

/**
 * Re-emits a Markdown document as normalized Markdown from marked's token
 * tree: ATX headings, `-` bullets and renumbered ordered lists (keeping their
 * start), fenced code, GFM tables, links reduced to their text, images to
 * their alt text, HTML blocks converted, reference definitions dropped. The
 * title is the first level-1 heading. The plain text is read from the same
 * tokens, so the source is lexed once.
 */
export async function extractMarkdown(bytes: Uint8Array): Promise<RawExtraction> {
  const { text: source } = decodeText(bytes);
  if (containerPrefix(source) > MAX_PREFIX) {
    throw new SourceError('too_complex', 'The Markdown nests lists or quotes too deeply to read.');
  }
  try {
    const tokens = new Lexer({ gfm: true }).lex(source);
    const h1 = tokens.find((t): t is Tokens.Heading => t.type === 'heading' && t.depth === 1);
    const title = h1 ? tokensToText([h1]).replace(/\s+/g, ' ').trim() : '';
    return { markdown: blocks(tokens), text: tokensToText(tokens), ...(title ? { title } : {}) };
  } catch (err) {
    if (isAllocationFailure(err)) throw err;
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
  return tokens.map(block).filter((b) => b !== '').join('\n\n');
}

function block(token: Token): string {
  switch (token.type) {
    case 'heading': {
      const text = inline(token.tokens ?? []).replace(/\s*\n\s*/g, ' ').trim();
      return text ? `${'#'.repeat(token.depth)} ${text}` : '';
    }
    case 'paragraph':
      return inline(token.tokens ?? []).trim();
    case 'text':
      return token.tokens ? inline(token.tokens).trim() : escapeText(token.text);
    case 'code': {
      let fence = '```';
      while (token.text.includes(fence)) fence += '`';
      return `${fence}${token.lang ?? ''}\n${token.text}\n${fence}`;
    }
    case 'blockquote': {
      const inner = blocks(token.tokens ?? []);
      return inner ? inner.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n') : '';
    }
    case 'list':
      return list(token as Tokens.List);
    case 'table': {
      const table = token as Tokens.Table;
      const line = (cells: Tokens.TableCell[]) => `| ${cells.map((c) => inline(c.tokens).replace(/\s*\n\s*/g, ' ').trim()).join(' | ')} |`;
      return [line(table.header), `|${' --- |'.repeat(table.header.length)}`, ...table.rows.map(line)].join('\n');
    }
    case 'html':
      return htmlBlock(token as Tokens.HTML).markdown;
    case 'hr':
      return '---';
    case 'space':
    case 'def':
      return '';
    default: {
      const generic = token as Tokens.Generic;
      return generic.tokens ? blocks(generic.tokens) : '';
    }
  }
}

function list(token: Tokens.List): string {
  let number = typeof token.start === 'number' ? token.start : 1;
  const items = token.items.map((item) => {
    if (token.ordered) number = itemNumber(item, number);
    const marker = token.ordered ? `${number++}.` : '-';
    const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const parts = item.tokens.filter((t) => t.type !== 'checkbox');
    const body = item.loose ? blocks(parts) : parts.map(block).filter((b) => b !== '').join('\n');
    const pad = ' '.repeat(marker.length + 1);
    return `${marker} ${check}${body.split('\n').map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n')}`.trimEnd();
  });
  return items.join(token.loose ? '\n\n' : '\n');
}

function inline(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        out += token.tokens ? inline(token.tokens) : token.raw;
        break;
      case 'escape':
      case 'codespan':
        out += token.raw;
        break;
      case 'strong':
        out += `**${inline(token.tokens ?? [])}**`;
        break;
      case 'em':
        out += `*${inline(token.tokens ?? [])}*`;
        break;
      case 'del':
        out += `~~${inline(token.tokens ?? [])}~~`;
        break;
      case 'image':
        out += escapeText(token.text);
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
        out += generic.tokens ? inline(generic.tokens) : escapeText(String(generic.text ?? ''));
      }
    }
  }
  return out.includes('\n') ? out.split('\n').map((l, i) => (i === 0 ? l : escapeLineStart(l.trimStart()))).join('\n') : out;
}
