import { afterEach, describe, expect, it } from 'vitest';
import { extractText } from '../../worker/extractors/index.js';
import { MIN_SHARED_PAGES } from '../../worker/extractors/pdf/split-read.js';
import { SandboxPool, type SandboxLimits, type SandboxStats } from '../../worker/sandbox/sandbox-pool.js';
import { buildPdf, type PdfRun } from '../fixtures/pdf.js';

// The production child, as TypeScript through tsx on a shared machine: slow, so the bounds are generous.
const limits: SandboxLimits = {
  timeoutMs: 240_000,
  memoryMb: 512,
  maxTextChars: 1_000_000,
  maxPdfPages: 500,
  chunking: { maxTokens: 64, overlapTokens: 8 },
};

const pools: SandboxPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function warmPool(size: number, overrides: Partial<SandboxLimits> = {}): Promise<SandboxPool> {
  const pool = new SandboxPool({ size, limits: { ...limits, ...overrides }, recycleRssMb: 450 });
  pools.push(pool);
  await pool.ready();
  return pool;
}

/** A report of `count` pages: a running header and footer, a heading, a paragraph that goes on over the page break. */
function report(count: number): Uint8Array {
  const pages = Array.from({ length: count }, (_, i): PdfRun[] => [
    { text: 'Annual Report of the Harbour Board', x: 72, y: 760, size: 9 },
    { text: `Section ${i + 1}`, x: 72, y: 700, size: 18, font: 'bold' },
    { text: `Cargo handled in month ${i + 1} rose by ${i * 3} per cent over the year before, and the`, x: 72, y: 660 },
    { text: `quay that opened in week ${i + 2} took most of it.`, x: 72, y: 644 },
    { text: `Page ${i + 1} of ${count}`, x: 280, y: 40, size: 9 },
  ]);
  return buildPdf({ pages, title: 'Harbour Board' });
}

async function extractInPool(pool: SandboxPool, bytes: Uint8Array) {
  let stats: SandboxStats | undefined;
  const extraction = await pool.extract(bytes, { filename: 'report.pdf' }, (s) => (stats = s));
  return { extraction, stats: stats! };
}

const inProcess = (bytes: Uint8Array, overrides: Partial<SandboxLimits> = {}) => {
  const { maxTextChars, maxPdfPages, chunking } = { ...limits, ...overrides };
  return extractText(bytes, { filename: 'report.pdf', maxTextChars, maxPdfPages, chunking });
};

describe('a long PDF read across the pool', () => {
  it('has idle children read page ranges and gives the same extraction as one child reading it all', async () => {
    const bytes = report(60);
    const pool = await warmPool(3);
    const { extraction, stats } = await extractInPool(pool, bytes);
    expect(stats.rangesLent).toBe(2);
    const alone = await inProcess(bytes);
    expect(extraction).toEqual(alone);
    // The running header was seen on pages read by different children and kept once.
    expect(extraction.markdown.match(/Annual Report of the Harbour Board/g)).toHaveLength(1);
    expect(extraction.markdown).not.toContain('Page 31 of 60');
    expect(extraction.pageStarts).toHaveLength(60);
  }, 600_000);

  it('keeps a document shorter than the threshold on one child', async () => {
    const pool = await warmPool(3);
    const { stats } = await extractInPool(pool, report(MIN_SHARED_PAGES - 1));
    expect(stats.outcome).toBe('ok');
    expect(stats.rangesLent).toBeUndefined();
  }, 600_000);

  it('applies the text limit to the whole document: no page after the one where the text passes it', async () => {
    // About 180 characters a page: the text passes the limit on a page of the second range.
    const maxTextChars = 5_500;
    const bytes = report(60);
    const pool = await warmPool(3, { maxTextChars });
    const { extraction, stats } = await extractInPool(pool, bytes);
    const alone = await inProcess(bytes, { maxTextChars });
    expect(stats.rangesLent).toBeGreaterThanOrEqual(1);
    expect(extraction).toEqual(alone);
    expect(extraction.truncated).toBe(true);
    expect(extraction.pageStarts!.length).toBeGreaterThan(20);
    expect(extraction.pageStarts!.length).toBeLessThan(40);
  }, 600_000);

  it('gives a lent child back to a job that comes while every child is busy, and still reads the whole PDF', async () => {
    const bytes = report(60);
    const pool = await warmPool(2);
    const before = pool.pids;
    const pdf = extractInPool(pool, bytes);
    await expect.poll(() => pool.lentChildren, { timeout: 120_000, interval: 10 }).toBe(1);
    let textStats: SandboxStats | undefined;
    const text = pool.extract(new TextEncoder().encode('A short note that needs a child now.'), { filename: 'note.txt' }, (s) => (textStats = s));
    const [{ extraction, stats }, note] = await Promise.all([pdf, text]);
    expect(note.text).toBe('A short note that needs a child now.');
    // The text did not wait for the range to end: the lent child was stopped and the text ran on its
    // successor (a range that ends keeps its child, so waiting would have run it on one of the first two).
    expect(before).toHaveLength(2);
    expect(before).not.toContain(textStats?.pid);
    expect(stats.rangesLent ?? 0).toBe(0);
    // The PDF's own child read the range it got back.
    expect(extraction).toEqual(await inProcess(bytes));
  }, 600_000);

  it('reads every range itself when the other children are busy', async () => {
    // The other child is busy with a PDF several times as long the whole time this one is read. (With two of the
    // same length, the first to end leaves an idle child that the other's last ranges may rightly borrow.)
    const long = report(240);
    const bytes = report(60);
    const pool = await warmPool(2);
    const [other, one] = await Promise.all([extractInPool(pool, long), extractInPool(pool, bytes)]);
    expect(one.stats.rangesLent ?? 0).toBe(0);
    expect(one.extraction).toEqual(await inProcess(bytes));
    expect(other.extraction).toEqual(await inProcess(long));
  }, 600_000);
});
