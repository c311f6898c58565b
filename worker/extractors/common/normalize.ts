/**
 * Normalizes extracted text: `\n` line endings, no control characters other
 * than tab and newline, no trailing spaces, at most one blank line in a row,
 * trimmed. Form feeds (page breaks in plain text) become paragraph breaks.
 */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u0085]/g, '\n')
    .replace(/[\f\u2029]/g, '\n\n')
    .replace(/\v/g, '\n')
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufeff]/g, '')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Cuts `text` to at most `max` UTF-16 code units without splitting a
 * surrogate pair. `truncated` is true when anything was cut.
 */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end).trimEnd(), truncated: true };
}

/** Collapses runs of spaces and tabs inside lines (PDF text items are spaced by position). */
export function collapseSpaces(text: string): string {
  return text.replace(/[ \t\u00a0]{2,}|\t/g, ' ');
}
