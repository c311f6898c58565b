import type { KnowledgeBase } from '../clients/typescript/src/index.js';

type Source = KnowledgeBase['files'][number];
const BAR = 20;

/** `[#####-----]` for a fraction 0..1. */
export function bar(fraction: number): string {
  const n = Math.max(0, Math.min(BAR, Math.round(fraction * BAR)));
  return `[${'#'.repeat(n)}${'-'.repeat(BAR - n)}]`;
}

/** How far one source is: done, or pages or bytes where the worker reports them. */
export function sourceFraction(s: Source): number {
  if (s.status === 'ready' || s.status === 'failed') return 1;
  const p = s.progress;
  if (p?.pagesTotal) return (p.pagesDone ?? 0) / p.pagesTotal;
  if (p?.bytesTotal) return (p.bytesDone ?? 0) / p.bytesTotal;
  return 0;
}

/** How many characters of a text source's own words name it when it has no title. */
const TEXT_NAME = 40;

/**
 * What a source is called in a row: the file name for a file, the URL for a
 * URL, the title for a text (or the start of the text). A file's title comes
 * from inside it (a PDF's metadata, a slide's first line: "Title",
 * "Slide 1") and would not say which file it is, so it is not used.
 */
export function sourceName(s: Source): string {
  if (s.type !== 'text') return s.content;
  if (s.title) return s.title;
  const text = s.content.replace(/\s+/g, ' ').trim();
  return text.length > TEXT_NAME ? `${text.slice(0, TEXT_NAME)}…` : text;
}

/** One line per source: bar, status, pages where known, and its name. */
export function sourceLine(s: Source): string {
  const pages = s.progress?.pagesTotal ? ` ${s.progress.pagesDone ?? 0}/${s.progress.pagesTotal} pages` : s.pageCount ? ` ${s.pageCount} pages` : '';
  return `${bar(sourceFraction(s))} ${s.status.padEnd(10)}${pages.padEnd(16)} ${sourceName(s)}`;
}

/** The summary: counts by status and the whole knowledge base's bar. */
export function summaryLine(kb: KnowledgeBase): string {
  const c = kb.sourceCounts;
  const total = kb.files.length || 1;
  const done = kb.files.reduce((n, s) => n + sourceFraction(s), 0);
  return `${bar(done / total)} ${kb.name} (${kb.kbId}): ${c.ready} ready, ${c.failed} failed, ${c.processing} processing, ${c.pending} pending`;
}

/**
 * Draws progress on a terminal: the summary and the sources not yet done
 * (at most `maxLines`), redrawn in place; elsewhere (a pipe, a log) it writes
 * a line only when a source's status changes.
 */
export function createProgress(out: NodeJS.WriteStream, maxLines = 15) {
  let drawn = 0;
  const seen = new Map<string, string>();
  return {
    update(kb: KnowledgeBase): void {
      if (out.isTTY) {
        const open = kb.files.filter((s) => s.status === 'pending' || s.status === 'processing');
        const lines = [summaryLine(kb), ...open.slice(0, maxLines).map(sourceLine)];
        if (open.length > maxLines) lines.push(`  … and ${open.length - maxLines} more`);
        if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[0J`);
        out.write(`${lines.join('\n')}\n`);
        drawn = lines.length;
        return;
      }
      for (const s of kb.files) {
        if (seen.get(s.documentId) === s.status) continue;
        seen.set(s.documentId, s.status);
        out.write(`${sourceLine(s)}\n`);
      }
    },
  };
}

/** The failures, as a table: name, code, message. */
export function failureTable(kb: KnowledgeBase): string {
  const failed = kb.files.filter((s) => s.status === 'failed');
  if (failed.length === 0) return '';
  const name = sourceName;
  const w = Math.min(50, Math.max(4, ...failed.map((s) => name(s).length)));
  const code = Math.max(4, ...failed.map((s) => (s.error?.code ?? '').length));
  const rows = failed.map((s) => `${name(s).slice(0, w).padEnd(w)}  ${(s.error?.code ?? '').padEnd(code)}  ${s.error?.message ?? ''}`);
  return [`${'SOURCE'.padEnd(w)}  ${'CODE'.padEnd(code)}  MESSAGE`, ...rows].join('\n');
}
