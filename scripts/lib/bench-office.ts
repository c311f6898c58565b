/**
 * The `office` section of `npm run bench`: extraction speed of XLSX, ODS,
 * PPTX, EPUB and ODT over the corpus's files, beside the reference converter
 * of `npm run fidelity -- --office` (LibreOffice for spreadsheets and decks,
 * pandoc for EPUB and ODT). Ours runs in this process from `dist/`, file by
 * file; the reference converts each format's files in one call, so its
 * start-up is paid once per format, not per file. Medians of `runs`; the
 * ratio is reference time over ours (above 1: we are faster).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { has, officeEntries, type OfficeEntry, type OfficeFormat } from './fidelity-office-refs.js';
import { median } from './bench-util.js';

const run = promisify(execFile);

/** One format's figures. */
export interface OfficeBenchRow {
  format: OfficeFormat;
  files: number;
  mb: number;
  seconds: number;
  failures: number;
  reference?: { tool: string; seconds: number; ratio: number };
}

// How the reference converts each format: LibreOffice to CSV (every sheet) or HTML, pandoc to plain text.
const REFERENCE: Record<OfficeFormat, { tool: 'soffice' | 'pandoc'; target?: string }> = {
  xlsx: { tool: 'soffice', target: 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,-1' },
  ods: { tool: 'soffice', target: 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,-1' },
  pptx: { tool: 'soffice', target: 'html' },
  epub: { tool: 'pandoc' },
  odt: { tool: 'pandoc' },
};

type Extract = (bytes: Uint8Array, opts: Record<string, unknown>) => Promise<unknown>;

/** Measures each format present in the corpus at `root`. */
export async function benchOffice(root: string, opts: { runs: number; distDir: string }): Promise<OfficeBenchRow[]> {
  const { extractText } = (await import(resolve(opts.distDir, 'worker/extractors/index.js'))) as { extractText: Extract };
  const byFormat = new Map<OfficeFormat, OfficeEntry[]>();
  for (const e of officeEntries(root)) byFormat.set(e.format, [...(byFormat.get(e.format) ?? []), e]);
  const rows: OfficeBenchRow[] = [];
  for (const [format, entries] of byFormat) {
    const bytes = entries.map((e) => readFileSync(e.path));
    let failures = 0;
    const ours: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      failures = 0;
      const started = performance.now();
      for (const [j, b] of bytes.entries()) {
        try {
          await extractText(b, { filename: entries[j]!.name, maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: [format] });
        } catch {
          failures += 1;
        }
      }
      ours.push((performance.now() - started) / 1000);
    }
    const row: OfficeBenchRow = { format, files: entries.length, mb: bytes.reduce((n, b) => n + b.length, 0) / 2 ** 20, seconds: median(ours), failures };
    const ref = REFERENCE[format];
    if (has(ref.tool)) {
      const times: number[] = [];
      for (let i = 0; i < opts.runs; i++) times.push(await referenceRun(ref, entries));
      const seconds = median(times);
      row.reference = { tool: ref.tool === 'soffice' ? `soffice --convert-to ${ref.target!.split(':')[0]}` : 'pandoc -t plain', seconds, ratio: seconds / row.seconds };
    }
    rows.push(row);
  }
  return rows;
}

async function referenceRun(ref: { tool: 'soffice' | 'pandoc'; target?: string }, entries: OfficeEntry[]): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'kb-bench-office-'));
  try {
    const started = performance.now();
    if (ref.tool === 'soffice') {
      await run('soffice', ['--headless', `-env:UserInstallation=file://${join(tmpdir(), 'kb-bench-lo-profile')}`, '--convert-to', ref.target!, '--outdir', out, ...entries.map((e) => e.path)], { timeout: 30 * 60_000, maxBuffer: 64 << 20 });
    } else {
      for (const e of entries) await run('pandoc', ['-t', 'plain', '--wrap=none', '-o', join(out, `${e.name}.txt`), e.path], { timeout: 10 * 60_000 }).catch(() => undefined);
    }
    return (performance.now() - started) / 1000;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
