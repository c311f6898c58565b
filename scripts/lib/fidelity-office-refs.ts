/**
 * Reference readings of the office and e-book files for `npm run fidelity --
 * --office`: LibreOffice's CSV export of every sheet (XLSX, ODS), the slide
 * and notes text of PPTX, pandoc's plain text of EPUB and ODT. The shared
 * corpus carries them under `reference/`; for a file without one, they are
 * made here with `soffice --headless --convert-to` or `pandoc` when those are
 * installed, into a cache folder (nothing is committed).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import Papa from 'papaparse';

/** One sheet as LibreOffice exports it: its name and rows of cells. */
export interface RefSheet {
  name: string;
  hidden: boolean;
  rows: string[][];
}

/** What the reference tool reads in one file. */
export interface OfficeReference {
  text: string;
  /** Spreadsheets: the sheets in workbook order. */
  sheets?: RefSheet[];
  /** PPTX: one entry per slide, `hidden` as the deck marks it. */
  slides?: { hidden: boolean }[];
}

export type OfficeFormat = 'xlsx' | 'ods' | 'pptx' | 'epub' | 'odt';

/** One file to measure. */
export interface OfficeEntry {
  format: OfficeFormat;
  path: string;
  name: string;
}

const FORMAT_OF: Record<string, OfficeFormat> = { '.xlsx': 'xlsx', '.xlsm': 'xlsx', '.ods': 'ods', '.pptx': 'pptx', '.epub': 'epub', '.odt': 'odt' };

/** The office and e-book files under the corpus's format folders (not `bad/`). */
export function officeEntries(root: string): OfficeEntry[] {
  const out: OfficeEntry[] = [];
  for (const folder of ['xlsx', 'odf', 'pptx', 'epub']) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const format = FORMAT_OF[extname(name).toLowerCase()];
      if (format) out.push({ format, path: join(dir, name), name });
    }
  }
  return out;
}

/** The reference reading of `entry`, or undefined when there is none and no tool to make it. */
export function officeReference(root: string, entry: OfficeEntry): OfficeReference | undefined {
  const stem = basename(entry.name, extname(entry.name));
  const folder = entry.format === 'ods' || entry.format === 'odt' ? 'odf' : entry.format;
  const stored = join(root, 'reference', folder);
  if (entry.format === 'xlsx' || entry.format === 'ods') {
    if (existsSync(join(SHEETS_DIR, `${stem}.sheets.txt`))) return readSheets(SHEETS_DIR, stem, join(SHEETS_DIR, `${stem}.sheets.txt`), storedStates(join(stored, `${stem}.soffice-csv`, 'sheets.txt')));
    const dir = join(stored, `${stem}.soffice-csv`);
    return existsSync(dir) ? readSheets(dir, stem, join(dir, 'sheets.txt'), new Map()) : undefined;
  }
  if (entry.format === 'pptx') {
    const slides = join(stored, `${stem}.slides.txt`);
    if (!existsSync(slides)) return undefined;
    const notes = join(stored, `${stem}.notes.txt`);
    // The reference's own notes (`[SmartArt: text in …]`, `[chart: …]`) say where text is, they are not text.
    const slideText = readFileSync(slides, 'utf8').replace(/^\[(?:SmartArt|chart): .*\]$/gm, '');
    const marks = slideText.match(/^=== slide \d+( \(hidden\))?/gm) ?? [];
    return {
      text: `${slideText.replace(/^===.*===$/gm, '')}\n${existsSync(notes) ? readFileSync(notes, 'utf8').replace(/^===.*===$/gm, '') : ''}`,
      slides: marks.map((m) => ({ hidden: m.endsWith('(hidden)') })),
    };
  }
  const txt = join(stored, `${stem}.pandoc.txt`);
  if (existsSync(txt)) return { text: readFileSync(txt, 'utf8') };
  return has('pandoc') ? { text: execFileSync('pandoc', ['-t', 'plain', '--wrap=none', entry.path], { encoding: 'utf8', maxBuffer: 256 << 20 }) } : undefined;
}

/** The sheets of an export: `list` (lines of order, name, state) gives their order; `states` overrides the state by name. */
function readSheets(dir: string, stem: string, list: string, states: ReadonlyMap<string, string>): OfficeReference | undefined {
  const lines = readFileSync(list, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
  const sheets = lines.map(([, name = '', listed = 'visible']): RefSheet => {
    const state = states.get(name) ?? listed;
    const file = join(dir, `${stem}-${name.replace(/[:/\\]/g, '_')}.csv`);
    const rows = existsSync(file) ? (Papa.parse<string[]>(readFileSync(file, 'utf8'), { skipEmptyLines: false }).data as string[][]) : [];
    return { name, hidden: state !== 'visible', rows };
  });
  // A workbook LibreOffice could not open has no sheets: no reference, rather than a perfect score.
  return sheets.length > 0 ? { text: sheets.flatMap((s) => s.rows.flat()).join(' '), sheets } : undefined;
}

const SHEETS_DIR = join(tmpdir(), 'kb-fidelity-office');
// CSV filter options: comma, double quote, UTF-8, from line 1, en-US, cell contents as shown, every sheet to its own file.
const CSV_AS_SHOWN = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,-1';

/**
 * Exports every sheet of these workbooks as the sheet shows it (LibreOffice's
 * "save cell contents as shown"), in one `soffice` run, into a cache folder;
 * `<stem>.sheets.txt` keeps the sheet order from its log. Without soffice,
 * nothing is done and the corpus's stored references (raw values) are used.
 */
export function prepareSheetReferences(entries: readonly OfficeEntry[]): void {
  if (!has('soffice')) return;
  mkdirSync(SHEETS_DIR, { recursive: true });
  const todo = entries.filter((e) => (e.format === 'xlsx' || e.format === 'ods') && !existsSync(join(SHEETS_DIR, `${stemOf(e.name)}.sheets.txt`)));
  if (todo.length === 0) return;
  const log = execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${join(tmpdir(), 'kb-fidelity-lo-profile')}`, '--convert-to', CSV_AS_SHOWN, '--outdir', SHEETS_DIR, ...todo.map((e) => e.path)], { encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 64 << 20 });
  const sheets = new Map<string, string[]>();
  for (const [, name, path] of log.matchAll(/^Writing sheet (.*) -> (.*)$/gm)) {
    const stem = todo.map((e) => stemOf(e.name)).find((s) => basename(path!).startsWith(`${s}-`));
    if (stem) sheets.set(stem, [...(sheets.get(stem) ?? []), name!]);
  }
  for (const e of todo) {
    const names = sheets.get(stemOf(e.name)) ?? [];
    writeFileSync(join(SHEETS_DIR, `${stemOf(e.name)}.sheets.txt`), names.map((n, i) => `${i + 1}\t${n}\tvisible\n`).join(''));
  }
}

const stemOf = (name: string) => basename(name, extname(name));

/** Sheet states (hidden or not) by name, from the corpus's stored `sheets.txt`. */
function storedStates(path: string): Map<string, string> {
  if (!existsSync(path)) return new Map();
  return new Map(readFileSync(path, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')).map(([, name = '', state = 'visible']) => [name, state]));
}

const tools = new Map<string, boolean>();
/** Whether a command is on PATH. */
export function has(command: string): boolean {
  if (!tools.has(command)) {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
      tools.set(command, true);
    } catch {
      tools.set(command, false);
    }
  }
  return tools.get(command)!;
}
