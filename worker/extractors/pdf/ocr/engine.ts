import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isExecutable } from '../../../sandbox/executable.js';

const run = promisify(execFile);
// Where Debian's tesseract-ocr and a source build put the binary. PATH is not consulted: the sandbox child has none.
const CANDIDATES = ['/usr/bin/tesseract', '/usr/local/bin/tesseract'];

/** The OCR engine this worker found, or why it has none. */
export type OcrEngine = { binary: string; version: string } | { unavailable: string };

/**
 * Looks for Tesseract 4 or later and checks that it has every language of
 * `languages` (`eng+deu`). Run once at worker start-up; the worker logs
 * the outcome once.
 */
export async function findOcrEngine(languages: string, candidates = CANDIDATES): Promise<OcrEngine> {
  const binary = candidates.find(isExecutable);
  if (!binary) return { unavailable: 'no tesseract binary was found (install the Debian packages tesseract-ocr and tesseract-ocr-<lang>)' };
  try {
    const env = { LANG: 'C.UTF-8', OMP_THREAD_LIMIT: '1' };
    const version = (await run(binary, ['--version'], { env, timeout: 10_000 })).stdout.split('\n')[0]?.trim() ?? '';
    const major = Number(/(\d+)\./.exec(version)?.[1] ?? 0);
    if (major < 4) return { unavailable: `${binary} is "${version}"; OCR needs Tesseract 4 or later` };
    const listed = await run(binary, ['--list-langs'], { env, timeout: 10_000 });
    const installed = new Set(`${listed.stdout}\n${listed.stderr}`.split('\n').map((l) => l.trim()));
    const missing = languages.split('+').filter((lang) => !installed.has(lang));
    if (missing.length) return { unavailable: `tesseract has no language data for ${missing.join(', ')} (install tesseract-ocr-${missing[0]})` };
    return { binary, version };
  } catch (err) {
    return { unavailable: `${binary} could not be run (${(err as NodeJS.ErrnoException).code ?? (err as Error).name})` };
  }
}

/** Poppler's `pdftoppm` (Debian's poppler-utils), which renders pages for OCR at a quarter of pdf.js's CPU; undefined without it. */
export function findPageRenderer(candidates = ['/usr/bin/pdftoppm', '/usr/local/bin/pdftoppm']): string | undefined {
  return candidates.find(isExecutable);
}

/** Poppler's `pdfimages` (poppler-utils, beside `pdftoppm`), which lists a page's images without decoding them; undefined without it. */
export function findImageLister(candidates = ['/usr/bin/pdfimages', '/usr/local/bin/pdfimages']): string | undefined {
  return candidates.find(isExecutable);
}
