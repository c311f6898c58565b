/**
 * Which fonts of a page are bold, for heading detection. pdf.js names a font
 * in its text items only by an id ("g_d0_f4"); its patched text layer (see
 * `worker-patches.ts`) also gives, in the page's `styles`, the font's own
 * name ("ABCDEF+CMBX12", "Times-Bold") and the bold and black flags it sets
 * on a standard font it stands in for. So every page tells its bold fonts at
 * no cost. pdf.js as shipped (the patches not matching the installed
 * release) names no font there: nothing is bold then, and headings come from
 * sizes and numbering alone.
 */

// Bold, black, heavy, semibold and demi weights; URW's "Medi"; TeX's bold extended fonts (CMBX, CMSSBX, cm-super SFBX, EC).
const BOLD_NAME = /bold|black|heavy|semibold|demi|-medi(?:um)?$|^(?:cmbx|cmssbx|cmb\d|sfbx|sfsx|ecbx|ecsx|eusb|lmbx)/i;

/** A text style of a page as the patched pdf.js gives it: the font's PostScript name and its weight flags. */
export interface FontStyle {
  name?: string;
  bold?: boolean;
  black?: boolean;
}

/** Whether a font name (with or without its subset prefix "ABCDEF+") is that of a bold face. */
export function isBoldFontName(name: string): boolean {
  return BOLD_NAME.test(name.replace(/^[A-Z]{6}\+/, ''));
}

/** The ids of the bold fonts among a page's text styles (`getTextContent().styles`). */
export function boldFonts(styles: Readonly<Record<string, object | undefined>>): Set<string> {
  const bold = new Set<string>();
  for (const [id, style] of Object.entries(styles) as Array<[string, FontStyle | undefined]>) {
    if (style && (style.bold || style.black || (typeof style.name === 'string' && isBoldFontName(style.name)))) bold.add(id);
  }
  return bold;
}
