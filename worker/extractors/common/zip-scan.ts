import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { SourceError } from '../../../shared/source-errors.js';
import { LIMIT_DEFAULTS } from '../../../shared/runtime/limit-defaults.js';

/** One central-directory entry, with the sizes the archive declares. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** Bomb limits checked on the declared sizes before anything is inflated. */
export interface ZipLimits {
  /** Default 5000; real documents have tens to hundreds. */
  maxEntries: number;
  /** Sum of declared uncompressed sizes. Default 256 MiB. */
  maxTotalBytes: number;
  /** Uncompressed to compressed, over the whole archive once it passes 16 MiB. Default 100. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 5000, maxTotalBytes: LIMIT_DEFAULTS.DOCX_MAX_UNPACKED_MB * 1024 * 1024, maxRatio: 100 };
const RATIO_FLOOR = 16 * 1024 * 1024;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Reads the central directory and rejects archives whose declared sizes make
 * them a decompression bomb (`too_complex`); an archive without a readable
 * central directory is `corrupt`. Declared sizes can lie:
 * {@link checkInflatedSizes} holds the archive to them, and the sandbox's
 * memory cap is the backstop.
 */
export function scanZip(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(buf);
  if (eocd < 0) throw new SourceError('corrupt', 'The DOCX is damaged: its ZIP directory is missing (truncated file?).');
  const count = buf.readUInt16LE(eocd + 10);
  const offset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new SourceError('too_complex', 'The DOCX is a ZIP64 archive, which is not supported.');
  if (count > limits.maxEntries) throw new SourceError('too_complex', `The DOCX holds ${count} files; at most ${limits.maxEntries} are allowed.`);

  const entries: ZipEntry[] = [];
  let total = 0;
  let compressed = 0;
  for (let p = offset, i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL) throw new SourceError('corrupt', 'The DOCX is damaged: its ZIP directory is unreadable.');
    const nameLength = buf.readUInt16LE(p + 28);
    const entry: ZipEntry = {
      name: buf.toString('utf8', p + 46, p + 46 + nameLength),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      uncompressedSize: buf.readUInt32LE(p + 24),
      localHeaderOffset: buf.readUInt32LE(p + 42),
    };
    total += entry.uncompressedSize;
    compressed += entry.compressedSize;
    entries.push(entry);
    p += 46 + nameLength + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  if (total > limits.maxTotalBytes) {
    throw new SourceError('too_complex', `The DOCX would decompress to ${mb(total)}; at most ${mb(limits.maxTotalBytes)} is allowed.`);
  }
  if (total > RATIO_FLOOR && total > compressed * limits.maxRatio) {
    throw new SourceError('too_complex', `The DOCX decompresses more than ${limits.maxRatio}:1, which looks like a ZIP bomb.`);
  }
  return entries;
}

/**
 * Inflates every deflated entry without keeping its bytes and refuses the
 * archive (`too_complex`) as soon as one yields more than its directory entry
 * declares, so the sizes {@link scanZip} judged hold for whatever reads the
 * archive next. Costs one inflate pass, stopped at the first lie; data that
 * does not inflate is left for the real reader to call corrupt.
 */
export async function checkInflatedSizes(bytes: Uint8Array, entries: readonly ZipEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.method !== 8) continue;
    const data = entryData(bytes, entry);
    if (data && !(await inflatesWithin(data, entry.uncompressedSize))) {
      throw new SourceError('too_complex', 'A part of the DOCX inflates to more than its ZIP header declares, which looks like a ZIP bomb.');
    }
  }
}

function inflatesWithin(data: Buffer, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    let produced = 0;
    inflate.on('data', (chunk: Buffer) => {
      produced += chunk.length;
      if (produced > limit) {
        inflate.destroy();
        resolve(false);
      }
    });
    inflate.on('end', () => resolve(true));
    inflate.on('error', () => resolve(true));
    inflate.end(data);
  });
}

/** The stored bytes of an entry, or undefined when its local header is not where the directory says. */
function entryData(bytes: Uint8Array, entry: ZipEntry): Buffer | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const p = entry.localHeaderOffset;
  if (p + 30 > buf.length || buf.readUInt32LE(p) !== LOCAL) return undefined;
  const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  return buf.subarray(start, start + entry.compressedSize);
}

/** Inflates one small entry (at most `maxBytes`), or undefined when it cannot be read. */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes = 1024 * 1024): Buffer | undefined {
  const data = entry.uncompressedSize > maxBytes ? undefined : entryData(bytes, entry);
  if (!data) return undefined;
  try {
    if (entry.method === 0) return data;
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    // An unreadable metadata part only costs the title.
  }
  return undefined;
}

function findEocd(buf: Buffer): number {
  const stop = Math.max(0, buf.length - 22 - 0xffff);
  for (let p = buf.length - 22; p >= stop; p--) {
    if (buf.readUInt32LE(p) === EOCD) return p;
  }
  return -1;
}
