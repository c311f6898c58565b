import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import { scanMarkup, SLICE_CHARS } from './markup-scan.js';

/** Largest sitemap once decompressed (the sitemap protocol's own limit is 50 MB). */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Entries read from one sitemap (the protocol's limit). */
export const SITEMAP_MAX_ENTRIES = 50_000;
/** Time one sitemap's parse may spend on the event loop in all (a 50 MB sitemap takes about 2 s). */
export const SITEMAP_PARSE_BUDGET_MS = 10_000;
/** Deepest element nesting read: a sitemap needs three levels, its extensions one or two more. */
export const SITEMAP_MAX_DEPTH = 32;
/** Longest `<loc>` or text line kept; a URL is far shorter. */
const LOC_MAX_CHARS = 8 * 1024;
/** Elements whose `<loc>` child is an entry (an extension's, such as `<image:loc>`, is not). */
const LOC_PARENTS = new Set(['url', 'sitemap', 'urlset', 'sitemapindex']);

/** A sitemap's entries: pages (`<urlset>`) or further sitemaps (`<sitemapindex>`). */
export interface SitemapEntries {
  kind: 'urlset' | 'index';
  locs: string[];
  /**
   * Each page entry's `<lastmod>`, in seconds since the epoch, by the index
   * of its `locs` entry; 0 when it has none or it is no W3C datetime.
   */
  lastmods: number[];
  /** More entries than {@link SITEMAP_MAX_ENTRIES}: the rest were not read. */
  truncated: boolean;
}

/** Why a sitemap was not read. */
export type SitemapProblem = 'not_gzip' | 'too_large' | 'entities' | 'too_deep' | 'too_slow';

/** A sitemap that cannot be read or is over a bound: final, the discovery skips it and goes on. */
export class SitemapError extends Error {
  override readonly name = 'SitemapError';

  constructor(
    readonly problem: SitemapProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a sitemap's bytes in one linear pass that gives the event loop a
 * turn every few milliseconds (see `scanMarkup`): gzip is inflated as a
 * stream, off the loop, and stops at {@link SITEMAP_MAX_BYTES} (a gzip bomb
 * inflates no further); reading stops at {@link SITEMAP_MAX_ENTRIES}
 * entries (`truncated`). XML is read without a DTD, so no entity is ever
 * defined or expanded: a document that declares one is refused, and only
 * the five predefined entities and character references are decoded; CDATA
 * is kept as is, and element names match whatever their prefix. A text
 * sitemap (one URL a line) is read too. Rejects with a {@link SitemapError}
 * for a sitemap that cannot be read, nests elements deeper than
 * {@link SITEMAP_MAX_DEPTH} or takes more than
 * {@link SITEMAP_PARSE_BUDGET_MS} of the loop.
 */
export async function parseSitemap(bytes: Uint8Array): Promise<SitemapEntries> {
  const chunks = decodedText(bytes);
  let head = '';
  for (;;) {
    const next = await chunks.next();
    if (next.done) break;
    head = next.value.trimStart();
    if (head) break;
    await nextTurn();
  }
  async function* rest(): AsyncGenerator<string> {
    yield head;
    yield* chunks;
  }
  return head.startsWith('<') ? xmlSitemap(rest()) : textSitemap(rest());
}

async function xmlSitemap(chunks: AsyncIterable<string>): Promise<SitemapEntries> {
  const out: SitemapEntries = { kind: 'urlset', locs: [], lastmods: [], truncated: false };
  const open: string[] = [];
  let rooted = false;
  /** The text of the `<loc>` or `<lastmod>` being read. */
  let loc: string | undefined;
  let refused: SitemapError | undefined;
  /** The current `<url>`'s entry (index in `locs`) once its `<loc>` is read, and its `<lastmod>` when read first. */
  let entry = -1;
  let lastmod = 0;
  const add = (text: string) => {
    if (loc === undefined) return;
    loc = loc.length + text.length > LOC_MAX_CHARS ? undefined : loc + text;
  };
  const ended = await scanMarkup(chunks, { xmlMode: true, budgetMs: SITEMAP_PARSE_BUDGET_MS }, (ctx) => {
    const refuse = (err: SitemapError) => {
      refused = err;
      ctx.stop();
    };
    const nameOf = (start: number, end: number) => (end - start > 128 ? '' : localName(ctx.text(start, end)));
    return {
      onopentagname(start, end) {
        loc = undefined; // markup inside a <loc> spoils it
        if (open.length >= SITEMAP_MAX_DEPTH) return refuse(new SitemapError('too_deep', `the sitemap nests elements more than ${SITEMAP_MAX_DEPTH} deep`));
        const name = nameOf(start, end);
        if (!rooted) out.kind = name === 'sitemapindex' ? 'index' : 'urlset';
        rooted = true;
        if (name === 'loc' && LOC_PARENTS.has(open.at(-1) ?? '')) loc = '';
        if (name === 'lastmod' && open.at(-1) === 'url') loc = '';
        if (name === 'url') [entry, lastmod] = [-1, 0];
        open.push(name);
      },
      onselfclosingtag() {
        open.pop();
        loc = undefined;
      },
      onclosetag(start, end) {
        const name = nameOf(start, end);
        // Bounded by SITEMAP_MAX_DEPTH; a close tag of nothing open is ignored, as the old scan did.
        const at = open.lastIndexOf(name);
        if (at < 0) return;
        open.length = at;
        const text = name === 'loc' || name === 'lastmod' ? loc?.trim() : undefined;
        loc = undefined;
        if (!text) return;
        if (name === 'lastmod') {
          lastmod = w3cSeconds(text);
          if (entry >= 0) out.lastmods[entry] = lastmod;
          return;
        }
        if (out.locs.length >= SITEMAP_MAX_ENTRIES) {
          out.truncated = true;
          return ctx.stop();
        }
        if (open.at(-1) === 'url') entry = out.locs.length;
        out.locs.push(text);
        out.lastmods.push(open.at(-1) === 'url' ? lastmod : 0);
      },
      ontext: (start, end) => add(ctx.text(start, end)),
      ontextentity: (codepoint) => add(String.fromCodePoint(codepoint)),
      oncdata: (start, end, endOffset) => add(ctx.text(start, end - endOffset)),
      ondeclaration(start, end) {
        // `<!DOCTYPE x [<!ENTITY …` reaches here up to its first `>`, each later declaration on its own, without the `<!`.
        if (/(?:^|<!)\s*ENTITY\b/i.test(ctx.text(start, end))) refuse(new SitemapError('entities', 'the sitemap declares XML entities'));
      },
    };
  });
  if (refused) throw refused;
  if (ended === 'over_time') throw new SitemapError('too_slow', `the sitemap took more than ${SITEMAP_PARSE_BUDGET_MS / 1000} s to read`);
  return out;
}

async function textSitemap(chunks: AsyncIterable<string>): Promise<SitemapEntries> {
  const out: SitemapEntries = { kind: 'urlset', locs: [], lastmods: [], truncated: false };
  let carry = '';
  let inLongLine = false;
  const take = (line: string): boolean => {
    const url = line.trim();
    if (!/^https?:\/\//i.test(url)) return true;
    if (out.locs.length >= SITEMAP_MAX_ENTRIES) return !(out.truncated = true);
    out.locs.push(url);
    out.lastmods.push(0);
    return true;
  };
  for await (const chunk of chunks) {
    const lines = (carry + chunk).split('\n');
    carry = lines.pop()!;
    if (inLongLine && lines.length > 0) {
      lines.shift();
      inLongLine = false;
    }
    for (const line of lines) if (!take(line)) return out;
    // A line longer than any URL is no entry: what follows of it is dropped as it comes.
    if (carry.length > LOC_MAX_CHARS) {
      carry = '';
      inLongLine = true;
    }
    await nextTurn();
  }
  if (!inLongLine) take(carry);
  return out;
}

/** The sitemap's text, inflated when gzipped, in slices of at most {@link SLICE_CHARS} bytes. */
async function* decodedText(bytes: Uint8Array): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  if (!(bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    if (bytes.length > SITEMAP_MAX_BYTES) throw new SitemapError('too_large', `the sitemap is larger than ${SITEMAP_MAX_BYTES} bytes`);
    for (let at = 0; at < bytes.length; at += SLICE_CHARS) yield decoder.decode(bytes.subarray(at, at + SLICE_CHARS), { stream: true });
    yield decoder.decode();
    return;
  }
  const gunzip = createGunzip({ chunkSize: SLICE_CHARS });
  gunzip.end(bytes);
  let inflated = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > SITEMAP_MAX_BYTES) throw new SitemapError('too_large', `the sitemap inflates past ${SITEMAP_MAX_BYTES} bytes`);
      yield decoder.decode(chunk, { stream: true });
    }
  } catch (err) {
    throw err instanceof SitemapError ? err : new SitemapError('not_gzip', 'the sitemap is not valid gzip');
  } finally {
    gunzip.destroy();
  }
  yield decoder.decode();
}

/** A W3C datetime (`2026-11-03`, `2026-11-03T10:00:00+01:00`, …) in seconds since the epoch; 0 when it is none. */
function w3cSeconds(text: string): number {
  if (!/^\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?)?)?$/.test(text)) return 0;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
}

/** An element's name without its prefix, in lower case (`sm:LOC` is `loc`). */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}
