/**
 * Escaping for text written into Markdown, shared by every format that
 * writes Markdown (HTML and DOCX through the HTML walk, Markdown itself).
 */

const WORD = /[\p{L}\p{N}]/u;
const LINE_MARKER = /^[#\-+*\d>=_`~]/;

/**
 * Escapes what would otherwise read as markup inside a line: HTML-like tags,
 * backslash escapes, and asterisks and underscores that could open emphasis
 * (an underscore inside a word cannot, so snake_case stays as it is).
 */
export function escapeText(text: string): string {
  if (!/[\\<*_]/.test(text)) return text;
  return text
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/</g, '\\<')
    .replace(/\*/g, '\\*')
    .replace(/_/g, (_m, i: number, s: string) => (WORD.test(s[i - 1] ?? '') && WORD.test(s[i + 1] ?? '') ? '_' : '\\_'));
}

/** Escapes a marker that would turn a line of text into a heading, list item, quote or rule. */
export function escapeLineStart(line: string): string {
  if (!LINE_MARKER.test(line)) return line;
  return line
    .replace(/^(#{1,6})(?=\s|$)/, '\\$1')
    .replace(/^([-+*])(?=\s|$)/, '\\$1')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
    .replace(/^>/, '\\>')
    .replace(/^(=+|-{3,}|_{3,}|\*{3,})\s*$/, '\\$1')
    .replace(/^(`{3,}|~{3,})/, '\\$1');
}
