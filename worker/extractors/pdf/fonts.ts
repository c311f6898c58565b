import type { PDFPageProxy } from './pdfjs.js';

/**
 * Which of a document's fonts are bold, for heading detection. pdf.js names
 * a font in its text items only by an id ("g_d0_f4"); the font's own name
 * ("ABCDEF+CMBX12", "Times-Bold") reaches the page's `commonObjs` only when
 * the page's painting list is built. That list is built for a page only when
 * it shows a font not met before, so a document costs one build per page
 * that introduces fonts (most fonts appear in the first pages), with a cap.
 */

// Bold, black, heavy, semibold and demi weights; URW's "Medi"; TeX's bold extended fonts (CMBX, CMSSBX, cm-super SFBX, EC).
const BOLD_NAME = /bold|black|heavy|semibold|demi|-medi(?:um)?$|^(?:cmbx|cmssbx|cmb\d|sfbx|sfsx|ecbx|ecsx|eusb|lmbx)/i;
// Pages whose painting list is built to name fonts, per document read.
const MAX_NAMING_PAGES = 12;

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
  #namingPages = 0;

  /** Whether the font of this id is bold; false for a font not named (yet). */
  isBold(fontName: string): boolean {
    return this.#bold.get(fontName) ?? false;
  }

  /**
   * Names the fonts of `fontNames` not met before, from the page that shows
   * them. A page whose painting list fails leaves its fonts unnamed (not bold).
   */
  async learn(page: PDFPageProxy, fontNames: Iterable<string>): Promise<void> {
    const unknown = [...new Set(fontNames)].filter((n) => !this.#bold.has(n));
    if (unknown.length === 0) return;
    if (this.#namingPages < MAX_NAMING_PAGES) {
      this.#namingPages++;
      await page.getOperatorList().catch(() => undefined);
    }
    for (const id of unknown) {
      const font = page.commonObjs.has(id) ? (page.commonObjs.get(id) as LoadedFont | undefined) : undefined;
      this.#bold.set(id, Boolean(font?.bold || font?.black || (font?.name && isBoldFontName(font.name))));
    }
  }
}
