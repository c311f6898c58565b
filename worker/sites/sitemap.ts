import { gunzipSync } from 'node:zlib';

/** Largest sitemap once decompressed (the sitemap protocol's own limit is 50 MB). */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Entries read from one sitemap (the protocol's limit). */
export const SITEMAP_MAX_ENTRIES = 50_000;

/** A sitemap's entries: pages (`<urlset>`) or further sitemaps (`<sitemapindex>`). */
export interface SitemapEntries {
  kind: 'urlset' | 'index';
  locs: string[];
  /** More entries than {@link SITEMAP_MAX_ENTRIES}: the rest were not read. */
  truncated: boolean;
}

const GZIP_MAGIC = [0x1f, 0x8b];
const LOC = /<(?:[\w-]+:)?loc\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?loc\s*>/gi;
const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Reads a sitemap's bytes: gzip is inflated with a cap on the output (a
 * gzip bomb stops at {@link SITEMAP_MAX_BYTES}); XML is scanned for `<loc>`
 * elements without a DTD, so no entity is ever defined or expanded: a
 * document that declares one is refused, and only the five predefined
 * entities and character references are decoded. A text sitemap (one URL
 * a line) is read too. Throws a plain Error for a sitemap that cannot be read.
 */
export function parseSitemap(bytes: Uint8Array): SitemapEntries {
  const text = decode(bytes);
  if (!text.trimStart().startsWith('<')) return textSitemap(text);
  if (/<!ENTITY/i.test(text)) throw new Error('the sitemap declares XML entities');
  const kind = /<(?:[\w-]+:)?sitemapindex\b/i.test(text) ? 'index' : 'urlset';
  const locs: string[] = [];
  let truncated = false;
  for (const m of text.matchAll(LOC)) {
    if (locs.length >= SITEMAP_MAX_ENTRIES) {
      truncated = true;
      break;
    }
    const loc = decodeXmlText(m[1]!).trim();
    if (loc) locs.push(loc);
  }
  return { kind, locs, truncated };
}

function decode(bytes: Uint8Array): string {
  let raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (raw[0] === GZIP_MAGIC[0] && raw[1] === GZIP_MAGIC[1]) {
    try {
      raw = gunzipSync(raw, { maxOutputLength: SITEMAP_MAX_BYTES });
    } catch (err) {
      throw new Error(err instanceof RangeError ? `the sitemap inflates past ${SITEMAP_MAX_BYTES} bytes` : 'the sitemap is not valid gzip');
    }
  }
  if (raw.length > SITEMAP_MAX_BYTES) throw new Error(`the sitemap is larger than ${SITEMAP_MAX_BYTES} bytes`);
  return raw.toString('utf8');
}

function textSitemap(text: string): SitemapEntries {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => /^https?:\/\//i.test(l));
  return { kind: 'urlset', locs: lines.slice(0, SITEMAP_MAX_ENTRIES), truncated: lines.length > SITEMAP_MAX_ENTRIES };
}

/** Character data of a `<loc>`: CDATA kept as is, the predefined entities and character references decoded. */
function decodeXmlText(s: string): string {
  const cdata = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/.exec(s);
  if (cdata) return cdata[1]!;
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|\w+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return XML_ENTITIES[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
