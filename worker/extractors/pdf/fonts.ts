import type { PDFDocumentProxy, PDFPageProxy } from './pdfjs.js';

/**
 * Which of a document's fonts are bold, for heading detection. pdf.js names
 * a font in its text items only by an id ("g_d0_f4"); the font's own name
 * ("ABCDEF+CMBX12", "Times-Bold") reaches the page's `commonObjs` only when
 * the page's painting list is built, which costs about as much as reading
 * the page's text. So fonts are named only where bold can make a heading (a
 * document without an outline of two levels or more, which makes headings
 * alone), and only from a light page where a new font sets a line that
 * could be a heading, on a few pages at most (heading fonts appear on a
 * title page or a chapter's first page).
 */

// Bold, black, heavy, semibold and demi weights; URW's "Medi"; TeX's bold extended fonts (CMBX, CMSSBX, cm-super SFBX, EC).
const BOLD_NAME = /bold|black|heavy|semibold|demi|-medi(?:um)?$|^(?:cmbx|cmssbx|cmb\d|sfbx|sfsx|ecbx|ecsx|eusb|lmbx)/i;
// Pages whose painting list is built to name fonts, per document read.
const MAX_NAMING_PAGES = 3;
// A page with more text items than this costs too much to paint (pdf.js builds every glyph's path, as fonts are not
// loaded as font faces here): its fonts wait for a light page (a title page, a chapter's first page).
const MAX_NAMING_ITEMS = 80;
// An item that could be a heading by itself: a few words starting with a capital or a number, not ending a sentence.
const TITLE_ITEM = /^[\p{Lu}\p{N}][^.,;:]{1,79}$/u;

/** A font named by pdf.js: its PostScript name and its bold flag (set for the standard 14 fonts). */
interface LoadedFont {
  name?: string;
  bold?: boolean;
  black?: boolean;
}

/** Whether a font name (with or without its subset prefix "ABCDEF+") is that of a bold face. */
export function isBoldFontName(name: string): boolean {
  return BOLD_NAME.test(name.replace(/^[A-Z]{6}\+/, ''));
}

/** The bold fonts of one document, learnt page by page. */
export class FontWeights {
  readonly #bold = new Map<string, boolean>();
  readonly #doc: PDFDocumentProxy;
  #wanted?: Promise<boolean>;
  #namingPages = 0;

  constructor(doc: PDFDocumentProxy) {
    this.#doc = doc;
  }

  /** Whether the font of this id is bold; false for a font not named (yet). */
  isBold(fontName: string): boolean {
    return this.#bold.get(fontName) ?? false;
  }

  /**
   * Names the fonts of `items` not met before, from the page that shows
   * them. A font left unnamed (no heading-like line of its own on the page,
   * the cap reached, a painting list that fails) is taken as not bold.
   */
  async learn(page: PDFPageProxy, items: ReadonlyArray<{ str: string; fontName: string }>): Promise<void> {
    const unknown = [...new Set(items.map((i) => i.fontName))].filter((n) => !this.#bold.has(n));
    if (unknown.length === 0 || this.#namingPages >= MAX_NAMING_PAGES || items.length > MAX_NAMING_ITEMS) return;
    if (!items.some((i) => TITLE_ITEM.test(i.str.trim()) && !this.#bold.has(i.fontName))) return;
    this.#wanted ??= this.#doc.getOutline().then((outline) => !outline?.some((entry) => entry.items.length > 0), () => true);
    if (await this.#wanted) {
      this.#namingPages++;
      await page.getOperatorList().catch(() => undefined);
    }
    for (const id of unknown) {
      const font = page.commonObjs.has(id) ? (page.commonObjs.get(id) as LoadedFont | undefined) : undefined;
      this.#bold.set(id, Boolean(font?.bold || font?.black || (font?.name && isBoldFontName(font.name))));
    }
  }
}
