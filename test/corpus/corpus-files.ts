import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceErrorCode } from '../../shared/source-errors.js';

/** `ready` or `failed/<code>`, as a source ends up. */
export type Outcome = 'ready' | `failed/${SourceErrorCode}`;

/** One corpus input and what EXPECTED.md says about it. */
export interface CorpusFile {
  /** Path relative to the corpus root, e.g. `bad/png-mislabeled.pdf`. */
  rel: string;
  path: string;
  /** The name a client would send. */
  filename: string;
  /** What the API answers for the upload. */
  upload: Array<415 | 'accepted'>;
  /** How the source ends when the same bytes are extracted (behind a URL or after upload). */
  outcomes: Outcome[];
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `../shared/corpus` beside the repository, or CORPUS_DIR. */
export function corpusDir(): string {
  return process.env.CORPUS_DIR ?? resolve(REPO_ROOT, '../shared/corpus');
}

const UNSUPPORTED: Pick<CorpusFile, 'upload' | 'outcomes'> = { upload: [415], outcomes: ['failed/unsupported_media_type'] };
const accepted = (...outcomes: Outcome[]): Pick<CorpusFile, 'upload' | 'outcomes'> => ({ upload: ['accepted'], outcomes });

// EXPECTED.md, `bad/` table, file by file.
const BAD: Record<string, Pick<CorpusFile, 'upload' | 'outcomes'>> = {
  'doc-ole2-mislabeled.docx': UNSUPPORTED,
  'docx-corrupt-poi-62886.docx': accepted('failed/corrupt'),
  'docx-encrypted-passtika.docx': accepted('failed/encrypted'),
  'docx-encrypted-password-is-pass.docx': accepted('failed/encrypted'),
  'docx-fuzzed-clusterfuzz.docx': { upload: ['accepted', 415], outcomes: ['failed/corrupt', 'failed/unsupported_media_type'] },
  'docx-truncated-tika.docx': { upload: ['accepted', 415], outcomes: ['failed/corrupt', 'failed/unsupported_media_type'] },
  'docx-hostile-xxe.docx': accepted('ready', 'failed/corrupt'),
  'empty-0-bytes.pdf': UNSUPPORTED,
  'html-mislabeled.pdf': accepted('ready'),
  'pdf-corrupt-zen-of-python.pdf': accepted('ready'),
  'pdf-corrupt-dict-keys.pdf': accepted('failed/corrupt'),
  'pdf-corrupt-xref-bytewidths.pdf': accepted('failed/corrupt'),
  'pdf-truncated-tracemonkey-300k.pdf': accepted('failed/corrupt'),
  'pdf-unsupported-brotli-filter.pdf': accepted('failed/corrupt'),
  'pdf-fuzzed-type3-poppler-90.pdf': accepted('failed/corrupt'),
  'pdf-corrupt-missing-endstream.pdf': accepted('ready', 'failed/no_text', 'failed/corrupt'),
  'pdf-corrupt-xref-issue9418.pdf': accepted('ready', 'failed/no_text', 'failed/corrupt'),
  'pdf-fuzzed-huge-pagecount.pdf': accepted('ready', 'failed/no_text', 'failed/corrupt'),
  'pdf-malformed-pdfplumber-932.pdf': accepted('ready', 'failed/no_text', 'failed/corrupt'),
  'pdf-mislabeled.docx': accepted('ready'),
  // `pdf-encrypted-*.pdf` (five files): accepted, then failed/encrypted; matched by prefix below.
  'png-mislabeled.pdf': UNSUPPORTED,
  'xlsx-mislabeled.docx': UNSUPPORTED,
  'zip-mislabeled.docx': UNSUPPORTED,
  // The office and e-book files of `bad/`, under the default format policy: 415, except an
  // encrypted XLSX, whose CFB container does not say whether a DOCX or an XLSX is inside.
  'xlsx-encrypted-passtika.xlsx': accepted('failed/encrypted'),
  'odt-encrypted-tika.odt': UNSUPPORTED,
  'xlsx-hostile-xmlbomb.xlsx': UNSUPPORTED,
  'xlsx-hostile-shared-strings-amplification.xlsx': UNSUPPORTED,
  'pptx-truncated-divino-revelado.pptx': UNSUPPORTED,
  'pptx-fuzzed-clusterfuzz.pptx': UNSUPPORTED,
};

/** Folders whose formats the default policy refuses (EXPECTED.md: upload 415, `unsupported_media_type` behind a URL). */
const REFUSED_BY_DEFAULT = new Set(['pptx', 'xlsx', 'odf', 'epub']);

// EXPECTED.md, exceptions among the good files.
const GOOD_EXCEPTIONS: Record<string, Outcome[]> = {
  'pdf/ocrmypdf-c02-22-scanned.pdf': ['failed/no_text'],
  'pdf/pdfjs-issue13372-scanned-ccitt.pdf': ['failed/no_text'],
  'pdf/ocrmypdf-multipage-scanned.pdf': ['failed/no_text'],
  'docx/mammoth-empty.docx': ['failed/no_text', 'ready'],
  'docx/mammoth-external-picture.docx': ['failed/no_text', 'ready'],
  'docx/tika-testAltChunkHTML.docx': ['failed/no_text', 'ready'],
  // Not in EXPECTED.md, and no text in them for us or pandoc's reference: three tables of empty cells;
  // five images without alt text; one ruby run (w:ruby, which mammoth and pandoc both drop).
  'docx/pydocx-tbl-having-tables.docx': ['failed/no_text', 'ready'],
  'docx/pydocx-having-images.docx': ['failed/no_text', 'ready'],
  'docx/tika-testWORD_phonetic.docx': ['failed/no_text', 'ready'],
};

/**
 * Every input of the corpus with its expectations under the default format
 * policy: the five good folders (for HTML, each `readability-*` page's
 * `source.html`), CSV (text), the office and e-book folders (refused) and `bad/`.
 * `expected.*` and `reference/` are ground truth, not inputs.
 */
export function corpusFiles(root = corpusDir()): CorpusFile[] {
  const files: CorpusFile[] = [];
  for (const folder of ['pdf', 'docx', 'html', 'md', 'txt', 'csv', 'pptx', 'xlsx', 'odf', 'epub', 'bad']) {
    if (!existsSync(join(root, folder))) continue;
    for (const name of readdirSync(join(root, folder)).sort()) {
      const path = join(root, folder, name);
      const isPage = statSync(path).isDirectory();
      const rel = isPage ? `${folder}/${name}/source.html` : `${folder}/${name}`;
      // Reference folders (LibreOffice's CSV of each sheet) sit beside the office files; they are not inputs.
      if (isPage && folder !== 'html') continue;
      const expectation = folder === 'bad' ? (BAD[name] ?? (/^pdf-encrypted-/.test(name) ? accepted('failed/encrypted') : undefined))
        : REFUSED_BY_DEFAULT.has(folder) ? UNSUPPORTED
        : accepted(...(GOOD_EXCEPTIONS[rel] ?? ['ready']));
      if (!expectation) throw new Error(`EXPECTED.md has no row for ${rel}; add it to corpus-files.ts`);
      files.push({ rel, path: isPage ? join(path, 'source.html') : path, filename: basename(rel), ...expectation });
    }
  }
  return files;
}

/** True when the corpus folder is there to read. */
export function corpusPresent(root = corpusDir()): boolean {
  return existsSync(join(root, 'EXPECTED.md'));
}

/** The reference tool's text for a good PDF or DOCX (`reference/pdf/X.pdftotext.txt`, `reference/docx/X.pandoc.txt`). */
export function referencePath(root: string, rel: string): string | undefined {
  const [folder, name] = rel.split('/');
  if (!name) return undefined;
  const path = folder === 'pdf' ? join(root, 'reference/pdf', name.replace(/\.pdf$/, '.pdftotext.txt'))
    : folder === 'docx' ? join(root, 'reference/docx', name.replace(/\.docx$/, '.pandoc.txt'))
    : undefined;
  return path && existsSync(path) ? path : undefined;
}
