import { Lexer, type Token, type Tokens } from 'marked';
import { assertNesting } from '../html/extract-html.js';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { decodeText } from '../text-decode.js';
import type { RawExtraction } from '../types.js';
import { blockText, renderTokens } from './token-walker.js';

// marked's time grows faster than cubically with list nesting (800 levels take seconds);
// 500 characters of indentation and markers is far beyond any real document.
const MAX_PREFIX = 500;
const PREFIX = /^(?:[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t])+/gm;

/**
 * Re-emits a Markdown document as normalized Markdown from marked's token
 * tree (see {@link renderTokens}), and its plain text from the same walk, so
 * the source is lexed and walked once. The title is the first level-1 heading.
 */
export async function extractMarkdown(bytes: Uint8Array, maxHtmlDepth?: number): Promise<RawExtraction> {
  const { text: source } = decodeText(bytes);
  if (containerPrefix(source) > MAX_PREFIX) {
    throw new SourceError('too_complex', 'The Markdown nests lists or quotes too deeply to read.');
  }
  try {
    const tokens = new Lexer({ gfm: true }).lex(source);
    checkHtmlBlocks(tokens, maxHtmlDepth);
    const h1 = tokens.find((t): t is Tokens.Heading => t.type === 'heading' && t.depth === 1);
    const title = h1 ? blockText(h1).replace(/\s+/g, ' ').trim() : '';
    const { markdown, text } = renderTokens(tokens);
    return { markdown, text, ...(title ? { title } : {}) };
  } catch (err) {
    if (isAllocationFailure(err)) throw err;
    if (err instanceof RangeError) throw new SourceError('too_complex', 'The Markdown is nested too deeply to read.');
    throw err;
  }
}

/**
 * Refuses a document with an HTML block nested deeper than `maxDepth`
 * before any block is converted (see {@link assertNesting}). Only blocks are
 * checked: a `<placeholder>` in running text is not an element.
 */
function checkHtmlBlocks(tokens: readonly Token[], maxDepth: number | undefined): void {
  for (const token of tokens) {
    if (token.type === 'html') assertNesting((token as Tokens.HTML).text, maxDepth, 'An HTML block of the Markdown');
    const inner = token as { tokens?: Token[]; items?: Token[] };
    if (inner.tokens) checkHtmlBlocks(inner.tokens, maxDepth);
    if (inner.items) checkHtmlBlocks(inner.items, maxDepth);
  }
}

/** The longest run of indentation, quote and list markers that opens a line. */
function containerPrefix(source: string): number {
  let max = 0;
  for (const m of source.matchAll(PREFIX)) max = Math.max(max, m[0].length);
  return max;
}
