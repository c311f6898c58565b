import { posix } from 'node:path';
import { load } from 'cheerio/slim';
import type { AnyNode } from 'domhandler';
import { SourceError } from '../../../shared/source-errors.js';
import { assertNesting } from '../html/extract-html.js';
import { nodesToMarkdownAndText } from '../html/to-markdown.js';
import { asArray, OfficePackage, textOf, type XmlNode } from '../office/office-package.js';
import type { ExtractionWarning, RawExtraction } from '../types.js';

/** Limits of one book's extraction. */
export interface EpubOptions {
  /** Refuse (`too_complex`) when the parts declare more than this many bytes unpacked. Default 256 MiB. */
  maxUnpackedBytes?: number;
  /** Stop adding chapters once the Markdown is this long (the caller cuts it exactly). */
  maxTextChars: number;
  /** Refuse (`too_complex`) a chapter whose elements nest deeper than this, as a web page. Default HTML_MAX_DEPTH's. */
  maxHtmlDepth?: number;
}

const DOCUMENT_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

/**
 * Extracts an EPUB (2 or 3): the chapters of the spine in order, each
 * through the service's HTML-to-Markdown conversion (headings, lists,
 * tables, links as text), with the title from the package metadata. Scripts,
 * styles and embedded objects are dropped and nothing the book links to,
 * inside or outside the archive, is read: only the spine's own documents.
 * A book whose content is encrypted (DRM, `META-INF/encryption.xml` naming
 * a spine document) fails `encrypted`. The ZIP gets the DOCX bomb checks.
 */
export async function extractEpub(bytes: Uint8Array, opts: EpubOptions): Promise<RawExtraction> {
  const pkg = await OfficePackage.open(bytes, 'EPUB', opts.maxUnpackedBytes);
  const container = pkg.xml('META-INF/container.xml')?.container as XmlNode | undefined;
  const rootfile = asArray((container?.rootfiles as XmlNode | undefined)?.rootfile)[0];
  const opfPath = String(rootfile?.['@full-path'] ?? '');
  const opf = opfPath ? (pkg.xml(opfPath)?.package as XmlNode | undefined) : undefined;
  if (!opf) throw new SourceError('corrupt', 'The EPUB has no package document: it is damaged or not an e-book.');

  const base = posix.dirname(opfPath) === '.' ? '' : posix.dirname(opfPath);
  const manifest = new Map(asArray((opf.manifest as XmlNode | undefined)?.item).map((item) => [String(item['@id']), item]));
  const spine = asArray((opf.spine as XmlNode | undefined)?.itemref)
    .map((ref) => manifest.get(String(ref['@idref'])))
    .filter((item): item is XmlNode => item !== undefined && DOCUMENT_TYPES.has(String(item['@media-type'])))
    .map((item) => posix.normalize(posix.join(base, decodeURIComponent(String(item['@href'] ?? '')).replace(/[#?].*$/, ''))));
  const encrypted = encryptedParts(pkg);
  if (spine.some((part) => encrypted.has(part.toLowerCase()))) throw new SourceError('encrypted', 'The EPUB is protected (its chapters are encrypted).');

  const chapters: string[] = [];
  let length = 0;
  let left = 0;
  for (const part of spine) {
    if (length > opts.maxTextChars) {
      left += 1;
      continue;
    }
    const html = pkg.has(part) ? pkg.text(part) : undefined;
    if (!html) continue;
    assertNesting(html, opts.maxHtmlDepth, `Chapter ${posix.basename(part)} of the EPUB`);
    const $ = load(html);
    const body = $('body').get(0);
    const markdown = body ? nodesToMarkdownAndText((body.children ?? []) as AnyNode[], { imageAlt: 'content' }).markdown.trim() : '';
    if (!markdown) continue;
    chapters.push(markdown);
    length += markdown.length + 2;
  }
  const metadata = opf.metadata as XmlNode | undefined;
  const title = firstText(metadata?.title);
  const byline = bylineFor(authors(metadata), chapters[0] ?? '');
  if (byline) chapters.unshift(byline);
  const warnings: ExtractionWarning[] = left > 0 ? [{ code: 'partial_text', message: `The last ${left} chapters were not read: the book's text is longer than the limit.` }] : [];
  return { markdown: chapters.join('\n\n'), ...(title ? { title } : {}), ...(left > 0 ? { truncated: true, warnings } : {}) };
}

/** Parts named by `META-INF/encryption.xml` (lower-cased); fonts obfuscated this way are harmless, chapters are not. */
function encryptedParts(pkg: OfficePackage): Set<string> {
  const encryption = pkg.xml('META-INF/encryption.xml')?.encryption as XmlNode | undefined;
  const out = new Set<string>();
  for (const data of asArray(encryption?.EncryptedData)) {
    const uri = (((data.CipherData as XmlNode | undefined)?.CipherReference as XmlNode | undefined)?.['@URI']);
    if (typeof uri === 'string') out.add(posix.normalize(decodeURIComponent(uri)).toLowerCase());
  }
  return out;
}

/**
 * The book's authors from the package metadata: each `dc:creator` whose role
 * is the author's (`aut`) or not given, as EPUB 2 (`opf:role`) or EPUB 3
 * (a `meta` refining the creator's id) says it; illustrators, editors and the like are left out.
 */
export function authors(metadata: XmlNode | undefined): string[] {
  const roles = new Map<string, string>();
  for (const meta of asArray(metadata?.meta)) {
    const refines = String(meta['@refines'] ?? '');
    if (meta['@property'] === 'role' && refines.startsWith('#')) roles.set(refines.slice(1), textOf(meta).trim());
  }
  const out: string[] = [];
  const creators: unknown[] = Array.isArray(metadata?.creator) ? metadata.creator : metadata?.creator === undefined ? [] : [metadata.creator];
  for (const creator of creators) {
    // A creator without attributes is parsed as a bare string.
    const node = (creator !== null && typeof creator === 'object' ? creator : { '#text': creator }) as XmlNode;
    const role = String(node['@role'] ?? roles.get(String(node['@id'] ?? '')) ?? 'aut');
    const name = textOf(node).replace(/\s+/g, ' ').trim();
    if (role === 'aut' && name && !out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * A `by …` paragraph naming the authors, to open the book's Markdown: the
 * extraction has no author field, and a line of the text is where a reader
 * and a search find it. Left out when the opening chapter already names
 * every author (a title page does).
 */
function bylineFor(names: string[], opening: string): string | undefined {
  if (names.length === 0) return undefined;
  const head = opening.slice(0, 4000).toLowerCase();
  if (names.every((n) => head.includes(n.toLowerCase()))) return undefined;
  return `by ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}`;
}

function firstText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return textOf(first).replace(/\s+/g, ' ').trim() || undefined;
}
