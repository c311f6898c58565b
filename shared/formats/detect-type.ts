import { fileTypeFromBuffer } from 'file-type';
import { DEFAULT_ACCEPTED_FORMATS, FORMAT_MIME, type SourceFormat } from './formats.js';
import { decodeBytes, detectBom, sniffTextEncoding, type TextEncoding } from './text-encoding.js';

/** The API passes at most this many leading bytes of an upload. */
export const SNIFF_BYTES = 1024 * 1024;

/** What the client said about a file; used only to tell Markdown from plain text. */
export interface DetectHints {
  filename?: string;
  declaredType?: string;
}

/** A supported format (possibly a password-protected Office file), or why not. */
export type Detection =
  | { ok: true; format: SourceFormat; mimeType: string; encrypted?: true }
  | { ok: false; message: string };

// Archives that are zips underneath but not Word documents.
const ZIP_FAMILY = new Set(['zip', 'xlsx', 'pptx', 'docm', 'dotx', 'dotm', 'xlsm', 'pptm', 'odt', 'ods', 'odp', 'epub', 'jar', 'apk', 'vsdx', '3mf']);
// The zips among them that have an extractor. A macro-enabled workbook is read like any other; its macros never run.
const ZIP_FORMATS: Record<string, SourceFormat> = { xlsx: 'xlsx', xlsm: 'xlsx', pptx: 'pptx', ods: 'ods', odt: 'odt', epub: 'epub' };
const OOXML: readonly SourceFormat[] = ['docx', 'xlsx', 'pptx'];
// Images read by OCR (file-type's extensions): PNG, JPEG, TIFF of one or more pages, WebP.
const IMAGE_EXTS = new Set(['png', 'jpg', 'tif', 'webp']);
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage\0', 'utf16le');
const STRONG_HTML = /^<(?:!doctype\s+html|html|head|body)[\s>/]/i;
const WEAK_HTML = /^(?:<!--|<(?:a|b|br|div|font|h[1-6]|iframe|link|meta|p|script|style|table|title)[\s>/])/i;
const LEADING_NOISE = /^(?:\s+|<!--[\s\S]*?-->|<\?xml[^>]*>)+/;

/**
 * Tells what a file is from its content, never from its name: PDF, DOCX and
 * the other Office, OpenDocument and EPUB zips and images (PNG, JPEG, TIFF,
 * WebP) by magic number, a CFB
 * container with an `EncryptedPackage` stream as an encrypted Office file
 * (reported as DOCX: the container does not say what it holds), and text
 * (BOM, UTF-8 or a clean single-byte guess) as HTML when it starts with
 * markup, else Markdown or CSV when the name or declared type says so, else
 * TXT. Then the deployment's policy: a format outside `accepted` is refused,
 * except that Markdown and CSV fall back to TXT. `complete` is false when
 * `bytes` is only the first {@link SNIFF_BYTES} of a longer upload.
 */
export async function detectType(
  bytes: Uint8Array,
  hints: DetectHints,
  complete: boolean,
  accepted: readonly SourceFormat[] = DEFAULT_ACCEPTED_FORMATS,
): Promise<Detection> {
  const found = await detectFormat(bytes, hints, complete);
  if (!found.ok) return found;
  const { ext, ...detection } = found;
  if (accepted.includes(found.format)) return detection;
  // Refused as before images were a format, with the same words.
  if (found.format === 'image') return unsupported(`The file is ${found.mimeType}, which is not a supported document type.`);
  if (found.encrypted) return OOXML.some((f) => accepted.includes(f)) ? detection : unsupported('The file is a password-protected Office document.');
  if ((found.format === 'csv' || found.format === 'markdown') && accepted.includes('txt')) return supported('txt');
  return unsupported(refusedDetail(found.format, ext ?? found.format, accepted));
}

type Found = Extract<Detection, { ok: false }> | (Extract<Detection, { ok: true }> & { ext?: string });

/** The format the content shows, with the zip's own extension when it has one (`xlsm`), before any policy. */
async function detectFormat(bytes: Uint8Array, hints: DetectHints, complete: boolean): Promise<Found> {
  if (bytes.length === 0) return unsupported('The file is empty.');
  // file-type takes UTF-16 text for MPEG audio, so a byte-order mark is checked first.
  if (detectBom(bytes)) return textDetection(bytes, hints, complete);

  const magic = await fileTypeFromBuffer(bytes);
  if (magic?.ext === 'pdf') return supported('pdf');
  if (magic?.ext === 'docx') return supported('docx');
  if (magic?.ext === 'cfb') {
    if (hasEncryptedPackage(bytes)) return { ...supported('docx'), encrypted: true };
    // The directory lies past the prefix: accept, and let the worker decide on the whole file.
    if (!complete && !directoryInPrefix(bytes)) return supported('docx');
    return unsupported('The file is a legacy Office (OLE2) document such as Word 97 .doc, which is not supported; save it as .docx.');
  }
  if (magic && IMAGE_EXTS.has(magic.ext)) return { ok: true, format: 'image', mimeType: magic.mime };
  const zipFormat = magic ? (ZIP_FORMATS[magic.ext] ?? (magic.ext === 'zip' ? ooxmlByPartNames(bytes) : undefined)) : undefined;
  if (zipFormat) return { ...supported(zipFormat), ext: magic?.ext === 'zip' ? zipFormat : (magic?.ext ?? zipFormat) };
  if (magic && ZIP_FAMILY.has(magic.ext)) {
    return unsupported(`The file is a ${magic.ext === 'zip' ? 'ZIP archive' : `.${magic.ext} file`}, not a Word document.`);
  }
  const text = textDetection(bytes, hints, complete);
  if (!text.ok && magic) return unsupported(`The file is ${magic.mime}, which is not a supported document type.`);
  return text;
}

/** Why a recognised format is refused; at the default policy, the words used before there was one. */
function refusedDetail(format: SourceFormat, ext: string, accepted: readonly SourceFormat[]): string {
  if (ZIP_FORMAT_SET.has(format) && accepted.includes('docx') && !accepted.some((f) => ZIP_FORMAT_SET.has(f))) {
    return `The file is a .${ext} file, not a Word document.`;
  }
  return `The file is a .${ext} file, which this service does not accept.`;
}
const ZIP_FORMAT_SET = new Set<SourceFormat>(Object.values(ZIP_FORMATS));

/**
 * A zip that file-type does not name may still be a workbook or a deck whose
 * part names use backslashes (Apache POI's bug 49609): the names of the first
 * local headers tell.
 */
function ooxmlByPartNames(bytes: Uint8Array): SourceFormat | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64 * 1024)).toString('latin1');
  if (/xl[\\/]workbook\.xml/.test(head)) return 'xlsx';
  if (/ppt[\\/]presentation\.xml/.test(head)) return 'pptx';
  return undefined;
}

function textDetection(bytes: Uint8Array, hints: DetectHints, complete: boolean): Detection {
  const encoding = sniffTextEncoding(bytes, complete);
  if (!encoding) return unsupported('The file is binary data, not a PDF, DOCX or text document.');
  const markup = htmlSignal(bytes, encoding);
  if (markup === 'strong') return supported('html');
  if (isMarkdownHint(hints)) return supported('markdown');
  if (markup === 'weak') return supported('html');
  return supported(isCsvHint(hints) ? 'csv' : 'txt');
}

/** `strong` for a doctype or html/head/body tag at the start; `weak` for a common tag or comment there. */
function htmlSignal(bytes: Uint8Array, encoding: TextEncoding): 'strong' | 'weak' | undefined {
  const head = decodeBytes(bytes.subarray(encoding.bomLength, encoding.bomLength + 4096), encoding.encoding);
  const start = head.replace(/^\ufeff/, '');
  const rest = start.replace(LEADING_NOISE, '');
  if (STRONG_HTML.test(rest)) return 'strong';
  if (WEAK_HTML.test(rest) || (rest !== start && rest.startsWith('<'))) return 'weak';
  // Only comments in the sample: still markup.
  return rest === '' && start !== '' && /<!--/.test(start) ? 'weak' : undefined;
}

function isMarkdownHint(hints: DetectHints): boolean {
  const type = hints.declaredType?.split(';')[0]?.trim().toLowerCase();
  return /\.(?:md|markdown)$/i.test(hints.filename ?? '') || type === 'text/markdown' || type === 'text/x-markdown';
}

function isCsvHint(hints: DetectHints): boolean {
  const type = hints.declaredType?.split(';')[0]?.trim().toLowerCase();
  return /\.(?:csv|tsv|tab)$/i.test(hints.filename ?? '') || type === 'text/csv' || type === 'text/tab-separated-values';
}

/**
 * Looks for a CFB directory entry named `EncryptedPackage`. Directory entries
 * are 128 bytes and sectors start on 512-byte boundaries, so every entry sits
 * on a 128-byte boundary; scanning those avoids walking the FAT chain.
 */
function hasEncryptedPackage(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let off = 512; off + 128 <= buf.length; off += 128) {
    if (buf[off + 0x40] === ENCRYPTED_PACKAGE.length && buf[off + 0x42] === 2
      && buf.compare(ENCRYPTED_PACKAGE, 0, ENCRYPTED_PACKAGE.length, off, off + ENCRYPTED_PACKAGE.length) === 0) return true;
  }
  return false;
}

/** True when the first CFB directory sector named by the header lies within `bytes`. */
function directoryInPrefix(bytes: Uint8Array): boolean {
  if (bytes.length < 512) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sectorSize = 2 ** view.getUint16(0x1e, true);
  const firstDirectorySector = view.getUint32(0x30, true);
  return (firstDirectorySector + 2) * sectorSize <= bytes.length;
}

function supported(format: SourceFormat): Extract<Detection, { ok: true }> {
  return { ok: true, format, mimeType: FORMAT_MIME[format] };
}

function unsupported(message: string): Detection {
  return { ok: false, message };
}
