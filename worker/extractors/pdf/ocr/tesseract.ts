import { spawn } from 'node:child_process';
import { SourceError } from '../../../../shared/source-errors.js';

/** One word Tesseract read: its box in image pixels (top-left origin) and its confidence (0–100). */
export interface OcrWord {
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
  conf: number;
  /** 1-based page of a multi-page image (TIFF); 1 otherwise. */
  page: number;
  /** Tesseract's block, paragraph and line numbers, joined: words of one line share it. */
  line: string;
}

/** How Tesseract is run. */
export interface TesseractOptions {
  /** Absolute path of the `tesseract` binary (the sandbox child has no PATH). */
  binary: string;
  /** Languages as Tesseract takes them: `eng`, `eng+deu`. */
  languages: string;
  /** The process is killed after this long and the page fails as `timeout`. */
  timeoutMs: number;
  /** Resolution of the image, when the image does not say (a rendered page). */
  dpi?: number;
}

// Tesseract's output for one page is a few hundred kB at most; a runaway one is cut here.
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/**
 * Reads `image` (PGM, PNG, JPEG, TIFF, WebP: whatever Leptonica reads) with
 * Tesseract on stdin and returns its words. One OpenMP thread: the pool runs
 * one child per core already, and Tesseract's own threads would only contend.
 */
export function recognize(image: Uint8Array, opts: TesseractOptions): Promise<OcrWord[]> {
  const args = ['stdin', 'stdout', '-l', opts.languages, '--psm', '3', ...(opts.dpi ? ['--dpi', String(opts.dpi)] : []), 'tsv'];
  return new Promise((resolve, reject) => {
    const proc = spawn(opts.binary, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { OMP_THREAD_LIMIT: '1', LANG: 'C.UTF-8' } });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill('SIGKILL');
    }, opts.timeoutMs);
    proc.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT_BYTES) proc.kill('SIGKILL');
      else out.push(b);
    });
    proc.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 4096) stderr += b.toString('utf8');
    });
    // A Tesseract that exits before reading everything closes the pipe; its exit code tells what happened.
    proc.stdin.on('error', () => undefined);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(new SourceError('ocr_unavailable', `The OCR engine could not be started (${(err as NodeJS.ErrnoException).code ?? err.name}).`));
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new SourceError('timeout', `OCR of a page took longer than ${opts.timeoutMs} ms.`));
      if (code !== 0) return reject(engineFailure(stderr, opts.languages));
      resolve(parseTsv(Buffer.concat(out).toString('utf8')));
    });
    proc.stdin.end(image);
  });
}

function engineFailure(stderr: string, languages: string): SourceError {
  if (/Failed loading language|Error opening data file/i.test(stderr)) {
    return new SourceError('ocr_unavailable', `The OCR language data for "${languages}" is not installed.`);
  }
  // Leptonica's messages can quote nothing of the document, but they are not for users either.
  return new SourceError('corrupt', 'The image could not be read by the OCR engine.');
}

/** Tesseract's TSV: level 5 rows are words (`level page block par line word left top width height conf text`). */
export function parseTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols[0] !== '5' || cols.length < 12) continue;
    const text = cols.slice(11).join('\t').trim();
    if (text === '') continue;
    const [, page, block, par, line, , left, top, width, height, conf] = cols.map(Number);
    words.push({ text, left: left!, top: top!, width: width!, height: height!, conf: Math.max(0, conf!), page: page!, line: `${block}.${par}.${line}` });
  }
  return words;
}
