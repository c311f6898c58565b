import { load } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { decodeText } from '../text-decode.js';
import { nodesToMarkdownAndText, type MarkdownOptions } from './to-markdown.js';
import { findMainContent, isPageTool } from './main-content.js';
import { generatorMain, generatorOf, isTexi2htmlChrome } from './generator-main.js';
import { SELF_CLOSING, VOID } from './tags.js';
import { underTitle } from './title-root.js';
import { expandVimHelp } from './vim-help.js';
import type { RawExtraction } from '../types.js';
import { LIMIT_DEFAULTS } from '../../../shared/runtime/limit-defaults.js';

const CHROME = new Set(['nav', 'aside', 'dialog', 'form', 'menu']);
const EDGE = new Set(['header', 'footer']);
const CHROME_ROLES = new Set(['navigation', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar']);
const EDGE_ROLES = new Set(['banner', 'contentinfo']);
const NOTE_ROLES = new Set(['note', 'doc-footnote', 'doc-endnote', 'doc-endnotes']);
const BANNER = /(?:^|[\s_-])(?:cookie|consent|gdpr)(?:$|[\s_-])/i;
// parse5 and htmlparser2 slow down quadratically with depth (100000 nested divs take
// over a minute); real pages stay under a few hundred levels and Blink caps the tree at 512.
const MAX_DEPTH: number = LIMIT_DEFAULTS.HTML_MAX_DEPTH;
const TAGS = /<!--[\s\S]*?-->|<(script|style|textarea|title)\b[\s\S]*?<\/\1\s*>|<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g;

/**
 * Extracts the main content of an HTML page as Markdown (and its plain text):
 * `<title>` as title and the root heading above the content (see {@link underTitle});
 * scripts, styles, hidden elements and page chrome
 * (navigation, skip and edit links, asides, banners, forms, share bars,
 * related-story blocks, header/footer outside the content) left out. The
 * content is the main container a documentation generator or the page names
 * (see {@link generatorMain}) taken whole, else the article found by
 * Readability-style scoring, else the whole body. A Vim help page's `<pre>` is read
 * as sections first (see {@link expandVimHelp}); texi2html's navigation bars are
 * chrome. Nothing the page references is fetched.
 */
export async function extractHtml(bytes: Uint8Array, maxDepth = MAX_DEPTH): Promise<RawExtraction> {
  const { text: source } = decodeText(bytes, { html: true });
  assertNesting(source, maxDepth, 'The HTML');
  try {
    const $ = load(source);
    const title = $('title').first().text().replace(/\s+/g, ' ').trim() || undefined;
    const body = $('body').get(0) ?? $.root().get(0);
    if (!body) return { markdown: '', title };
    const chrome = (el: Element, inContent: boolean) => isChrome(el, inContent) || isPageTool(el);
    // A Vim help page is one <pre>: it becomes sections before the content is looked for.
    if (body.type === 'tag') expandVimHelp($, body);
    const named = body.type === 'tag' ? generatorMain($, body) : undefined;
    const main = named || body.type !== 'tag' ? undefined : findMainContent(body, isChrome);
    const texi2html = named !== undefined && body.type === 'tag' && /texi2html/i.test(generatorOf($, body));
    const textOf = (el: Element) => $(el).text();
    const [nodes, skip]: [AnyNode[], (el: Element, inContent: boolean) => boolean] = named
      ? [named, (el) => chrome(el, true) || isGeneratorChrome(el) || (texi2html && isTexi2htmlChrome(el, textOf))]
      : main?.nodes ? [main.nodes, (el) => main.removed.has(el)] : [[body], chrome];
    return { ...underTitle(nodes, title, skip, (headingShift) => nodesToMarkdownAndText(nodes, { skip, headingShift })), title };
  } catch (err) {
    if (isAllocationFailure(err)) throw err;
    if (err instanceof RangeError) throw new SourceError('too_complex', 'The HTML is nested too deeply to read.');
    throw err;
  }
}

// Navigation panels and permalink marks that documentation generators put inside their content.
// (Docutils' `toc-backref` is not one: it is the link a heading's own text is wrapped in.)
const GENERATOR_CHROME = /(?:^|\s)(?:headerlink|navheader|navfooter|nav-panel|navigation|related|sphinxsidebar)(?:\s|$)/i;

function isGeneratorChrome(el: Element): boolean {
  return GENERATOR_CHROME.test(el.attribs.class ?? '');
}

/** Converts an HTML fragment (a Markdown HTML block) to Markdown and its plain text, without chrome removal. */
export function htmlFragmentToMarkdown(html: string, opts: MarkdownOptions = {}): { markdown: string; text: string } {
  const $ = load(html, null, false);
  return nodesToMarkdownAndText($.root().toArray() as AnyNode[], opts);
}

/**
 * Refuses (`too_complex`) HTML that nests elements deeper than `maxDepth`
 * (default HTML_MAX_DEPTH's), before a parser sees it: parsing slows down
 * quadratically with depth. `what` names it in the message ("The HTML").
 */
export function assertNesting(html: string, maxDepth: number = MAX_DEPTH, what = 'The HTML'): void {
  if (nestingDepth(html) > maxDepth) throw new SourceError('too_complex', `${what} nests elements more than ${maxDepth} levels deep.`);
}

/** Estimates the tree depth from a linear scan of the tags (unclosed tags count as open). */
export function nestingDepth(html: string): number {
  let depth = 0;
  let max = 0;
  for (const m of html.matchAll(TAGS)) {
    const name = m[3]?.toLowerCase();
    if (!name || VOID.has(name) || SELF_CLOSING.has(name) || m[4]) continue;
    depth = m[2] ? Math.max(0, depth - 1) : depth + 1;
    if (depth > max) max = depth;
  }
  return max;
}

function isChrome(el: Element, inContent: boolean): boolean {
  // The document root (a page without <html>/<body>) has no name or attributes.
  if (el.type !== 'tag') return false;
  const name = el.name.toLowerCase();
  const role = el.attribs.role?.toLowerCase();
  // Docutils 0.18 and later write footnotes as <aside class="footnote" role="note">: content, not a sidebar.
  if (name === 'aside' && (NOTE_ROLES.has(role ?? '') || /(?:^|\s)(?:footnote|footnote-list|citation|citation-list)(?:\s|$)/.test(el.attribs.class ?? ''))) return false;
  if (CHROME.has(name) || (role !== undefined && CHROME_ROLES.has(role))) return true;
  if (!inContent && (EDGE.has(name) || (role !== undefined && EDGE_ROLES.has(role)))) return true;
  if (name === 'main' || name === 'article' || name === 'body') return false;
  return BANNER.test(el.attribs.id ?? '') || BANNER.test(el.attribs.class ?? '');
}
