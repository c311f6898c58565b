/**
 * The performance benchmark: extraction through the sandbox pool beside
 * pdftotext and pandoc, the service end to end on its own redis-server
 * (files with one and two worker processes, text sources beside bare
 * BullMQ), GET of a knowledge base beside a bare handler, and the API's
 * memory under large uploads. Prints one Markdown table and writes the
 * medians to bench-results.json. The fairness section floods the queue from
 * one workspace with the corpus PDFs while three others add one text each.
 * Loopback only.
 *
 *   npm run bench -- [--only extract,e2e,fairness,text,get,upload,crawl,office,search,scale,ocr] [--runs 3] [--concurrency 2]
 *                    [--record] [--texts 2000] [--text-chars 500] [--per-patch 100] [--poll-ms 250] [--sources 1000] [--pages 300] [--duration 5] [--out bench-results.json] [--no-build | --dist DIR]
 *
 * `--record` appends the run (its date, machine, load, arguments and table) to
 * scripts/bench-rounds.json, the history of runs that docs/performance.md no
 * longer keeps.
 *
 * Needs redis-server on PATH and the corpus in ../shared/corpus (or CORPUS_DIR)
 * for the extract and e2e sections; pdftotext (poppler-utils) and pandoc are
 * used when installed.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { corpusDir, corpusPresent } from '../test/corpus/corpus-files.js';
import { benchExtract, type ExtractRow } from './lib/bench-extract-pool.js';
import { fairnessRun, OTHER_WORKSPACES, type FairnessRun } from './lib/bench-fairness.js';
import { BenchService, filesEndToEnd, textsEndToEnd, type EndToEndRun, type TextRun } from './lib/bench-service.js';
import { getSection } from './lib/bench-get.js';
import { fmt, printTable, type Row } from './lib/bench-table.js';
import { textSection } from './lib/bench-text.js';
import { crawlBench, type CrawlRun } from './lib/bench-crawl.js';
import { benchOffice } from './lib/bench-office.js';
import { searchRows } from './lib/bench-search-rows.js';
import { formatPaired, pairedRuns, type PairedResult } from './lib/bench-pairs.js';
import { folderFiles, hasTool, MB, median, referenceSeconds } from './lib/bench-util.js';
import { args, flag } from './lib/cli-args.js';
import { BENCH_HISTORY, recordRun } from './lib/bench-record.js';

const run = promisify(execFile);
const SECTIONS = ['extract', 'e2e', 'fairness', 'text', 'get', 'upload', 'crawl', 'office', 'search', 'scale', 'ocr'] as const;
type Section = (typeof SECTIONS)[number];

const only = new Set((flag('only')?.split(',') ?? SECTIONS) as Section[]);
const runs = Number(flag('runs') ?? 3);
const concurrency = Number(flag('concurrency') ?? 2);
const textCount = Number(flag('texts') ?? 2000);
// The second text shape: paragraphs in small requests while the client polls the knowledge base (issue 39).
const polled = { chars: Number(flag('text-chars') ?? 500), perPatch: Number(flag('per-patch') ?? 100), pollMs: Number(flag('poll-ms') ?? 250) };
const crawlPages = Number(flag('pages') ?? 300);
const durationS = Number(flag('duration') ?? 5);
const getSources = Number(flag('sources') ?? 1000);
const out = flag('out') ?? 'bench-results.json';
// Another compiled tree (`--dist ../main/dist`) measures that code with this bench: a before and after.
const distDir = flag('dist') ?? 'dist';

const rows: Row[] = [];
const results: Record<string, unknown> = {};
const say = (line: string): void => void process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`unknown section ${s}; use ${SECTIONS.join(',')}`);
  // npm run build, not tsc alone: it also copies the Lua scripts into dist/.
  if (!args.includes('--no-build') && !flag('dist')) await run('npm', ['run', 'build', '--silent']);
  const root = corpusDir();
  const corpus = corpusPresent(root);
  if (!corpus && (only.has('extract') || only.has('e2e') || only.has('fairness'))) say(`No corpus at ${root} (set CORPUS_DIR): skipping extract, e2e and fairness.`);
  results.machine = { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, runs, concurrency, loadBefore: loadavg() };

  const refCache = new Map<string, number>();
  if (corpus && only.has('extract')) {
    const extract = await benchExtract(root, { runs, concurrency, distDir });
    results.extract = extract;
    for (const r of extract) {
      if (r.reference) refCache.set(r.format, r.reference.seconds);
      rows.push(extractRow(r));
    }
  }
  if (corpus && only.has('e2e')) await endToEnd(root, refCache);
  if (corpus && only.has('fairness')) await fairness(root);
  if (only.has('text') || only.has('get') || only.has('crawl')) await serviceSections();
  if (only.has('upload')) await uploadMemory();
  if (corpus && only.has('office')) await office(root);
  if (only.has('search')) rows.push(...(await searchRows(results)));
  if (only.has('scale')) await scale(corpus ? root : undefined);
  if (only.has('ocr')) await ocr();

  (results.machine as Record<string, unknown>).loadAfter = loadavg();
  say(`load average (1, 5, 15 min): before ${fmtLoad((results.machine as { loadBefore: number[] }).loadBefore)}, after ${fmtLoad(loadavg())}`);
  printTable(rows);
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  say(`wrote ${out}`);
  if (args.includes('--record')) record();
}

/** Appends this run to the history of runs (scripts/bench-rounds.json). */
function record(): void {
  recordRun(BENCH_HISTORY, { date: new Date(), args, machine: results.machine, rows });
  say(`recorded in ${BENCH_HISTORY}`);
}

/** XLSX, ODS, PPTX, EPUB and ODT in process beside LibreOffice and pandoc (scripts/lib/bench-office.ts). */
async function office(root: string): Promise<void> {
  const office = await benchOffice(root, { runs, distDir });
  results.office = office;
  for (const r of office) {
    rows.push({
      measurement: `${r.format}: in process, file by file`,
      result: `${r.files} files, ${fmt(r.mb, 1)} MB: ${fmt(r.seconds)} s, ${r.failures} failed`,
      reference: r.reference ? `${r.reference.tool}, all files in one call` : '',
      referenceResult: r.reference ? `${fmt(r.reference.seconds)} s` : '',
      ratio: r.reference?.ratio,
      target: '≥ 1',
    });
  }
}

function extractRow(r: ExtractRow): Row {
  return {
    measurement: `${r.format}: sandbox pool (${concurrency} warm children)`,
    result: `${r.files} files, ${fmt(r.mb, 1)} MB: ${fmt(r.mbPerS)} MB/s, ${fmt(r.filesPerS, 1)} files/s, peak child RSS ${fmt(r.peakChildRssMb, 0)} MB, ${r.failures} failed`,
    reference: r.reference ? `${r.reference.tool}, file by file` : '',
    referenceResult: r.reference ? `${fmt(r.reference.mbPerS)} MB/s, ${fmt(r.files / r.reference.seconds, 1)} files/s, ${r.reference.failures} failed` : '',
    ratio: r.reference?.ratio,
    target: '',
  };
}

async function endToEnd(root: string, refCache: Map<string, number>): Promise<void> {
  const svc = await BenchService.start(distDir);
  const e2e: Record<string, unknown> = {};
  try {
    for (const [format, tool, target] of [
      ['pdf', 'pdftotext', 1],
      ['docx', 'pandoc', 3],
    ] as const) {
      const files = folderFiles(root, format);
      const mb = files.reduce((n, f) => n + f.bytes, 0) / MB;
      const haveTool = await hasTool(tool);
      // pdftotext reads text layers only: the PDF runs beside it do too (OCR_ENABLED=false), and one more
      // run shows the service as deployed, OCR on, reading the scanned and unmapped pages it leaves as symbols.
      const noOcr: { env: Record<string, string>; note: string } = format === 'pdf' ? { env: { OCR_ENABLED: 'false' }, note: ', OCR off' } : { env: {}, note: '' };
      const configs = [
        { workers: 1, concurrency, label: `1 worker process (WORKER_CONCURRENCY=${concurrency}${noOcr.note})`, env: noOcr.env, main: true },
        { workers: 1, concurrency: 1, label: `1 worker process (WORKER_CONCURRENCY=1${noOcr.note})`, env: noOcr.env },
        { workers: 2, concurrency: 1, label: `2 worker processes (WORKER_CONCURRENCY=1${noOcr.note})`, env: noOcr.env },
        ...(format === 'pdf' && (await hasTool('tesseract'))
          ? [{ workers: 1, concurrency, label: `1 worker process (WORKER_CONCURRENCY=${concurrency}, OCR on, as deployed)`, env: {} }]
          : []),
      ];
      const medians: Record<string, EndToEndRun & { allSeconds: number[] }> = {};
      let refS = refCache.get(format);
      let paired: PairedResult | undefined;
      for (const c of configs) {
        const measured: EndToEndRun[] = [];
        const once = async (): Promise<EndToEndRun> => {
          const m = await filesEndToEnd(svc, files, c.workers, c.concurrency, c.env);
          measured.push(m);
          return m;
        };
        if ('main' in c && haveTool) {
          // The figure the target is about: our run and the reference tool's in turns, rated pair by pair.
          paired = await pairedRuns(
            async () => (await once()).seconds,
            async () => (await referenceSeconds(tool, files)).seconds,
            runs,
            { onRun: (r) => say(`e2e ${format} ${r.side === 'ours' ? c.label : tool}: ${fmt(r.value)} s (load ${fmt(r.loadBefore, 1)})`) },
          );
          refS = paired.reference;
        } else {
          for (let i = 0; i < runs; i++) await once();
        }
        const m = medianRun(measured);
        medians[c.label] = { ...m, allSeconds: measured.map((x) => x.seconds) };
        say(`e2e ${format} ${c.label}: ${fmt(m.seconds)} s`);
        const isPaired = 'main' in c && paired !== undefined;
        rows.push({
          measurement: `${format} folder end to end, ${c.label}`,
          result: `${files.length} files, ${fmt(mb, 1)} MB in ${fmt(m.seconds)} s: ${fmt(mb / m.seconds)} MB/s, ${m.failed} failed, peak worker+children RSS ${fmt(m.peakWorkerRssMb, 0)} MB`,
          reference: refS === undefined ? '' : `${tool}, file by file${isPaired ? ', in turns with ours' : ''}`,
          referenceResult: refS === undefined ? '' : `${fmt(refS)} s${isPaired ? `; paired ratio ${formatPaired(paired!)}` : ''}`,
          ratio: isPaired ? paired!.ratio : refS === undefined ? undefined : refS / m.seconds,
          target: 'main' in c ? `>= ${target}` : '',
        });
      }
      const one = medians[configs[1]!.label]!;
      const two = medians[configs[2]!.label]!;
      rows.push({
        measurement: `${format} folder: 2 worker processes vs 1 (WORKER_CONCURRENCY=1)`,
        result: `${fmt(two.seconds)} s`,
        reference: '1 worker process',
        referenceResult: `${fmt(one.seconds)} s`,
        ratio: one.seconds / two.seconds,
        target: format === 'pdf' ? '>= 1.7' : '',
      });
      e2e[format] = { files: files.length, mb, referenceSeconds: refS, runs: medians, ...(paired ? { paired } : {}) };
    }
  } finally {
    await svc.close();
  }
  results.e2e = e2e;
}

/**
 * The flood alone, then the flood with three other workspaces' texts, `runs`
 * times each on one worker process. Targets: each text ready within a quarter
 * of the flood's time and within the longest single job plus one second; the
 * flood no slower than alone by more than 5%.
 */
async function fairness(root: string): Promise<void> {
  const files = folderFiles(root, 'pdf');
  const svc = await BenchService.start(distDir);
  try {
    const alone: FairnessRun[] = [];
    const shared: FairnessRun[] = [];
    for (let i = 0; i < runs; i++) {
      alone.push(await fairnessRun(svc, files, concurrency, false));
      shared.push(await fairnessRun(svc, files, concurrency, true));
      say(`fairness run ${i + 1}: flood alone ${fmt(alone[i]!.floodSeconds)} s; with texts ${fmt(shared[i]!.floodSeconds)} s, texts ${shared[i]!.textSeconds.map((t) => fmt(t)).join(', ')} s after ${shared[i]!.floodJobsBefore.join(', ')} flood jobs started, longest job ${fmt(shared[i]!.longestJobSeconds)} s`);
    }
    const floodAlone = median(alone.map((r) => r.floodSeconds));
    const flood = median(shared.map((r) => r.floodSeconds));
    const worstText = Math.max(...shared.map((r) => Math.max(...r.textSeconds)));
    const longestJob = Math.max(...shared.map((r) => r.longestJobSeconds));
    const mostBefore = Math.max(...shared.flatMap((r) => r.floodJobsBefore));
    rows.push({
      measurement: `fairness: ${files.length} PDFs from one workspace, then ${OTHER_WORKSPACES} workspaces add one text each (1 worker process, WORKER_CONCURRENCY=${concurrency})`,
      result: `slowest text ready in ${fmt(worstText)} s (of ${runs * OTHER_WORKSPACES}), started after at most ${mostBefore} of the flood's jobs; flood ${fmt(flood)} s; longest job ${fmt(longestJob)} s`,
      reference: 'a quarter of the flood; longest job + 1 s',
      referenceResult: `${fmt(flood / 4)} s; ${fmt(longestJob + 1)} s`,
      ratio: worstText / Math.min(flood / 4, longestJob + 1),
      target: '<= 1',
    });
    rows.push({
      measurement: 'fairness: flood time with the three texts vs alone',
      result: `${fmt(flood)} s`,
      reference: 'the flood alone',
      referenceResult: `${fmt(floodAlone)} s`,
      ratio: flood / floodAlone,
      target: '<= 1.05',
    });
    results.fairness = { files: files.length, floodAloneSeconds: floodAlone, floodSeconds: flood, worstTextSeconds: worstText, longestJobSeconds: longestJob, mostFloodJobsBefore: mostBefore, alone, shared };
  } finally {
    await svc.close();
  }
}

async function serviceSections(): Promise<void> {
  const svc = await BenchService.start(distDir);
  try {
    if (only.has('text')) {
      const text = await textSection(svc, { runs, count: textCount, concurrency, distDir, say, polled });
      rows.push(...text.rows);
      results.text = text.result;
    }
    if (only.has('get')) {
      const get = await getSection(svc, { runs, durationS, sources: getSources, say });
      rows.push(...get.rows);
      results.get = get.result;
    }
    if (only.has('crawl')) {
      const all: CrawlRun[] = [];
      for (let i = 0; i < runs; i++) all.push(await crawlBench(svc, crawlPages, concurrency));
      const site = median(all.map((r) => r.siteSeconds));
      const urls = median(all.map((r) => r.urlSeconds));
      const siteCmds = median(all.map((r) => r.siteCommandsPerPage));
      const urlCmds = median(all.map((r) => r.urlCommandsPerPage));
      say(`crawl: site ${fmt(site)} s, URL list ${fmt(urls)} s; Redis commands/page ${fmt(siteCmds, 1)} vs ${fmt(urlCmds, 1)}`);
      rows.push({
        measurement: `${crawlPages} loopback pages as one site source (sitemap), 1 worker process (WORKER_CONCURRENCY=${concurrency})`,
        result: `${fmt(crawlPages / site, 1)} pages/s, ${fmt(siteCmds, 1)} Redis commands/page`,
        reference: 'the same pages in knowledge_base_urls',
        referenceResult: `${fmt(crawlPages / urls, 1)} pages/s, ${fmt(urlCmds, 1)} Redis commands/page`,
        ratio: urls / site,
        target: '>= 0.9',
      });
      results.crawl = { pages: crawlPages, siteSeconds: site, urlSeconds: urls, siteCommandsPerPage: siteCmds, urlCommandsPerPage: urlCmds, runs: all };
    }
  } finally {
    await svc.close();
  }
}

/**
 * Scale-out: the same texts (and, with the corpus, the PDF folder, OCR off)
 * through 1, 2 and 3 worker processes of WORKER_CONCURRENCY=1 on this
 * machine, `runs` times each in turns (1, 2, 3, 1, 2, 3, ...), with the Redis
 * commands and Redis CPU per source: the figures docs/operations.md's sizing
 * table is read from.
 */
async function scale(root: string | undefined): Promise<void> {
  const svc = await BenchService.start(distDir);
  const counts = [1, 2, 3];
  const out: Record<string, unknown> = {};
  try {
    const texts: Record<number, TextRun[]> = { 1: [], 2: [], 3: [] };
    const pdfs: Record<number, EndToEndRun[]> = { 1: [], 2: [], 3: [] };
    const files = root ? folderFiles(root, 'pdf') : [];
    for (let i = 0; i < runs; i++) {
      for (const w of counts) {
        const t = await textsEndToEnd(svc, textCount, 1, w);
        texts[w]!.push(t);
        say(`scale texts, ${w} worker processes: ${fmt(t.seconds)} s (load ${fmt(loadavg()[0] ?? 0, 1)})`);
        if (files.length > 0) {
          const p = await filesEndToEnd(svc, files, w, 1, { OCR_ENABLED: 'false' });
          pdfs[w]!.push(p);
          say(`scale pdf, ${w} worker processes: ${fmt(p.seconds)} s (load ${fmt(loadavg()[0] ?? 0, 1)})`);
        }
      }
    }
    const cores = cpus().length;
    for (const w of counts) {
      const t = median(texts[w]!.map((r) => r.seconds));
      const cmds = median(texts[w]!.map((r) => r.redis.commandsPerJob));
      const redisMs = median(texts[w]!.map((r) => r.redis.redisCpuMsPerJob));
      rows.push({
        measurement: `scale-out: ${textCount} texts, ${w} worker process${w > 1 ? 'es' : ''} (WORKER_CONCURRENCY=1)`,
        result: `${fmt(textCount / t, 0)} sources/s (${fmt(textCount / t / cores, 0)} per core), ${fmt(cmds, 1)} Redis commands and ${fmt(redisMs, 3)} ms Redis CPU per source`,
        reference: w === 1 ? '' : '1 worker process',
        referenceResult: w === 1 ? '' : `${fmt(textCount / median(texts[1]!.map((r) => r.seconds)), 0)} sources/s`,
        ratio: w === 1 ? undefined : median(texts[1]!.map((r) => r.seconds)) / t,
        target: '',
      });
      if (files.length > 0) {
        const p = median(pdfs[w]!.map((r) => r.seconds));
        const mb = files.reduce((n, f) => n + f.bytes, 0) / MB;
        rows.push({
          measurement: `scale-out: ${files.length} corpus PDFs (${fmt(mb, 1)} MB, OCR off), ${w} worker process${w > 1 ? 'es' : ''} (WORKER_CONCURRENCY=1)`,
          result: `${fmt(files.length / p, 2)} sources/s, ${fmt(mb / p)} MB/s (${fmt(p)} s), peak RSS ${fmt(Math.max(...pdfs[w]!.map((r) => r.peakWorkerRssMb)), 0)} MB`,
          reference: w === 1 ? '' : '1 worker process',
          referenceResult: w === 1 ? '' : `${fmt(median(pdfs[1]!.map((r) => r.seconds)))} s`,
          ratio: w === 1 ? undefined : median(pdfs[1]!.map((r) => r.seconds)) / p,
          target: '',
        });
      }
    }
    out.texts = texts;
    out.pdfs = pdfs;
  } finally {
    await svc.close();
  }
  results.scale = out;
}

/**
 * Runs the pool-beside-bare-tesseract part of scripts/bench-ocr.ts (scans of
 * known text, the same rendered pages read by both, in pairs) and keeps its
 * row; skipped, saying so, without tesseract.
 */
async function ocr(): Promise<void> {
  if (!(await hasTool('tesseract'))) {
    say('No tesseract on PATH: skipping ocr.');
    return;
  }
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/bench-ocr.ts', '--pool-only', '--runs', String(runs)], { maxBuffer: 16 * MB });
  const row = stdout.split('\n').find((l) => /^\| [\d.]+ \| [\d.]+ \| /.test(l));
  const cells = row?.split('|').map((c) => c.trim()).filter(Boolean) ?? [];
  results.ocr = { output: stdout.trim().split('\n') };
  rows.push({
    measurement: 'OCR of scanned pages through the sandbox pool (pdftoppm, 300 DPI), one child',
    result: cells.length >= 5 ? `${cells[0]} pages/s, CER ${cells[4]}, load ${cells[3]}` : 'see bench-results.json',
    reference: 'bare tesseract on the same page images, in turns',
    referenceResult: cells.length >= 2 ? `${cells[1]} pages/s` : '',
    ratio: cells[2],
    target: '>= 0.8',
  });
}

/** Runs scripts/bench-upload-memory.ts (it starts its own Redis and API) and keeps its figures. */
async function uploadMemory(): Promise<void> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/bench-upload-memory.ts'], { maxBuffer: 16 * MB });
  const growth = /API RSS baseline ([\d.]+) MB, peak ([\d.]+) MB, growth ([\d.]+) MB/.exec(stdout);
  const statuses = (label: string): string => new RegExp(`${label}: 8 x (\\d+) MB -> statuses \\[([^\\]]*)\\]`).exec(stdout)?.slice(1).join(' MB: ') ?? '?';
  results.upload = { output: stdout.trim().split('\n') };
  rows.push({
    measurement: 'API RSS under 8 concurrent uploads refused (100 MB) then 8 accepted (20 MB)',
    result: growth ? `baseline ${growth[1]} MB, peak ${growth[2]} MB, growth ${growth[3]} MB` : 'see bench-results.json',
    reference: '',
    referenceResult: `refused ${statuses('refuse')}; accepted ${statuses('accept')}`,
    ratio: undefined,
    target: 'growth < 100 MB',
  });
}

const fmtLoad = (l: number[]): string => l.map((x) => fmt(x, 1)).join(', ');

function medianRun(xs: EndToEndRun[]): EndToEndRun {
  const seconds = median(xs.map((x) => x.seconds));
  const closest = xs.reduce((a, b) => (Math.abs(b.seconds - seconds) < Math.abs(a.seconds - seconds) ? b : a));
  return { ...closest, seconds, peakWorkerRssMb: Math.max(...xs.map((x) => x.peakWorkerRssMb)) };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
