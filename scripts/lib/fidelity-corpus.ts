/**
 * The documents `npm run fidelity` measures: files of Debian documentation
 * packages, copied into a cache folder with the reference tools' readings
 * beside them (pdftotext for PDFs, pandoc for HTML and DOCX). The DOCX files
 * are written by pandoc from HTML pages of the same packages. Nothing is
 * committed; the packages that acceptance keeps for itself are never used.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The Debian packages the corpus is built from, and the reference tools. */
export const APT_PACKAGES = [
  'poppler-utils', 'pandoc', 'debian-faq', 'maint-guide', 'debian-policy', 'developers-reference',
  'mkdocs-doc', 'doxygen-doc', 'pari-doc', 'glpk-doc', 'gnu-standards', 'cmake-doc', 'bzip2-doc', 'texi2html',
];

/** One document of the corpus. */
export interface CorpusEntry {
  format: 'pdf' | 'html' | 'docx';
  /** Installed file (a `.gz` is unpacked); for DOCX, the HTML page pandoc converts. */
  source: string;
  /** HTML: the generator's main container, which is the reference main content. */
  main?: string;
  /** HTML: what the reference leaves out of the main container (the generator's navigation bars and footer). */
  drop?: string;
  /** HTML written by texi2html (split by chapter) from the Texinfo `source`: the page to take. */
  texi2htmlPage?: string;
  /** Name in the cache folder. */
  name: string;
}

const D = '/usr/share/doc';
const pdf = (source: string): CorpusEntry => ({ format: 'pdf', source, name: basename(source).replace(/\.gz$/, '') });
const html = (source: string, main: string, name: string): CorpusEntry => ({ format: 'html', source, main, name });
const docx = (source: string, name: string): CorpusEntry => ({ format: 'docx', source, name });

/** Manuals, a reference card, papers in Spanish and Portuguese; pages of seven documentation generators. */
export const CORPUS: CorpusEntry[] = [
  pdf(`${D}/maint-guide/maint-guide.en.pdf`),
  pdf('/usr/share/developers-reference/developers-reference.pdf'),
  pdf(`${D}/debian/FAQ/debian-faq.en.pdf.gz`),
  pdf(`${D}/debian-policy/fhs/fhs-3.0.pdf.gz`),
  pdf(`${D}/gnu-standards/maintain.pdf.gz`),
  pdf('/usr/share/pari/doc/tutorial.pdf'),
  pdf('/usr/share/pari/doc/refcard.pdf'),
  pdf(`${D}/glpk-doc/gmpl_es.pdf`),
  pdf(`${D}/glpk-doc/gmpl_pt-BR.pdf`),
  pdf(`${D}/glpk-doc/graphs.pdf`),
  html(`${D}/debian-policy/policy.html/ch-source.html`, 'div[role=main]', 'sphinx-policy-source.html'),
  html('/usr/share/developers-reference/pkgs.html', 'div[role=main]', 'sphinx-devref-pkgs.html'),
  html(`${D}/cmake-data/html/command/add_custom_command.html`, 'div[role=main]', 'sphinx-cmake-command.html'),
  html(`${D}/mkdocs/html/user-guide/configuration.html`, 'div[role=main]', 'mkdocs-configuration.html'),
  html(`${D}/maint-guide/html/dreq.en.html`, 'div.chapter', 'docbook-maint-dreq.html'),
  html(`${D}/debian/FAQ/ftparchives.en.html`, 'div.chapter', 'docbook-faq-ftparchives.html'),
  html(`${D}/doxygen/html/commands.html`, 'div.header, div.contents', 'doxygen-commands.html'),
  html(`${D}/doxygen/html/config.html`, 'div.header, div.contents', 'doxygen-config.html'),
  html(`${D}/gnu-standards/maintain.html`, 'body', 'texinfo-maintain.html'),
  // texi2html 1.82's chapter pages: a navigation bar around every section, a footer naming the tool.
  {
    ...html(`${D}/bzip2/manual.texi.gz`, 'body', 'texi2html-bzip2-programming.html'),
    texi2htmlPage: 'manual_3.html',
    drop: 'table[cellpadding="1"][cellspacing="1"][border="0"], body > p:last-of-type',
  },
  docx(`${D}/debian-policy/policy.html/ch-controlfields.html`, 'policy-controlfields.docx'),
  docx(`${D}/debian-policy/policy.html/ch-relationships.html`, 'policy-relationships.docx'),
  docx(`${D}/maint-guide/html/dreq.en.html`, 'maint-dreq.docx'),
  docx(`${D}/doxygen/html/config.html`, 'doxygen-config.docx'),
];

/** The cache folder: `FIDELITY_DIR` or `kb-ingest-fidelity` in the system's temp folder. */
export function corpusRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.FIDELITY_DIR ?? join(tmpdir(), 'kb-ingest-fidelity');
}

/** What is missing to build the corpus: reference tools or installed files. */
export function missing(): string[] {
  const gaps = CORPUS.filter((e) => !existsSync(e.source)).map((e) => e.source);
  for (const [tool, flag] of [['pdftotext', '-v'], ['pandoc', '-v'], ['texi2html', '--version']] as const) {
    try {
      execFileSync(tool, [flag], { stdio: 'ignore' });
    } catch {
      gaps.push(tool);
    }
  }
  return gaps;
}

/** Copies (or converts) each document into `root` once, with its reference readings; returns the paths. */
export function buildCorpus(root: string): Array<CorpusEntry & { path: string }> {
  mkdirSync(root, { recursive: true });
  return CORPUS.map((entry) => {
    const path = join(root, entry.name);
    if (!existsSync(path)) {
      if (entry.format === 'docx') execFileSync('pandoc', ['-f', 'html', '-t', 'docx', '-o', path, entry.source]);
      else if (entry.texi2htmlPage) texi2html(entry.source, entry.texi2htmlPage, path);
      else if (entry.source.endsWith('.gz')) writeFileSync(path, gunzipSync(readFileSync(entry.source)));
      else copyFileSync(entry.source, path);
    }
    if (entry.format === 'pdf' && !existsSync(`${path}.pdftotext.txt`)) execFileSync('pdftotext', ['-enc', 'UTF-8', path, `${path}.pdftotext.txt`]);
    return { ...entry, path };
  });
}

/** Writes the chapter page `page` of texi2html's output for the Texinfo file `source` to `path`. */
function texi2html(source: string, page: string, path: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'texi2html-'));
  try {
    const texi = join(dir, 'manual.texi');
    writeFileSync(texi, source.endsWith('.gz') ? gunzipSync(readFileSync(source)) : readFileSync(source));
    execFileSync('texi2html', ['--split=chapter', `--output=${join(dir, 'out')}`, texi], { cwd: dir, stdio: 'ignore' });
    copyFileSync(join(dir, 'out', page), path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pandoc's reading of an HTML fragment or a DOCX file as GFM or plain text. */
export function pandoc(input: string | Buffer, from: 'html' | 'docx', to: 'gfm' | 'plain'): string {
  return execFileSync('pandoc', ['-f', from, '-t', to, '--wrap=none'], { input, maxBuffer: 64 << 20 }).toString('utf8');
}
