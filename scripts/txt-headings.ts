/**
 * Precision and recall of the plain-text heading finder
 * (`worker/chunking/plain-headings.ts`) on Debian documentation installed on
 * this machine, read in place (nothing is copied into the repository):
 *
 * - manual pages rendered with `man -P cat` (80 columns); the truth is the
 *   page's own `.SH`/`.SS` (`.Sh`/`.Ss`) titles in its roff source;
 * - info files (makeinfo output); the truth is makeinfo's heading
 *   convention: a title in the first column after a blank line, underlined
 *   with one of `*=-.` exactly as wide as the title;
 * - plain-text manuals with a table of contents (DocBook and X11 text
 *   output); the truth is the last line in the first column that repeats a
 *   numbered contents entry.
 *
 * Only packages outside the reserved list of docs/contributing.md are named.
 * A file that is not installed is skipped, and said so. Run:
 * `npx tsx scripts/txt-headings.ts [--misses] [--markdown]`; `--markdown`
 * measures the headings a TXT file had before, read as Markdown (`#`, setext).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { plainTextHeadings } from '../worker/chunking/plain-headings.js';
import { outline } from '../worker/chunking/segments.js';

/** Manual pages of unreserved packages (coreutils, grep, sed, findutils, tar, gzip, diffutils, dpkg, apt, man-db, procps, less, openssh-client, curl, util-linux). */
const MAN_PAGES = [
  'ls', 'cp', 'mv', 'rm', 'sort', 'uniq', 'date', 'chmod', 'stat', 'df', 'du', 'head', 'tail', 'wc', 'tr', 'cut',
  'grep', 'sed', 'find', 'xargs', 'tar', 'gzip', 'diff', 'cmp', 'dpkg', 'dpkg-query', 'apt-get', 'apt-cache', 'man',
  'ps', 'kill', 'less', 'ssh', 'scp', 'curl', 'mount', 'lsblk', 'dmesg', 'ln', 'env',
];

/** Info manuals of unreserved packages. */
const INFO_FILES = ['grep', 'gzip', 'diffutils', 'ed', 'bc', 'find', 'libtasn1', 'gpgrt', 'autosprintf', 'bzip2', 'libffi', 'coreutils', 'gettext', 'sed', 'tar', 'wget'].map(
  (name) => `/usr/share/info/${name}.info.gz`,
);

/** Plain-text manuals with a numbered table of contents. */
const TOC_FILES = [
  '/usr/share/doc/libxdmcp-dev/xdmcp.txt.gz',
  '/usr/share/doc/bigreqsproto/bigreq.txt.gz',
  '/usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz',
  '/usr/share/doc/debian/FAQ/debian-faq.en.txt.gz',
];

interface Doc {
  name: string;
  group: 'man' | 'info' | 'toc';
  text: string;
  /** Line numbers of the true headings' title lines. */
  truth: Set<number>;
}

const read = (path: string) => {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').replace(/\r\n?/g, '\n');
};
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function manDoc(page: string): Doc | undefined {
  let path: string;
  let text: string;
  try {
    path = execFileSync('man', ['-w', page], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n')[0]!;
    text = execFileSync('man', ['-P', 'cat', path], { encoding: 'utf8', env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' }, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  text = text.replace(/.\x08/g, '');
  // A `.SH`/`.SS` with no argument takes the next line as its title.
  const source = read(path).split('\n');
  const titles = source
    .map((l, i) => {
      const m = /^\.(?:SH|SS|Sh|Ss)(?:\s+(.*))?$/.exec(l);
      return m ? (m[1]?.trim() ? m[1] : source[i + 1]?.replace(/^\.[A-Z]{1,2}\s+/, '')) : undefined;
    })
    .filter((t): t is string => t !== undefined && t.trim() !== '')
    .map((t) => norm(t.replace(/\\f[BIRP]|\\f\(..|\\&|"|\\\(aq|\\\(oq/g, (m) => (m.startsWith('\\(') ? "'" : '')).replace(/\\-/g, '-').replace(/\\\(em/g, '—')));
  const lines = text.split('\n');
  const truth = new Set<number>();
  let from = 0;
  for (const title of titles) {
    // Section titles are drawn in the first column, subsections three in.
    const at = lines.findIndex((l, i) => i >= from && /^ {0,3}\S/.test(l) && norm(l) === title);
    if (at !== -1) {
      truth.add(at);
      from = at + 1;
    }
  }
  return { name: `man ${page}`, group: 'man', text, truth };
}

function infoDoc(path: string): Doc {
  const text = read(path);
  const lines = text.split('\n');
  const truth = new Set<number>();
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = lines[i]!;
    const under = lines[i + 1]!;
    if (title.trim() === '' || /^\s/.test(title) || (i > 0 && lines[i - 1]!.trim() !== '')) continue;
    if (/^([*=\-.])\1*$/.test(under) && under.length === width(title)) truth.add(i);
  }
  return { name: path.replace(/^.*\//, ''), group: 'info', text, truth };
}

function tocDoc(path: string): Doc {
  const text = read(path);
  const lines = text.split('\n');
  const entries = new Map<string, string>();
  for (const l of lines) {
    const m = /^\s*((?:Chapter\s|Appendix\s)?(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+\.?|[A-Z]\.))\s+(\S.{0,19})/.exec(l);
    if (m && !entries.has(m[1]!)) entries.set(m[1]!, m[2]!);
  }
  const truth = new Set<number>();
  for (const [number, start] of entries) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i]!;
      if (/\s/.test(l[number.length] ?? '') && l.startsWith(number) && norm(l.slice(number.length)).startsWith(norm(start))) {
        // The contents list itself: an entry with another entry on the next line is not a heading.
        if (i > 0 && lines[i - 1]!.trim() === '') truth.add(i);
        break;
      }
    }
  }
  return { name: path.replace(/^.*\//, ''), group: 'toc', text, truth };
}

/** Display columns: wide East Asian characters take two, as makeinfo counts them. */
function width(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1;
  return w;
}

const docs: Doc[] = [];
const skipped: string[] = [];
for (const page of MAN_PAGES) {
  const d = manDoc(page);
  if (d) docs.push(d);
  else skipped.push(`man ${page}`);
}
for (const path of [...INFO_FILES, ...TOC_FILES]) {
  if (!existsSync(path)) skipped.push(path);
  else docs.push(path.includes('/info/') ? infoDoc(path) : tocDoc(path));
}

const showMisses = process.argv.includes('--misses');
const find = process.argv.includes('--markdown') ? (text: string) => outline(text).headings : plainTextHeadings;
const totals = new Map<string, { tp: number; found: number; truth: number; docs: number }>();
for (const d of docs) {
  const starts: number[] = [];
  for (let i = 0, at = 0; i < d.text.length + 1; i++) if (i === 0 || d.text[i - 1] === '\n') starts[at++] = i;
  const lineOf = new Map(starts.map((s, i) => [s, i]));
  const found = new Set(find(d.text).map((h) => lineOf.get(h.start)!));
  const tp = [...found].filter((l) => d.truth.has(l)).length;
  for (const key of [d.group, 'all']) {
    const t = totals.get(key) ?? { tp: 0, found: 0, truth: 0, docs: 0 };
    t.tp += tp;
    t.found += found.size;
    t.truth += d.truth.size;
    t.docs += 1;
    totals.set(key, t);
  }
  if (showMisses) {
    const lines = d.text.split('\n');
    for (const l of found) if (!d.truth.has(l)) console.log(`${d.name}: false  ${JSON.stringify(lines[l])}`);
    for (const l of d.truth) if (!found.has(l)) console.log(`${d.name}: missed ${JSON.stringify(lines[l])}`);
  }
}
const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)} %`);
console.log('group  docs  true  found  precision  recall');
for (const [key, t] of totals) console.log(`${key.padEnd(6)} ${String(t.docs).padStart(4)} ${String(t.truth).padStart(5)} ${String(t.found).padStart(6)}  ${pct(t.tp, t.found).padStart(9)}  ${pct(t.tp, t.truth).padStart(6)}`);
if (skipped.length > 0) console.log(`skipped (not installed): ${skipped.join(', ')}`);
