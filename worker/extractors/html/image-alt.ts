import type { AnyNode, Element } from 'domhandler';

/**
 * Which image descriptions are part of a page's text. A content image's
 * `alt` says what the picture shows (an illustration's caption in a book, a
 * diagram in a manual), and pandoc keeps it; the alt of a logo, an icon, a
 * spacer or a navigation button is not text a reader would miss.
 */

// Formulas drawn as images, their TeX in `alt` (Doxygen's formulaInl and formulaDsp, MediaWiki's tex and latex).
const FORMULA = /(?:^|\s)(?:formulaInl|formulaDsp|tex|latex|mwe-math-fallback-image-inline|mwe-math-fallback-image-display)(?:\s|$)/i;
// Decoration named by its class, id or file: logos, icons, avatars, badges, spacers, tracking pixels.
const DECORATION = /logo|icon|avatar|emoji|badge|spacer|sprite|pixel|bullet|arrow|button|banner/i;
// What a converter or a camera names an image, or an editor's placeholder: "Illo3", "image001", "IMG_1234", "photo".
const LABEL = /^(?:[\p{L}_-]{0,12}\d+[\w-]*|image|img|picture|photo|graphic|figure|icon|logo|untitled|spacer|placeholder)$/iu;
const FILE_NAME = /^\S+\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?|ico|avif)$/i;
// The words of navigation buttons drawn as images (DocBook's and Texinfo's arrows, "Home", "Up").
const NAVIGATION = /^(?:prev(?:ious)?|next|up|home|top|back|forward|index|contents|toc|search|menu|print|close)$/i;
const CHROME = new Set(['nav', 'header', 'footer', 'menu']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'menu', 'menubar']);
// Icons are drawn at text size; an illustration is larger.
const MAX_ICON = 32;

/** An image of a formula, whose `alt` (its TeX) is part of the text even where other images' alts are not. */
export function isFormula(el: Element): boolean {
  return FORMULA.test(el.attribs?.class ?? '');
}

/** Which images' `alt` a walk keeps: every one, content images' only, or (undefined) formulas' only. */
export type AltText = 'all' | 'content';

/**
 * The text an `img` adds, or undefined: the TeX of a formula always; with
 * `all`, any `alt` (a DOCX image's description is the author's); with
 * `content` (an EPUB's chapters), the `alt` of a content image: not empty, not marked decorative
 * (`role="presentation"` or `"none"`), not a file name or a label such as
 * "Illo3", not a navigation word, not a logo, icon or spacer (by its class,
 * id, file or a drawn size of at most 32 pixels), not inside navigation,
 * a header or a footer, not a link to another page, and not said again by
 * its figure's caption.
 */
export function imageText(el: Element, mode?: AltText): string | undefined {
  const alt = el.attribs?.alt?.replace(/\s+/g, ' ').trim();
  if (!alt) return undefined;
  if (mode === 'all' || isFormula(el)) return alt;
  if (mode !== 'content') return undefined;
  const a = el.attribs;
  if (a.role === 'presentation' || a.role === 'none') return undefined;
  if (FILE_NAME.test(alt) || LABEL.test(alt) || NAVIGATION.test(alt)) return undefined;
  if (DECORATION.test(`${a.class ?? ''} ${a.id ?? ''} ${a.src ?? ''}`)) return undefined;
  const width = Number.parseInt(a.width ?? '', 10);
  const height = Number.parseInt(a.height ?? '', 10);
  if ((width > 0 && width <= MAX_ICON) || (height > 0 && height <= MAX_ICON)) return undefined;
  return inChromeOrCaptioned(el, alt) ? undefined : alt;
}

/** True when the image sits in navigation, a header or a footer, links to another page, or is in a figure whose caption says the alt. */
function inChromeOrCaptioned(el: Element, alt: string): boolean {
  for (let p = el.parent as Element | null, i = 0; p && p.type === 'tag' && i < 64; p = p.parent as Element | null, i++) {
    const name = p.name.toLowerCase();
    if (CHROME.has(name) || CHROME_ROLES.has(p.attribs.role?.toLowerCase() ?? '')) return true;
    // A picture linking to another page is a teaser for it (a related story, a button); one linking to its own larger copy is content.
    if (name === 'a' && p.attribs.href && !/^#|\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?|avif)(?:[?#].*)?$/i.test(p.attribs.href)) return true;
    if (name === 'figure') {
      const caption = p.children.find((c) => c.type === 'tag' && (c as Element).name.toLowerCase() === 'figcaption') as Element | undefined;
      return caption !== undefined && textOf(caption).replace(/\s+/g, ' ').trim() === alt;
    }
  }
  return false;
}

/** The text inside `el`, walked with its own stack (an EPUB chapter's depth is not bounded before this). */
function textOf(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [...el.children].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') out += (node as unknown as { data: string }).data;
    else if (node.type === 'tag') for (let i = (node as Element).children.length - 1; i >= 0; i--) stack.push((node as Element).children[i]!);
  }
  return out;
}
