/**
 * Measures what the service keeps in Redis, on a throwaway redis-server, and
 * prints a sizing table. Each figure is the growth of `used_memory` (INFO
 * memory) over many items divided by their number, so hash-table, expiry and
 * allocator overheads are included; `MEMORY USAGE` of single keys is printed
 * beside it as a breakdown. Text is ASCII: text in other scripts takes two to
 * three bytes per character. Needs redis-server on PATH; about a minute.
 *
 *   npm run bench:sizing [-- --master-gb 8 --fill 0.75]
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { defaultJobOptions, EXTRACT_SOURCE_JOB, extractSourceJobId, INGEST_QUEUE, queuePrefix, type ExtractSourceJob } from '../shared/queue/jobs.js';
import type { StoredChunk } from '../shared/schemas/chunk.js';
import { createStore, type Store } from '../shared/store/index.js';
import { sourceFingerprint, type NewSource } from '../shared/store/kb-records.js';
import { KEPT_BYTES_TTL_SECONDS } from '../shared/store/kb-store.js';
import { UPLOAD_IDLE_TTL_SECONDS } from '../shared/store/stage-store.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

const { values: opts } = parseArgs({ options: { 'master-gb': { type: 'string', default: '8' }, fill: { type: 'string', default: '0.75' } } });
const MASTER_GB = Number(opts['master-gb']);
const FILL = Number(opts.fill);
const PREFIX = 'size';
const WS = 'ws_sizing';
/** About four characters per token at the default CHUNK_MAX_TOKENS of 512. */
const CHARS_PER_CHUNK = 2_000;
const MB = 1024 * 1024;
const GB = 1024 * MB;

let redis: Redis;
let store: Store;

const usedMemory = async (): Promise<number> => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);
const memoryUsage = async (key: string): Promise<number> => Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
const now = (): string => new Date().toISOString();

/** used_memory growth per item while `run` adds `n` items. */
async function perItem(n: number, run: () => Promise<void>): Promise<number> {
  const before = await usedMemory();
  await run();
  return ((await usedMemory()) - before) / n;
}

/** ASCII text of `chars` characters that does not compress into shared objects. */
function text(chars: number, seed: number): string {
  const words = ['ingest', 'knowledge', 'base', 'source', 'redis', 'cluster', 'extract', 'chunk', 'markdown', 'worker'];
  let out = `Document ${seed}. `;
  for (let i = 0; out.length < chars; i += 1) out += `${words[(i * 7 + seed) % words.length]} `;
  return out.slice(0, chars);
}

/** Chunk entries as the worker stores them: one per about 2,000 characters, with a heading path. */
function chunksFor(markdown: string): StoredChunk[] {
  const out: StoredChunk[] = [];
  for (let start = 0, index = 0; start < markdown.length; start += CHARS_PER_CHUNK, index += 1) {
    const end = Math.min(start + CHARS_PER_CHUNK, markdown.length);
    out.push({ index, charStart: start, charEnd: end, byteStart: start, byteEnd: end, tokens: Math.round((end - start) / 4), headings: ['Chapter title', 'Section title'] });
  }
  return out;
}

/** A file source as the API commits it, with the digest and fingerprint that de-duplication keeps. */
function fileSource(i: number): NewSource {
  const content = `quarterly-report-${i}.pdf`;
  const sha256 = createHash('sha256').update(content).digest('hex');
  return {
    documentId: `doc_${String(i).padStart(21, '0')}`,
    type: 'file',
    content,
    filename: content,
    declaredType: 'application/pdf',
    mimeType: 'application/pdf',
    sizeBytes: 250_000,
    sha256,
    fingerprint: sourceFingerprint({ type: 'file', content, sha256 }),
  };
}

async function measureStore() {
  // Knowledge bases: meta hash plus the workspace index entry.
  const KBS = 2_000;
  const perKb = await perItem(KBS, async () => {
    for (let i = 0; i < KBS; i += 1) await store.kbs.create({ workspaceId: WS, kbId: `kb_empty${String(i).padStart(16, '0')}`, name: 'A knowledge base name', sources: [], now: now() });
  });
  const kbMetaKey = await memoryUsage(store.keys.kb('kb_empty0000000000000000'));

  // Pending sources: source hash, id list entry, active index entry.
  const kbId = 'kb_sizing00000000000000';
  await store.kbs.create({ workspaceId: WS, kbId, name: 'Sizing', sources: [], now: now() });
  const SOURCES = 2_000;
  const perPending = await perItem(SOURCES, async () => {
    for (let i = 0; i < SOURCES; i += 100) {
      await store.kbs.addSources({ workspaceId: WS, kbId, sources: Array.from({ length: 100 }, (_, j) => fileSource(i + j)), now: now() });
    }
  });
  const sourceHashKey = await memoryUsage(store.keys.source(kbId, fileSource(0).documentId));

  // Ready sources of three sizes: text, Markdown and chunk list; the active entry goes.
  const ready: { chars: number; perSource: number; text: number; markdown: number; chunks: number; chunkCount: number }[] = [];
  let next = 0;
  for (const [chars, n] of [[1_000, 500], [10_000, 300], [100_000, 100]] as const) {
    const ids = Array.from({ length: n }, () => fileSource(next++).documentId);
    const delta = await perItem(n, async () => {
      for (const [k, documentId] of ids.entries()) {
        const body = text(chars, k);
        await store.kbs.startSourceReport({ kbId: kbId, documentId: documentId, run: 1 }, { now: now() });
        await store.kbs.finishSourceReport({ kbId: kbId, documentId: documentId, run: 1 }, { status: 'ready', text: body, markdown: body, chunks: chunksFor(body), truncated: false, mimeType: 'application/pdf', sizeBytes: 250_000, pageCount: 3 }, { now: now() });
      }
    });
    ready.push({
      chars,
      perSource: perPending + delta,
      text: await memoryUsage(store.keys.text(kbId, ids[0]!)),
      markdown: await memoryUsage(store.keys.markdown(kbId, ids[0]!)),
      chunks: await memoryUsage(store.keys.chunks(kbId, ids[0]!)),
      chunkCount: Math.ceil(chars / CHARS_PER_CHUNK),
    });
  }
  // Least-squares slope over the three sizes. The fixed part is the pending
  // metadata: a ready source keeps at least that, and the sum errs on the high side.
  const mx = ready.reduce((s, r) => s + r.chars, 0) / ready.length;
  const my = ready.reduce((s, r) => s + r.perSource, 0) / ready.length;
  const perChar = ready.reduce((s, r) => s + (r.chars - mx) * (r.perSource - my), 0) / ready.reduce((s, r) => s + (r.chars - mx) ** 2, 0);
  const readyFixed = perPending;

  // Staged upload bytes: streamed in 64 KiB writes, as the API does.
  const stagedPerMb: { mb: number; perMb: number }[] = [];
  for (const [mb, n] of [[1, 20], [10, 4]] as const) {
    const stages = Array.from({ length: n }, () => store.stages.open(kbId));
    const delta = await perItem(n, async () => {
      for (const stage of stages) {
        for (let sent = 0; sent < mb * MB; sent += 64 * 1024) await stage.write(Buffer.alloc(64 * 1024, 0x61 + (sent % 26)));
        await stage.flush();
      }
    });
    stagedPerMb.push({ mb, perMb: delta / mb });
    await store.stages.discard(stages);
  }
  return { perKb, kbMetaKey, perPending, sourceHashKey, ready, readyFixed, perChar, stagedPerMb };
}

async function measureQueue(url: string) {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = queuePrefix(PREFIX);
  const queue = new Queue(INGEST_QUEUE, { connection, prefix });
  const jobOpts = defaultJobOptions(5);
  const JOBS = 1_000;
  const data = (i: number, run: number): ExtractSourceJob => ({ workspaceId: WS, kbId: 'kb_sizing00000000000000', documentId: fileSource(i).documentId, run });
  const add = (run: number) =>
    queue.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: EXTRACT_SOURCE_JOB, data: data(i, run), opts: { ...jobOpts, jobId: extractSourceJobId(data(i, run)) } })));

  const waiting = await perItem(JOBS, async () => void (await add(1)));
  const finish = async (fail: boolean): Promise<void> => {
    let done = 0;
    const workerConnection = new Redis(url, { maxRetriesPerRequest: null });
    await new Promise<void>((resolve, reject) => {
      const worker = new Worker(
        INGEST_QUEUE,
        async () => {
          if (fail) throw new UnrecoverableError('corrupt: The file is damaged and could not be read');
          return { status: 'ready' };
        },
        { connection: workerConnection, prefix, concurrency: 50 },
      );
      const count = (): void => {
        done += 1;
        if (done === JOBS) void worker.close().then(resolve, reject);
      };
      worker.on(fail ? 'failed' : 'completed', count);
    });
    // BullMQ leaves a connection it was given open.
    await workerConnection.quit();
  };
  const before = await usedMemory();
  await finish(false);
  const completed = waiting + ((await usedMemory()) - before) / JOBS;
  const failedBefore = await usedMemory();
  await add(2);
  await finish(true);
  const failed = ((await usedMemory()) - failedBefore) / JOBS;
  const events = await memoryUsage(`${prefix}:${INGEST_QUEUE}:events`);
  const eventsLen = await connection.xlen(`${prefix}:${INGEST_QUEUE}:events`);
  await queue.close();
  await connection.quit();
  return { waiting, completed, failed, events, eventsLen, removeOnComplete: jobOpts.removeOnComplete, removeOnFail: jobOpts.removeOnFail };
}

const human = (bytes: number): string =>
  bytes >= GB ? `${(bytes / GB).toFixed(1)} GB` : bytes >= MB ? `${(bytes / MB).toFixed(bytes >= 100 * MB ? 0 : 1)} MB` : `${Math.round(bytes / 1024)} KB`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const server = await startRedisServer();
  try {
    redis = new Redis(server.url);
    store = createStore(redis, { prefix: PREFIX, blobTtlSeconds: 7 * 86_400 });
    const baseline = await usedMemory();
    const s = await measureStore();
    const q = await measureQueue(server.url);
    const trimmed = q.removeOnComplete as { count: number; age: number };
    const trimmedFail = q.removeOnFail as { count: number; age: number };
    const queueBound = trimmed.count * q.completed + trimmedFail.count * q.failed + q.events;

    const lines: string[] = [];
    const out = (l = ''): number => lines.push(l);
    out(`Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}, empty: ${human(baseline)} used_memory`);
    out();
    out('| what | Redis bytes | breakdown (MEMORY USAGE) |');
    out('|---|---|---|');
    out(`| a knowledge base (no sources) | ${int(s.perKb)} | meta hash ${int(s.kbMetaKey)}, plus its workspace index entry |`);
    out(`| a pending source (metadata) | ${int(s.perPending)} | source hash ${int(s.sourceHashKey)}, plus list and active-index entries |`);
    for (const r of s.ready) {
      out(`| a ready source of ${int(r.chars)} characters | ${int(r.perSource)} | text ${int(r.text)}, Markdown ${int(r.markdown)}, ${r.chunkCount} chunk entries ${int(r.chunks)} |`);
    }
    out(`| a ready source, for sizing | ${int(s.readyFixed)} + ${int(s.perChar * 1000)} per 1,000 characters | text and Markdown each hold the characters once; the chunk list adds about 7% |`);
    for (const st of s.stagedPerMb) out(`| staged file bytes (${st.mb} MB files) | ${int(st.perMb)} per MB | |`);
    out(`| a waiting job | ${int(q.waiting)} | |`);
    out(`| a completed job | ${int(q.completed)} | kept ${trimmed.age / 3600} h, newest ${int(trimmed.count)} at most |`);
    out(`| a failed job | ${int(q.failed)} | kept ${trimmedFail.age / 86_400} days, newest ${int(trimmedFail.count)} at most |`);
    out(`| the queue's event stream | ${int(q.events)} | ${int(q.eventsLen)} events (BullMQ trims it to about 10,000) |`);
    out(`| finished-job history, at most | ${human(queueBound)} | |`);
    out();
    out(`Staged bytes live ${UPLOAD_IDLE_TTL_SECONDS / 3600} h after their last write while an upload streams, until extraction once committed (STAGING_TTL_SECONDS, 7 days by default), ${KEPT_BYTES_TTL_SECONDS / 3600} h more after a failure a retry could fix, and not at all once the source is ready or failed for good.`);
    out();
    out(`Sizing (ready sources; plus the finished-job history and an empty Redis; maxmemory = data / ${FILL}; masters of ${MASTER_GB} GB maxmemory, at least 3):`);
    out();
    out('| knowledge bases | sources each | characters each | data | one Redis: maxmemory | cluster: masters |');
    out('|---|---|---|---|---|---|');
    const rows = [
      [100, 100, 10_000],
      [1_000, 100, 10_000],
      [1_000, 1_000, 10_000],
      [10_000, 100, 50_000],
      [10_000, 1_000, 10_000],
      [10_000, 1_000, 50_000],
    ] as const;
    for (const [n, m, chars] of rows) {
      const data = n * s.perKb + n * m * (s.readyFixed + s.perChar * chars) + queueBound + baseline;
      const maxmemory = data / FILL;
      const masters = Math.max(3, Math.ceil(maxmemory / (MASTER_GB * GB)));
      out(`| ${int(n)} | ${int(m)} | ${int(chars)} | ${human(data)} | ${human(maxmemory)} | ${masters} |`);
    }
    out();
    out(`Pending files add their bytes until extracted: a backlog of B MB of uploads takes about ${(s.stagedPerMb.at(-1)!.perMb / MB).toFixed(2)} × B MB.`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await redis?.quit().catch(() => undefined);
    await server.stop();
  }
}

await main();
