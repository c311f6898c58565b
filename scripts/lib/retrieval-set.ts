import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { RetrievalQuestion } from './retrieval-metrics.js';

/** A Debian package whose installed documentation the set reads. */
export interface SetSource {
  package: string;
  /** The version the questions were written against (others may move a phrase). */
  version: string;
  format: 'html' | 'txt' | 'markdown';
  /** Installed paths; `*` in the last part matches any run of characters. */
  files: string[];
}

export interface RetrievalSet {
  sources: SetSource[];
  /** `question`: asked in full, with its small words ("How can I ..."); `terse`: a few keywords or a command. */
  questions: (RetrievalQuestion & { package: string; style: 'question' | 'terse' })[];
}

/** A document as it is uploaded: a file name the service types by its extension, and its bytes. */
export interface SetDocument {
  package: string;
  name: string;
  bytes: Buffer;
}

export const loadRetrievalSet = (path: string): RetrievalSet => JSON.parse(readFileSync(path, 'utf8')) as RetrievalSet;

const EXTENSION: Record<SetSource['format'], string> = { html: '.html', txt: '.txt', markdown: '.md' };

function expand(pattern: string): string[] {
  const base = basename(pattern);
  if (!base.includes('*')) return existsSync(pattern) ? [pattern] : [];
  const dir = dirname(pattern);
  if (!existsSync(dir)) return [];
  const re = new RegExp(`^${base.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f));
}

/**
 * The set's documents read from the installed packages: `.gz` files
 * unpacked, Info manuals without their control characters (node and index marks), each named `<package>--<file>` with its format's extension (an
 * Info manual is plain text). Throws naming the packages none of whose
 * files are there.
 */
export function readSetDocuments(set: RetrievalSet): SetDocument[] {
  const missing: string[] = [];
  const docs: SetDocument[] = [];
  for (const source of set.sources) {
    const paths = source.files.flatMap(expand);
    if (paths.length === 0 || source.files.some((f) => expand(f).length === 0)) {
      missing.push(source.package);
      continue;
    }
    for (const path of paths) {
      const raw = readFileSync(path);
      const unpacked = path.endsWith('.gz') ? gunzipSync(raw) : raw;
      // An Info manual marks its nodes with 0x1F and its index entries with NUL and backspace, which make it binary data to a type check: dropped.
      const bytes = /\.info(\.gz)?$/.test(path) ? Buffer.from(unpacked.toString('utf8').replace(/[\x00-\x08\x0b\x0e-\x1f\x7f]/g, ''), 'utf8') : unpacked;
      const stem = basename(path).replace(/\.gz$/, '').replace(/\.(html|md|info)$/, '');
      docs.push({ package: source.package, name: `${source.package}--${stem}${EXTENSION[source.format]}`, bytes });
    }
  }
  if (missing.length > 0) throw new MissingPackagesError(missing);
  return docs;
}

export class MissingPackagesError extends Error {
  constructor(readonly packages: string[]) {
    super(`The retrieval set reads documentation these packages install: ${packages.join(', ')}. Install them first: apt-get install -y ${packages.join(' ')}`);
  }
}
