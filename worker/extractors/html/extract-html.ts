import { load } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { isAllocationFailure, SourceError } from '../../../shared/source-errors.js';
import { decodeText } from '../../text-decode.js';
import { escapeText } from '../common/escape-markdown.js';
import { nodesToMarkdownAndText, type MarkdownOptions } from './to-markdown.js';
import { findMainContent, isPageTool } from './main-content.js';
import { generatorMain } from './generator-main.js';
import { SELF_CLOSING, VOID } from './tags.js';
import { nodesToText } from './to-text.js';
import type { RawExtraction } from '../types.js';
import { LIMIT_DEFAULTS } from '../../../shared/limit-defaults.js';

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
 * `<title>` as title; scripts, styles, hidden elements and page chrome
 * (navigation, skip and edit links, asides, banners, forms, share bars,
 * related-story blocks, header/footer outside the content) left out. The
 * content is the main container a documentation generator or the page names
 * (see {@link generatorMain}) taken whole, else the article found by
 * Readability-style scoring, else the whole body. Nothing the page references is fetched.
 */
export async function extractHtml(bytes: Uint8Array, maxDepth = MAX_DEPTH): Promise<RawExtraction> {
  const { text: source } = decodeText(bytes, { html: true });
  if (nestingDepth(source) > maxDepth) {
    throw new SourceError('too_complex', `The HTML nests elements more than ${maxDepth} levels deep.`);
  }
  try {
    const $ = load(source);
    const title = $('title').first().text().replace(/\s+/g, ' ').trim() || undefined;
    const body = $('body').get(0) ?? $.root().get(0);
    if (!body) return { markdown: '', title };
    const chrome = (el: Element, inContent: boolean) => isChrome(el, inContent) || isPageTool(el);
    const named = body.type === 'tag' ? generatorMain($, body) : undefined;
    const main = named || body.type !== 'tag' ? undefined : findMainContent(body, isChrome);
    const [nodes, skip]: [AnyNode[], (el: Element, inContent: boolean) => boolean] = named
      ? [named, (el) => chrome(el, true) || isGeneratorChrome(el)]
      : main?.nodes ? [main.nodes, (el) => main.removed.has(el)] : [[body], chrome];
    return { ...underTitle(nodes, title, skip, (headingShift) => nodesToMarkdownAndText(nodes, { skip, headingShift })), title };
  } catch (err) {
    if (isAllocationFailure(err)) throw err;
    if (err instanceof RangeError) throw new SourceError('too_complex', 'The HTML is nested too deeply to read.');
    throw err;
  }
}

/**
 * The page's `<title>` as the root heading of a content that has headings,
 * so that every heading path starts at the page: the content's headings go
 * one level down when it has a first-level heading of its own. A content
 * that already opens with the title as its heading, or with the title's own
 * part of it ("Install" under "Install — Guide 1.0"), keeps that heading as
 * the root (one heading, not two); a content without headings (a page of a
 * few paragraphs) is left as it is.
 */
function underTitle(nodes: AnyNode[], title: string | undefined, skip: (el: Element, inContent: boolean) => boolean,
  render: (headingShift: number) => { markdown: string; text: string }): { markdown: string; text: string } {
  if (!title) return render(0);
  const headings = headingsIn(nodes);
  const first = headings[0];
  if (!first || namesPage(nodesToText([first], { skip }).replace(/\s+/g, ' ').trim(), title)) return render(0);
  const { markdown, text } = render(headings.some((h) => h.name === 'h1') ? 1 : 0);
  return { markdown: [`# ${escapeText(title)}`, markdown].filter(Boolean).join('\n\n'), text: [title, text].filter(Boolean).join('\n\n') };
}

// What sets a page's own name apart from the site's in a <title>: "Page — Site 1.0", "Site | Page", "Site: Page".
const TITLE_PARTS = /\s+(?:[—–|·•»«-]|::)\s+|:\s+/;

/** True when `heading` is the page's title or the page's part of it, before or after the site's name. */
function namesPage(heading: string, title: string): boolean {
  if (heading === '') return false;
  if (heading === title) return true;
  const parts = title.split(TITLE_PARTS);
  return parts.length > 1 && (parts[0] === heading || parts.at(-1) === heading);
}

const HEADING = /^h[1-6]$/;

/**
 * The headings among `nodes` and inside them, in document order. A walk of
 * the tree: cheerio's `find` on many nodes first lists their children and
 * removes those nested in one another, which is quadratic in their number.
 */
function headingsIn(nodes: AnyNode[]): Element[] {
  const found: Element[] = [];
  const stack = [...nodes].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'tag' && HEADING.test((node as Element).name)) found.push(node as Element);
    // Elements, and the document itself when the content is a page without <html> or <body>.
    const children = 'children' in node ? node.children : [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
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
