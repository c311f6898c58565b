import type { AnyNode, Element } from 'domhandler';
import { escapeText } from '../common/escape-markdown.js';
import { nodesToText } from './to-text.js';

/** The content's Markdown and plain text, rendered with its headings `headingShift` levels down. */
export type Render = (headingShift: number) => { markdown: string; text: string };

/**
 * The page's `<title>` as the root of every heading path: the title as a
 * first-level heading above the content, whose own headings go one level
 * down when it has a first-level heading of its own. A content that already
 * opens with the title as its heading, or with the title's own part of it
 * ("Install" under "Install — Guide 1.0"), keeps that heading as the root
 * (one heading, not two). A content without headings gets the title above
 * it too, and when its first line is the title (a bold line standing for a
 * heading) that line becomes the heading rather than being said twice. No
 * title is added above an empty content, nor when the title names no page
 * (see {@link isPlaceholderTitle}).
 */
export function underTitle(nodes: AnyNode[], title: string | undefined, skip: (el: Element, inContent: boolean) => boolean,
  render: Render): { markdown: string; text: string } {
  if (!title) return render(0);
  const headings = headingsIn(nodes);
  const first = headings[0];
  if (!first) return isPlaceholderTitle(title) ? render(0) : headed(title, render(0));
  if (namesPage(headingText(first, skip), title)) return render(0);
  return titleAbove(title, render(headings.some((h) => h.name === 'h1') ? 1 : 0));
}

function titleAbove(title: string, { markdown, text }: { markdown: string; text: string }): { markdown: string; text: string } {
  return markdown === '' ? { markdown, text } : { markdown: `# ${escapeText(title)}\n\n${markdown}`, text: `${title}\n\n${text}` };
}

/** A content without headings under its title: its first line made the heading when that line is the title. */
function headed(title: string, { markdown, text }: { markdown: string; text: string }): { markdown: string; text: string } {
  // A first paragraph of one line (not a list item, quote, table row, rule or fence) that says the title.
  const block = /^[^\n]*(?=\n\n|$)/.exec(markdown)?.[0];
  const line = block && !BLOCK_MARK.test(block) ? plainLine(block) : undefined;
  if (line && namesPage(line, title) && text.startsWith(line)) return { markdown: `# ${escapeText(line)}${markdown.slice(block!.length)}`, text };
  return titleAbove(title, { markdown, text });
}

const BLOCK_MARK = /^(?:[-+*] |\d{1,9}[.)] |>|\||`{3}|~{3}|-{3}|#)/;

/** A line of Markdown as its text: emphasis marks and backslash escapes off, spaces collapsed. */
function plainLine(md: string): string {
  return md.replace(/\*\*|\\(?=[!-/:-@[-`{-~])/g, '').replace(/^\*(.*)\*$/, '$1').replace(/\s+/g, ' ').trim();
}

// Titles that name no page: what an editor writes into a new page, and the root of a site.
const PLACEHOLDERS = /^(?:untitled(?: (?:document|page))?|new (?:document|page)|document|page|title|home|home ?page|index|default)$/i;
const FILE_NAME = /^[^\s/\\]+\.(?:s?html?|xhtml|php\d?|aspx?|jsp|cgi|txt)$/i;
// A URL, a path, or a host as a server writes it (lower-case, so "ASP.NET" or "Node.js" stay names).
const ADDRESS = /^(?:[a-z][a-z\d+.-]*:\/\/\S+|\/\S*|www\.\S+|[a-z\d-]+(?:\.[a-z\d-]+)*\.(?:com|org|net|edu|gov|io|dev|app|info|co|uk|de|fr|jp|cn|ru|nl|it|es|ca|au|in|br|ch|se|eu|us)(?::\d+)?(?:\/\S*)?)$/;

/**
 * True when a `<title>` names no page, so that it roots no heading path of a
 * page without headings: an editor's placeholder ("Untitled Document",
 * "New Page", "Home", "Index"), a file name ("index.html") or a bare
 * address ("example.com", "https://example.com/a", "/docs/a"), as servers
 * and generators write when nothing else was given. A site's name alone
 * cannot be told from a page's without the address, so it roots the page.
 */
export function isPlaceholderTitle(title: string): boolean {
  const t = title.replace(/\s+/g, ' ').trim();
  return PLACEHOLDERS.test(t) || FILE_NAME.test(t) || ADDRESS.test(t);
}

// What sets a page's own name apart from the site's in a <title>: "Page — Site 1.0", "Site | Page", "Site: Page".
const TITLE_PARTS = /\s+(?:[—–|·•»«-]|::)\s+|:\s+/;

/** True when `heading` is the page's title or the page's part of it, before or after the site's name. */
export function namesPage(heading: string, title: string): boolean {
  if (heading === '') return false;
  if (heading === title) return true;
  const parts = title.split(TITLE_PARTS);
  return parts.length > 1 && (parts[0] === heading || parts.at(-1) === heading);
}

/** A heading's words as its Markdown heading says them: an image's alt only when the heading has no other words. */
function headingText(heading: Element, skip: (el: Element, inContent: boolean) => boolean): string {
  const words = nodesToText([heading], { skip: (el, inContent) => el.name === 'img' || skip(el, inContent) }).replace(/\s+/g, ' ').trim();
  return words || nodesToText([heading], { skip, imageAlt: 'content' }).replace(/\s+/g, ' ').trim();
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
