// Character references in text no HTML parser reads (Markdown text, OOXML metadata): these few
// names are enough there; full HTML goes through the parser, which knows them all.
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™',
  mdash: '—', ndash: '–', hellip: '…', laquo: '«', raquo: '»', middot: '·', times: '×', rarr: '→', larr: '←',
};

/** Decodes numeric and common named character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));/gi, (whole, dec?: string, hex?: string, name?: string) => {
    const code = dec ? Number(dec) : hex ? parseInt(hex, 16) : undefined;
    if (code !== undefined) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    return NAMED[name?.toLowerCase() ?? ''] ?? whole;
  });
}
