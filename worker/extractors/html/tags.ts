/**
 * The HTML tag vocabulary: which elements are left out, which make blocks,
 * lines or cells, and which mark inline text. The text walk, the Markdown
 * walk and the main-content scoring all read it from here (lower-case names).
 */

/** Never rendered: metadata, scripts, embedded content and form controls (text or Markdown). */
export const SKIPPED: ReadonlySet<string> = new Set([
  'head', 'title', 'meta', 'link', 'base', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'frame', 'object', 'embed', 'canvas',
  'audio', 'video', 'map', 'select', 'input', 'button', 'textarea', 'datalist',
]);

/**
 * Not measured when the article is scored: Readability's own list. It is
 * narrower than {@link SKIPPED} on purpose: the scores (and so which article
 * is chosen) are calibrated against Readability's.
 */
export const UNMEASURED: ReadonlySet<string> = new Set([
  'head', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'embed', 'canvas', 'select', 'button', 'textarea', 'input',
]);

/** The page's own content: inside these, page-edge chrome (header, footer) is kept. */
export const CONTENT: ReadonlySet<string> = new Set(['main', 'article']);

/** Table cells. */
export const CELL: ReadonlySet<string> = new Set(['td', 'th']);

/** Plain text: blocks followed by a blank line. */
export const PARAGRAPH_BLOCK: ReadonlySet<string> = new Set([
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dl', 'figure', 'hr',
  'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'form', 'fieldset', 'address', 'details', 'center',
]);

/** Plain text: blocks followed by a line break. */
export const LINE_BLOCK: ReadonlySet<string> = new Set(['div', 'li', 'tr', 'dt', 'dd', 'br', 'caption', 'summary', 'legend', 'figcaption', 'option', 'body']);

/** Markdown: elements rendered as the blocks they hold, with no markup of their own. */
export const CONTAINER: ReadonlySet<string> = new Set([
  'html', 'body', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'form', 'fieldset', 'address', 'details',
  'summary', 'figure', 'figcaption', 'center', 'caption', 'legend', 'dl', 'dt', 'dd', 'li', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'hgroup', 'option', 'p',
]);

/** Markdown: containers that the plain text puts on their own line rather than in their own paragraph. */
export const LINE_CONTAINER: ReadonlySet<string> = new Set(['div', 'dt', 'dd', 'caption', 'figcaption', 'summary', 'legend', 'option']);

/** Markdown: elements that make blocks of their own (besides headings). */
export const BLOCK: ReadonlySet<string> = new Set([...CONTAINER, 'ul', 'ol', 'menu', 'pre', 'blockquote', 'table', 'hr']);

/** `h1`–`h6`; the group is the level. */
export const HEADING = /^h([1-6])$/;

/** Inline mark: bold (`**`). */
export const STRONG: ReadonlySet<string> = new Set(['b', 'strong']);
/** Inline mark: italic (`*`). */
export const EMPHASIS: ReadonlySet<string> = new Set(['i', 'em']);
/** Inline mark: a code span. */
export const CODE: ReadonlySet<string> = new Set(['code', 'kbd', 'samp', 'tt']);

/**
 * Inline elements a Markdown author writes as HTML. Any other bare `<word>`
 * in Markdown text is a placeholder ("set style line <index>") and is kept
 * as text rather than dropped as an unknown tag.
 */
export const INLINE_HTML: ReadonlySet<string> = new Set([
  ...STRONG, ...EMPHASIS, ...CODE, 'a', 'abbr', 'bdi', 'bdo', 'big', 'br', 'cite', 'data', 'del', 'details', 'dfn', 'div', 'font', 'img', 'ins',
  'mark', 'p', 'q', 'rp', 'rt', 'ruby', 's', 'small', 'span', 'strike', 'sub', 'summary', 'sup', 'time', 'u', 'var', 'wbr',
]);

/** Elements without content or an end tag (the nesting-depth scan skips them). */
export const VOID: ReadonlySet<string> = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param']);

/** Closed implicitly by their next sibling, so they do not deepen the tree. */
export const SELF_CLOSING: ReadonlySet<string> = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'thead', 'tbody', 'tfoot', 'rb', 'rt', 'rp']);
