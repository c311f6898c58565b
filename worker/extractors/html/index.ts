import type { FormatExtractor } from '../types.js';
import { extractHtml } from './extract-html.js';

/** HTML: the page's main content as Markdown, without its chrome (see {@link extractHtml}). */
export const extract: FormatExtractor = (bytes, opts) => extractHtml(bytes, opts.maxHtmlDepth);
