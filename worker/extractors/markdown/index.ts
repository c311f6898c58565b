import type { FormatExtractor } from '../types.js';
import { extractMarkdown } from './extract-markdown.js';

/** Markdown: re-emitted as normalized Markdown from its token tree (see {@link extractMarkdown}). */
export const extract: FormatExtractor = (bytes, opts) => extractMarkdown(bytes, opts.maxHtmlDepth);
