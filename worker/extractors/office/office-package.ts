import { posix } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { SourceError } from '../../../shared/source-errors.js';
import { checkInflatedSizes, DEFAULT_ZIP_LIMITS, readZipEntry, scanZip, type ZipEntry } from '../common/zip-scan.js';
import { decodeXmlText, XmlScanner } from './xml-scan.js';

/** An XML element as fast-xml-parser gives it: attributes under `@name`, text under `#text`. */
export type XmlNode = Record<string, unknown>;

/**
 * A zipped office package (OOXML or OpenDocument) opened with the DOCX
 * checks: declared sizes, entry count and ratio before anything is inflated,
 * then that no part inflates past its declared size. Part names are matched
 * without case and with `\` read as `/` (POI's bug 49609 workbooks).
 */
export class OfficePackage {
  private readonly byName = new Map<string, ZipEntry>();

  private constructor(
    private readonly bytes: Uint8Array,
    entries: readonly ZipEntry[],
    private readonly kind: string,
  ) {
    for (const e of entries) this.byName.set(normalizePart(e.name), e);
  }

  /** Opens `bytes`, throwing `too_complex` for a bomb and `corrupt` for a ZIP without a directory. */
  static async open(bytes: Uint8Array, kind: string, maxUnpackedBytes = DEFAULT_ZIP_LIMITS.maxTotalBytes): Promise<OfficePackage> {
    try {
      const entries = scanZip(bytes, { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: maxUnpackedBytes });
      await checkInflatedSizes(bytes, entries);
      return new OfficePackage(bytes, entries, kind);
    } catch (err) {
      // The ZIP checks were written for DOCX and say so; name the format actually read.
      if (err instanceof SourceError) throw new SourceError(err.code, err.message.replace(/\bDOCX\b/g, kind), err.retryable);
      throw err;
    }
  }

  has(name: string): boolean {
    return this.byName.has(normalizePart(name));
  }

  /** The text of a part, or undefined when there is no such part. A part that cannot be inflated is `corrupt`. */
  text(name: string): string | undefined {
    const entry = this.byName.get(normalizePart(name));
    if (!entry) return undefined;
    const data = readZipEntry(this.bytes, entry, Math.max(entry.uncompressedSize, 1));
    if (!data) throw new SourceError('corrupt', `The ${this.kind} is damaged: its part ${entry.name} cannot be read.`);
    if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
    if (data[0] === 0xfe && data[1] === 0xff) return Buffer.from(data.subarray(2)).swap16().toString('utf16le');
    return data.toString('utf8');
  }

  /**
   * Parses an XML part. A part declaring a DOCTYPE is refused (`corrupt`)
   * before any parser sees it: office parts never have one, and without it
   * there is no entity to expand and no external file to fetch.
   */
  xml(name: string): XmlNode | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    return parseOfficeXml(text, `${this.kind} part ${name}`);
  }

  /**
   * A tag-by-tag reader of an XML part (see {@link XmlScanner}), for parts
   * too large to parse into objects; a DOCTYPE is refused as by {@link xml}.
   */
  scan(name: string): XmlScanner | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    refuseDoctype(text, `${this.kind} part ${name}`);
    return new XmlScanner(text);
  }

  /** Parses an XML part keeping the order of mixed children (see {@link parseOrderedXml}). */
  orderedXml(name: string): OrderedNode[] | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    return parseOrderedXml(text, `${this.kind} part ${name}`);
  }

  /** Targets of a part's relationships by id, resolved to part names (`xl/worksheets/sheet1.xml`); external targets are left out. */
  relationships(part: string): Map<string, { target: string; type: string }> {
    // The package's own relationships (`''`) live in `_rels/.rels`; their targets are relative to the root.
    const dir = part === '' ? '' : posix.dirname(normalizePart(part));
    const rels = this.xml(posix.join(dir, '_rels', `${part === '' ? '' : posix.basename(normalizePart(part))}.rels`));
    const out = new Map<string, { target: string; type: string }>();
    for (const rel of asArray((rels?.Relationships as XmlNode | undefined)?.Relationship)) {
      if (rel['@TargetMode'] === 'External') continue;
      const target = String(rel['@Target'] ?? '').replace(/\\/g, '/');
      const resolved = target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(dir === '.' ? '' : dir, target));
      out.set(String(rel['@Id'] ?? ''), { target: resolved, type: String(rel['@Type'] ?? '') });
    }
    return out;
  }
}

/** Parses office XML with namespace prefixes removed and the entities of {@link decodeXmlText} only. */
export function parseOfficeXml(text: string, what: string): XmlNode {
  refuseDoctype(text, what);
  try {
    return PARSER.parse(text) as XmlNode;
  } catch {
    throw new SourceError('corrupt', `The ${what} is not well-formed XML.`);
  }
}

/** Throws `corrupt` for XML declaring a DOCTYPE: office parts never have one, and without it no entity can be declared. */
function refuseDoctype(text: string, what: string): void {
  if (/<!DOCTYPE/i.test(text)) throw new SourceError('corrupt', `The ${what} declares a DOCTYPE, which office files never do; it is not read.`);
}

/**
 * One element of an order-preserving parse: `{ tag: children, ':@': attributes }`,
 * or `{ '#text': text }` for text.
 */
export type OrderedNode = Record<string, unknown>;

/** Like {@link parseOfficeXml}, keeping children in document order (slides mix shapes, tables and groups). */
export function parseOrderedXml(text: string, what: string): OrderedNode[] {
  refuseDoctype(text, what);
  try {
    return ORDERED.parse(text) as OrderedNode[];
  } catch {
    throw new SourceError('corrupt', `The ${what} is not well-formed XML.`);
  }
}

const OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  tagValueProcessor: (_name: string, value: string) => decodeXmlText(value),
  attributeValueProcessor: (_name: string, value: string) => decodeXmlText(value),
} as const;
const ORDERED = new XMLParser({ ...OPTIONS, preserveOrder: true });

const PARSER = new XMLParser(OPTIONS);

/** A repeated element comes as an array, a single one as an object: always an array. */
export function asArray(value: unknown): XmlNode[] {
  if (value === undefined || value === null || value === '') return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is XmlNode => typeof v === 'object' && v !== null);
}

/** The text of an element that may be a bare string or `{ '#text': ... }`. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && '#text' in value) return String((value as XmlNode)['#text']);
  return '';
}

function normalizePart(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

/** The title in an OOXML package's `docProps/core.xml`; metadata that cannot be read only costs the title. */
export function coreTitle(pkg: OfficePackage): string | undefined {
  try {
    const core = pkg.xml('docProps/core.xml')?.coreProperties as XmlNode | undefined;
    return textOf(core?.title).replace(/\s+/g, ' ').trim() || undefined;
  } catch {
    return undefined;
  }
}
