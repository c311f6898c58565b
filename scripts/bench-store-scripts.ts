/**
 * The slowest Redis call (script or command) of the store's heavy writes, on a
 * throwaway redis-server with `slowlog-log-slower-than 0`:
 *   1. the finish of a source whose text and Markdown are `--mb` MB each
 *      (chunks of about 2,000 characters, the default 512 tokens), and its feed events;
 *   2. the commit of a file that reuses that extraction (same bytes, same workspace);
 *   3. the deletion of a knowledge base of `--sources` ready sources;
 *   4. a metadata change of the large source (its chunk.upserted batches);
 *   5. a re-chunk of the large source into half as many chunks;
 *   6. the deletion of the large source;
 *   7. the claim and finish of a batch of 64 texts;
 *   8. the deletion of a site of `--site-pages` pages among `--sources` sources.
 *
 *   npx tsx scripts/bench-store-scripts.ts [--mb 5] [--sources 2000] [--site-pages 500] [--runs 3]
 *
 * Needs redis-server on PATH; about half a minute.
 */
import { Redis } from 'ioredis';
import { chunkingTag, DEFAULT_CHUNK_SETTINGS } from '../shared/chunking/chunk-settings.js';
import type { StoredChunk } from '../shared/schemas/chunk.js';
import { sourceFingerprint, type NewSource } from '../shared/store/kb-records.js';
import { createStore, type Store } from '../shared/store/index.js';
import { createHash } from 'node:crypto';
import { loadScript, SCRIPTS } from '../shared/store/commands.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { SeededRandom } from './lib/seeded-random.js';

const WS = 'ws_bench_scripts';
const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const MB_TEXT = arg('--mb', 5);
const SOURCES = arg('--sources', 2000);
const SITE_PAGES = arg('--site-pages', 500);
const now = () => new Date().toISOString();
const random = new SeededRandom(7);
const WORDS = ['ledger', 'invoice', 'refund', 'desk', 'policy', 'return', 'window', 'carrier', 'parcel', 'warranty', 'claim', 'region'];

/** `bytes` of prose cut into chunks of about `chunkChars` characters. */
function textOf(bytes: number, chunkChars: number): { text: string; chunks: StoredChunk[] } {
  const parts: string[] = [];
  const chunks: StoredChunk[] = [];
  let at = 0;
  while (at < bytes) {
    let body = `## Section ${chunks.length}\n\n`;
    while (body.length < chunkChars) body += `${WORDS[random.int(0, WORDS.length - 1)]} `;
    body = `${body.trim()}\n\n`;
    const end = at + body.length - 2;
    chunks.push({ index: chunks.length, charStart: at, charEnd: end, byteStart: at, byteEnd: end, tokens: Math.ceil((end - at) / 4), headings: [`Section ${chunks.length}`] });
    parts.push(body);
    at += body.length;
  }
  return { text: parts.join(''), chunks };
}

type SlowEntry = [number, number, number, (string | Buffer)[]];

/** Each store script's name by the SHA1 its EVALSHA names. */
const NAMES = new Map(SCRIPTS.map((d) => [createHash('sha1').update(loadScript(d.file)).digest('hex'), d.name]));

/** The slowest script and the slowest other command since the last reset (µs), with the number of calls of each, and each script's calls. */
async function slowest(redis: Redis): Promise<{ micros: number; what: string; calls: number; command: { micros: number; what: string }; commands: number; byScript: Map<string, number[]> }> {
  const log = (await redis.call('SLOWLOG', 'GET', '-1')) as SlowEntry[];
  await redis.call('SLOWLOG', 'RESET');
  const worst = { micros: 0, what: '', calls: 0, command: { micros: 0, what: '' }, commands: 0, byScript: new Map<string, number[]>() };
  if (process.env.BENCH_TOP) {
    const top = [...log].sort((a, b) => b[2] - a[2]).slice(0, Number(process.env.BENCH_TOP));
    for (const [, , micros, argv] of top) console.log(`  ${micros} µs ${argv.slice(0, 4).map((a) => String(a).slice(0, 60)).join(' ')}`);
  }
  for (const [, , micros, argv] of log) {
    const name = String(argv[0]).toUpperCase();
    if (name === 'SLOWLOG') continue;
    if (name.startsWith('EVAL')) {
      worst.calls++;
      const script = name === 'EVALSHA' ? (NAMES.get(String(argv[1])) ?? String(argv[1]).slice(0, 8)) : 'EVAL';
      worst.byScript.set(script, [...(worst.byScript.get(script) ?? []), micros]);
      if (micros > worst.micros) Object.assign(worst, { micros, what: `script on ${String(argv[3] ?? '')}` });
    } else {
      worst.commands++;
      if (micros > worst.command.micros) worst.command = { micros, what: name };
    }
  }
  return worst;
}

const ms = (micros: number) => `${(micros / 1000).toFixed(2)} ms`;
async function readyText(store: Store, kbId: string, documentId: string, text: string, chunks: StoredChunk[], file?: { sha256: string }): Promise<void> {
  const source: NewSource = file
    ? { documentId, type: 'file', content: 'big.pdf', filename: 'big.pdf', sha256: file.sha256, fingerprint: sourceFingerprint({ type: 'file', content: 'big.pdf', sha256: file.sha256 }) }
    : { documentId, type: 'text', content: text.slice(0, 100), fingerprint: sourceFingerprint({ type: 'text', content: `${documentId}${text.slice(0, 100)}` }) };
  await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources: [source], now: now() });
  await store.kbs.startSourceReport({ kbId, documentId, run: 1 }, { now: now() });
}

const RUNS = arg('--runs', 3);

/** One run of the four phases, on knowledge bases of its own. */
async function runOnce(redis: Redis, store: Store, run: number): Promise<Record<string, Awaited<ReturnType<typeof slowest>>>> {
  const out: Record<string, Awaited<ReturnType<typeof slowest>>> = {};
  const big = textOf(MB_TEXT * 1024 * 1024, 2000);
  const sha256 = String(run).padStart(64, 'a');
  const kbId = `kb_bench_big${run}`;
  const documentId = `doc_bench_big${String(run).padStart(8, '0')}`;
  await readyText(store, kbId, documentId, big.text, big.chunks, { sha256 });
  await redis.call('SLOWLOG', 'RESET');
  const finish = await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text: big.text, markdown: big.text, chunks: big.chunks, truncated: false, mimeType: 'application/pdf', chunking: chunkingTag(DEFAULT_CHUNK_SETTINGS) }, { now: now() });
  if (finish.result !== 'ok') throw new Error(`finish: ${finish.result}`);
  out[`finish of ${MB_TEXT} MB text + ${MB_TEXT} MB Markdown, ${big.chunks.length} chunks`] = await slowest(redis);

  await store.kbs.recordExtractedFile(WS, sha256, kbId, documentId);
  const kb2 = `kb_bench_reuse${run}`;
  await store.kbs.create({ workspaceId: WS, kbId: kb2, name: kb2, sources: [], now: now() });
  await redis.call('SLOWLOG', 'RESET');
  const reusing: NewSource = { documentId: `doc_bench_reuse${String(run).padStart(6, '0')}`, type: 'file', content: 'again.pdf', filename: 'again.pdf', sha256, fingerprint: sourceFingerprint({ type: 'file', content: 'again.pdf', sha256 }) };
  const found = await store.kbs.findReusable(WS, [reusing]);
  if (!found.has(reusing.documentId)) throw new Error('nothing to reuse');
  await store.kbs.addSources({ workspaceId: WS, kbId: kb2, sources: [{ ...reusing, reuse: found.get(reusing.documentId)! }], now: now() });
  const reused = await redis.hget(store.keys.source(kb2, reusing.documentId), 'status');
  out[`commit of a file reusing that extraction (${reused})`] = await slowest(redis);

  await redis.call('SLOWLOG', 'RESET');
  await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'birds' }, now());
  out['metadata change of the large source'] = await slowest(redis);

  const merged: StoredChunk[] = [];
  for (let i = 0; i < big.chunks.length; i += 2) {
    const last = big.chunks[Math.min(i + 1, big.chunks.length - 1)]!;
    merged.push({ ...big.chunks[i]!, index: merged.length, charEnd: last.charEnd, byteEnd: last.byteEnd });
  }
  await redis.call('SLOWLOG', 'RESET');
  const settings = DEFAULT_CHUNK_SETTINGS;
  const rechunk = await store.kbs.rechunkSourceReport({ kbId, documentId, run: 1, chunking: settings, defaultChunking: settings, chunks: merged, markdown: big.text, now: now() });
  if (rechunk.result !== 'ok') throw new Error(`rechunk: ${rechunk.result}`);
  out[`re-chunk of the large source into ${merged.length} chunks`] = await slowest(redis);

  await redis.call('SLOWLOG', 'RESET');
  await store.kbs.deleteSource({ workspaceId: WS, kbId, documentId }, now());
  out[`deletion of the large source (${merged.length} chunks)`] = await slowest(redis);

  const kb4 = `kb_bench_texts${run}`;
  const paragraphs: NewSource[] = Array.from({ length: 64 }, (_, i) => {
    const content = `${run} ${i} ${textOf(500, 500).text}`;
    return { documentId: `doc_bench_t${run}${String(i).padStart(9, '0')}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
  });
  await store.kbs.create({ workspaceId: WS, kbId: kb4, name: kb4, sources: paragraphs, now: now() });
  await redis.call('SLOWLOG', 'RESET');
  const batch = paragraphs.map((p) => ({ documentId: p.documentId, run: 1 }));
  await store.kbs.startTexts(kb4, batch, { now: now(), claim: 'bench', workspaceId: WS });
  const one = textOf(500, 200);
  await store.kbs.finishTexts(kb4, paragraphs.map((p) => ({ documentId: p.documentId, run: 1, outcome: { status: 'ready' as const, text: p.content, chunks: one.chunks.map((c) => ({ ...c, charEnd: Math.min(c.charEnd, p.content.length), byteEnd: Math.min(c.byteEnd, p.content.length) })), truncated: false } })), { now: now(), claim: 'bench' });
  out['claim and finish of a batch of 64 texts of about 500 characters'] = await slowest(redis);

  const kb5 = `kb_bench_site${run}`;
  const siteId = `site_bench${String(run).padStart(12, '0')}`;
  const pageText = textOf(10_000, 2000);
  const urlSource = (i: number, site: boolean): NewSource => {
    const content = `https://example.com/${run}/${site ? 'site' : 'own'}/${i}.html`;
    return { documentId: `doc_bench_${site ? 's' : 'o'}${run}${String(i).padStart(9, '0')}`, type: 'url', content, fingerprint: sourceFingerprint({ type: 'url', content }), ...(site && { siteId }) };
  };
  const pages = Array.from({ length: SITE_PAGES }, (_, i) => urlSource(i, true));
  const others = Array.from({ length: SOURCES - SITE_PAGES }, (_, i) => urlSource(i, false));
  await store.kbs.create({ workspaceId: WS, kbId: kb5, name: kb5, now: now(), sites: [{ siteId, url: 'https://example.com/', maxPages: SITE_PAGES, maxDepth: 1, sitemap: 'auto' }], sources: [...others.slice(0, others.length / 2), ...pages, ...others.slice(others.length / 2)] });
  for (const page of pages) {
    const ref = { kbId: kb5, documentId: page.documentId, run: 1 };
    await store.kbs.startSourceReport(ref, { now: now() });
    await store.kbs.finishSourceReport(ref, { status: 'ready', text: pageText.text, chunks: pageText.chunks, truncated: false }, { now: now() });
  }
  await redis.call('SLOWLOG', 'RESET');
  await store.sites.delete({ workspaceId: WS, kbId: kb5, siteId }, now());
  out[`deletion of a site of ${SITE_PAGES} pages (${pageText.chunks.length} chunks each) among ${SOURCES} sources`] = await slowest(redis);

  const kb3 = `kb_bench_many${run}`;
  const small = textOf(3000, 2000);
  const sources: NewSource[] = Array.from({ length: SOURCES }, (_, i) => {
    const content = `${run} ${i} ${small.text.slice(0, 200)}`;
    return { documentId: `doc_bench_m${run}${String(i).padStart(9, '0')}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
  });
  await store.kbs.create({ workspaceId: WS, kbId: kb3, name: kb3, sources, now: now() });
  for (const s of sources) {
    const ref = { kbId: kb3, documentId: s.documentId, run: 1 };
    await store.kbs.startSourceReport(ref, { now: now() });
    await store.kbs.finishSourceReport(ref, { status: 'ready', text: small.text, markdown: small.text, chunks: small.chunks, truncated: false }, { now: now() });
  }
  await redis.call('SLOWLOG', 'RESET');
  await store.kbs.delete(WS, kb3);
  const left = (await redis.keys(`bs:{kb:${kb3}}:*`)).filter((k) => !/:(changes|outbox)(:info)?$/.test(k));
  out[`delete of a knowledge base of ${SOURCES} sources (keys left: ${left.length})`] = await slowest(redis);
  return out;
}

async function main(): Promise<void> {
  const server = await startRedisServer({ args: ['--slowlog-log-slower-than', '0', '--slowlog-max-len', '1000000'] });
  const redis = new Redis(server.url);
  try {
    const store = createStore(redis, { prefix: 'bs', blobTtlSeconds: 3600 });
    const runs: Record<string, Awaited<ReturnType<typeof slowest>>>[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await runOnce(redis, store, run));
    console.log(`${RUNS} runs (SLOWLOG at threshold 0; slowest script of each run, its median; slowest other command of all runs)`);
    for (const phase of Object.keys(runs[0]!)) {
      const rows = runs.map((r) => r[phase] ?? Object.values(r)[Object.keys(runs[0]!).indexOf(phase)]!);
      const scripts = rows.map((w) => w.micros).sort((a, b) => a - b);
      const worstCommand = rows.reduce((a, b) => (b.command.micros > a.command.micros ? b : a)).command;
      const byScript = new Map<string, number[]>();
      for (const r of rows) for (const [name, times] of r.byScript) byScript.set(name, [...(byScript.get(name) ?? []), ...times]);
      const per = [...byScript].map(([name, times]) => {
        const sorted = [...times].sort((a, b) => a - b);
        return `${name} ${sorted.length} calls, median ${ms(sorted[Math.floor(sorted.length / 2)]!)}, max ${ms(sorted[sorted.length - 1]!)}`;
      });
      console.log(`${phase}: slowest script ${scripts.map(ms).join(' / ')} (median ${ms(scripts[Math.floor(scripts.length / 2)]!)}), ${rows[0]!.calls} scripts a run; slowest other command ${ms(worstCommand.micros)} (${worstCommand.what}) of ${rows[0]!.commands} a run\n    ${per.join('\n    ')}`);
    }
    console.log(`load average: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

await main();
