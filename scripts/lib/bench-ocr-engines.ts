/**
 * The engines and renderers of the OCR bench, each timed on the same page
 * images: native `tesseract` (under /usr/bin/time for its CPU time and peak
 * memory), tesseract.js when a copy is given, and page rendering by pdf.js
 * on @napi-rs/canvas or by `pdftoppm`.
 */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createCanvas } from '@napi-rs/canvas';
import { getDocument } from '../../worker/extractors/pdf/pdfjs.js';
import { renderPage } from '../../worker/extractors/pdf/ocr/render-page.js';
import { parseTsv } from '../../worker/extractors/pdf/ocr/tesseract.js';

const run = promisify(execFile);

/** One engine's or renderer's run over a set of pages. */
export interface EngineRun {
  texts: string[];
  wallS: number;
  cpuS: number;
  peakMb: number;
}

/** Renders every page of `pdf` with pdf.js at `dpi` to PGM, timed (CPU of this process). */
export async function renderWithPdfjs(pdf: Uint8Array, dpi: number): Promise<{ pgms: Buffer[]; wallS: number; cpuS: number }> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const pgms: Buffer[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    pgms.push((await renderPage(page, dpi)).pgm);
    page.cleanup();
  }
  const used = process.cpuUsage(cpu);
  await doc.destroy();
  return { pgms, wallS: (performance.now() - started) / 1000, cpuS: (used.user + used.system) / 1e6 };
}

/** The same with `pdftoppm -gray` (poppler-utils), one process per page, under /usr/bin/time. */
export async function renderWithPdftoppm(pdf: Uint8Array, pages: number, dpi: number, dir: string): Promise<{ wallS: number; cpuS: number }> {
  const file = join(dir, 'render.pdf');
  writeFileSync(file, pdf);
  const started = performance.now();
  let cpuS = 0;
  for (let n = 1; n <= pages; n++) {
    const { stderr } = await run('/usr/bin/time', ['-f', '%U %S %M', 'pdftoppm', '-r', String(dpi), '-gray', '-f', String(n), '-l', String(n), file, join(dir, 'page')], { maxBuffer: 1 << 20 });
    cpuS += timeLine(stderr).cpuS;
  }
  return { wallS: (performance.now() - started) / 1000, cpuS };
}

/** Every page of `pdf` as `pdftoppm -gray` renders it at `dpi` (the PDF on stdin, a PGM on stdout), as the sandbox child does. */
export async function pdftoppmImages(binary: string, pdf: Uint8Array, pages: number, dpi: number): Promise<Buffer[]> {
  const pgms: Buffer[] = [];
  for (let n = 1; n <= pages; n++) {
    pgms.push(await new Promise<Buffer>((resolve, reject) => {
      const proc = spawn(binary, ['-r', String(dpi), '-gray', '-f', String(n), '-l', String(n), '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
      const out: Buffer[] = [];
      proc.stdout.on('data', (b: Buffer) => out.push(b));
      proc.on('error', reject);
      proc.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`pdftoppm exited ${code}`))));
      proc.stdin.end(pdf);
    }));
  }
  return pgms;
}

/** Native tesseract on each image, one after the other, one OpenMP thread (as the sandbox runs it). */
export async function nativeTesseract(images: Buffer[], languages: string, dpi: number): Promise<EngineRun> {
  const started = performance.now();
  const out: EngineRun = { texts: [], wallS: 0, cpuS: 0, peakMb: 0 };
  for (const image of images) {
    const { stdout, stderr } = await pipe('/usr/bin/time', ['-f', '%U %S %M', 'tesseract', 'stdin', 'stdout', '-l', languages, '--psm', '3', '--dpi', String(dpi), 'tsv'], image);
    const t = timeLine(stderr);
    out.cpuS += t.cpuS;
    out.peakMb = Math.max(out.peakMb, t.peakMb);
    out.texts.push(wordsText(parseTsv(stdout)));
  }
  out.wallS = (performance.now() - started) / 1000;
  return out;
}

/** tesseract.js from the folder of an npm install holding `tesseract.js` and `@tesseract.js-data/<lang>`; its language data is read from there, never downloaded. */
export async function tesseractJs(images: Buffer[], languages: string, prefix: string): Promise<EngineRun & { version: string }> {
  const modules = join(prefix, 'node_modules');
  const lib = (await import(pathToFileURL(join(modules, 'tesseract.js', 'src', 'index.js')).href)) as { createWorker: Function; default?: { createWorker: Function } };
  const createWorker = (lib.createWorker ?? lib.default?.createWorker) as (langs: string, oem: number, opts: object) => Promise<{ recognize(i: Buffer): Promise<{ data: { text: string } }>; terminate(): Promise<void> }>;
  const lang = languages.split('+')[0]!;
  const langPath = join(modules, '@tesseract.js-data', lang, '4.0.0_best_int');
  const worker = await createWorker(languages, 1, { langPath, cacheMethod: 'none', gzip: true });
  const started = performance.now();
  const cpu = process.cpuUsage();
  let peakMb = 0;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, process.memoryUsage.rss() / 1048576)), 100);
  const texts: string[] = [];
  for (const image of images) texts.push((await worker.recognize(pnmToPng(image))).data.text);
  clearInterval(sampler);
  const used = process.cpuUsage(cpu);
  await worker.terminate();
  const { version } = (await import(pathToFileURL(join(modules, 'tesseract.js', 'package.json')).href, { with: { type: 'json' } })).default as { version: string };
  return { texts, wallS: (performance.now() - started) / 1000, cpuS: (used.user + used.system) / 1e6, peakMb, version };
}

/** tesseract.js is given the page as PNG (it does not take grey PGM); the encoding is cached, and counted in its first run only. */
const pngCache = new WeakMap<Buffer, Buffer>();
function pnmToPng(pgm: Buffer): Buffer {
  const cached = pngCache.get(pgm);
  if (cached) return cached;
  const [header, w, h] = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
  const canvas = createCanvas(Number(w), Number(h));
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(Number(w), Number(h));
  const off = header!.length;
  for (let i = 0; i < Number(w) * Number(h); i++) {
    const g = pgm[off + i]!;
    img.data[i * 4] = img.data[i * 4 + 1] = img.data[i * 4 + 2] = g;
    img.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  const png = canvas.toBuffer('image/png');
  pngCache.set(pgm, png);
  return png;
}

function wordsText(words: { text: string; line: string }[]): string {
  return words.map((w) => w.text).join(' ');
}

function timeLine(stderr: string): { cpuS: number; peakMb: number } {
  const last = stderr.trim().split('\n').at(-1) ?? '';
  const [user = 0, system = 0, maxKb = 0] = last.split(' ').map(Number);
  return { cpuS: user + system, peakMb: maxKb / 1024 };
}

function pipe(command: string, args: string[], input: Buffer): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    proc.stdout.on('data', (b: Buffer) => out.push(b));
    proc.stderr.on('data', (b: Buffer) => err.push(b));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve({ stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }) : reject(new Error(`${args[2]} exited ${code}`))));
    proc.stdin.end(input);
  });
}
