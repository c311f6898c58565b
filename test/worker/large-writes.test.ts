import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkingTag, DEFAULT_CHUNK_SETTINGS } from '../../shared/chunking/chunk-settings.js';
import { feedEntries } from '../../shared/feed/feed-entries.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import type { StoredChunk } from '../../shared/schemas/chunk.js';
import { emitChunks, SCRIPT_ARG_MAX_BYTES, stageExtraction } from '../../shared/store/chunk-emission.js';
import { runScript, withCommands } from '../../shared/store/commands.js';
import { sourceFingerprint, type NewSource } from '../../shared/store/kb-records.js';
import { SWEEP_GRACE_MS } from '../../shared/store/kb-sweep.js';
import type { Store } from '../../shared/store/index.js';
import { deleteKbScript, deleteSourceScript, DROP_BATCH, SWEEP_BATCH } from '../../shared/store/scripts/delete-scripts.js';
import { finishSourceScript } from '../../shared/store/scripts/worker-transition-scripts.js';
import { deleteSiteScript } from '../../shared/store/scripts/site-scripts.js';
import { STAGED_TTL_SECONDS } from '../../shared/store/staging.js';
import { METADATA_STALE_MS, reconcile } from '../../worker/reconciler.js';
import { openSlowlogStore, type SlowlogStore } from '../helpers/slowlog-store.js';
import { largeText } from '../helpers/large-text.js';
import { FINISH_TEXTS_MAX_SOURCES } from '../../shared/store/source-transitions.js';
import type { Config } from '../../shared/runtime/config.js';
import { textOutcome } from '../../worker/jobs/ingest-source.js';

/**
 * Large writes stay short scripts: a large extraction is staged in keys of
 * its own and renamed into place, its feed events emitted in batches; a
 * deleted knowledge base's keys are swept in batches. Nothing is lost to a
 * crash between the steps, and nothing is left behind for good.
 */
const WS = 'ws-large-writes';
let own: SlowlogStore;
let redis: Redis;
let store: Store;
let queue: Queue;
const now = () => new Date().toISOString();


type SlowEntry = [number, number, number, string[]];

/** The bytes of each script call's JSON argument since the last reset (SLOWLOG at 0 keeps a long argument's length). */
async function scriptArgBytes(): Promise<number[]> {
  const log = (await redis.slowlog('GET', -1)) as SlowEntry[];
  await redis.slowlog('RESET');
  return log
    .filter((e) => /^(EVALSHA|EVAL)$/i.test(String(e[3][0])))
    .map((e) => {
      const last = String(e[3][e[3].length - 1]);
      const more = /\.\.\. \((\d+) more bytes\)$/.exec(last);
      return more ? 128 + Number(more[1]) : Buffer.byteLength(last);
    });
}

/** A knowledge base with one file source (or URL source), claimed by run 1. */
async function claimedSource(kbId: string, type: 'file' | 'url' = 'file'): Promise<{ documentId: string }> {
  const documentId = `doc_${kbId.slice(3)}`.padEnd(21, '0').slice(0, 21);
  const sha256 = kbId.padEnd(64, '0').slice(0, 64);
  const url = `https://example.com/${kbId}`;
  const source: NewSource =
    type === 'file'
      ? { documentId, type: 'file', content: 'big.pdf', filename: 'big.pdf', sha256, fingerprint: sourceFingerprint({ type: 'file', content: 'big.pdf', sha256 }) }
      : { documentId, type: 'url', content: url, fingerprint: sourceFingerprint({ type: 'url', content: url }) };
  await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources: [source], now: now() });
  await store.kbs.startSourceReport({ kbId, documentId, run: 1 }, { now: now() });
  return { documentId };
}

/** A URL source of run 1 ended ready with `bytes` of text in many chunks (more than two batches of chunk.deleted). */
async function readyManyChunks(kbId: string, bytes: number, seed: string): Promise<{ documentId: string; big: ReturnType<typeof largeText> }> {
  const { documentId } = await claimedSource(kbId, 'url');
  const big = largeText(bytes, seed);
  await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text: big.text, chunks: big.chunks, truncated: false }, { now: now() });
  expect(big.chunks.length).toBeGreaterThan(2 * DROP_BATCH);
  return { documentId, big };
}

/** The chunk ids a consumer replaying the whole feed holds for `documentId`. */
async function replayed(kbId: string, documentId: string): Promise<Set<string>> {
  const held = new Set<string>();
  for (const [, fields] of await redis.xrange(store.keys.changes(kbId), '-', '+')) {
    const f: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
    if (f.d !== documentId) continue;
    if (f.k === 'u') held.add(f.c!);
    if (f.k === 'd') held.delete(f.c!);
  }
  return held;
}

const idsOf = (kbId: string, documentId: string, text: string, chunks: StoredChunk[]) => new Set(feedEntries(kbId, documentId, text, chunks).map((e) => e.i));
const kbKeys = async (kbId: string) => (await redis.keys(`lw:{kb:${kbId}}:*`)).filter((k) => !/:(changes|outbox)(:info)?$/.test(k)).sort();
const reconcileAt = (at: number) =>
  reconcile({ redis, kbs: store.kbs, sites: store.sites, queue, sourceQueue: bullSourceQueue(queue, 2, 50), logger: createLogger('silent'), processingDeadlineMs: 600_000 }, at);

beforeAll(async () => {
  own = await openSlowlogStore('lw', 100000);
  ({ redis, store, queue } = own);
});
afterAll(async () => own?.close());

describe('a large finish', () => {
  it('stores the whole extraction and its feed events, no script taking more than a bounded argument', async () => {
    const kbId = 'kb_lw_finish';
    const { documentId } = await claimedSource(kbId);
    const big = largeText(1_500_000, 'alpha');
    const markdown = `${big.text}`;
    await redis.slowlog('RESET');
    const report = await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text: big.text, markdown, chunks: big.chunks, truncated: false }, { now: now() });
    const args = await scriptArgBytes();
    expect(report.result).toBe('ok');
    expect(args.length).toBeGreaterThan(1);
    expect(Math.max(...args)).toBeLessThanOrEqual(SCRIPT_ARG_MAX_BYTES);

    const k = store.keys.sourceKeys(kbId, documentId);
    expect(await redis.get(k.text)).toBe(big.text);
    expect(await redis.get(k.markdown)).toBe(markdown);
    expect(await redis.lrange(k.chunks, 0, -1)).toEqual(big.chunks.map((c) => JSON.stringify(c)));
    expect(await redis.ttl(k.text)).toBe(-1);
    expect(await redis.ttl(k.chunks)).toBe(-1);
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, markdown, big.chunks));
    expect(report.changes?.to).toBe(await redis.hget(store.keys.changesInfo(kbId), 'head'));
    // Counted as an inline write counts it: text, Markdown and chunk entries.
    const counted = Buffer.byteLength(big.text) * 2 + big.chunks.reduce((n, c) => n + Buffer.byteLength(JSON.stringify(c)), 0);
    expect(Number(await redis.hget(k.record, 'extractedBytes'))).toBe(counted);
    expect(Number(await redis.hget(store.keys.kb(kbId), 'storedBytes'))).toBe(counted);
    // Nothing of the staging or the emission is left.
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
    expect(await redis.hget(k.record, 'chunkEmit')).toBeNull();
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });

  it('leaves only expiring staged keys when the worker dies before its finish script', async () => {
    const kbId = 'kb_lw_crash';
    const { documentId } = await claimedSource(kbId);
    const big = largeText(600_000, 'beta');
    const staged = await stageExtraction(withCommands(redis), store.keys, { kbId, documentId }, { text: big.text, markdown: big.text, chunks: big.chunks.map((c) => JSON.stringify(c)) });
    const stagedKeys = (await kbKeys(kbId)).filter((key) => key.includes(':staged:'));
    expect(stagedKeys.sort()).toEqual([staged.text.key, staged.markdown.key, staged.chunks.key, staged.feed.key].sort());
    for (const key of stagedKeys) {
      const ttl = await redis.ttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(STAGED_TTL_SECONDS);
    }
    // The source is untouched: still processing, nothing counted.
    expect(await redis.hget(store.keys.source(kbId, documentId), 'status')).toBe('processing');
    expect(Number((await redis.hget(store.keys.kb(kbId), 'storedBytes')) ?? 0)).toBe(0);
  });

  it('refuses staged values that are not whole, writing nothing', async () => {
    const kbId = 'kb_lw_torn';
    const { documentId } = await claimedSource(kbId);
    const big = largeText(300_000, 'gamma');
    const chunks = big.chunks.map((c) => JSON.stringify(c));
    const staged = await stageExtraction(withCommands(redis), store.keys, { kbId, documentId }, { text: big.text, markdown: big.text, chunks });
    await redis.rpop(staged.chunks.key);
    const reply = await runScript(withCommands(redis), store.keys, finishSourceScript, {
      kbId, documentId, run: 1, now: now(), status: 'ready', fields: {}, text: '', markdown: '', chunks: [], unchanged: false, keepBlobSeconds: 0,
      staged: { nonce: staged.nonce, textBytes: staged.text.size, markdownBytes: staged.markdown.size, chunks: staged.chunks.size, feed: staged.feed.size, feedBytes: staged.feedBytes, extractedBytes: staged.extractedBytes },
    });
    expect(reply.kind).toBe('unstaged');
    expect(await redis.hget(store.keys.source(kbId, documentId), 'status')).toBe('processing');
    expect(await redis.exists(store.keys.sourceKeys(kbId, documentId).text)).toBe(0);
  });

  it('has its feed events finished by the reconciler after a crash between batches, old chunks deleted', async () => {
    const kbId = 'kb_lw_resume';
    const { documentId } = await claimedSource(kbId, 'url');
    const first = largeText(400_000, 'delta');
    await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text: first.text, chunks: first.chunks, truncated: false }, { now: now() });
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, first.text, first.chunks));

    // Run 2 writes other chunks; its worker dies after the finish script and one batch of events.
    const { run } = await store.kbs.refreshSource({ workspaceId: WS, kbId, documentId }, now());
    expect((await store.kbs.startSourceReport({ kbId, documentId, run }, { now: now() })).result).toBe('ok');
    const second = largeText(300_000, 'epsilon');
    const chunks = second.chunks.map((c) => JSON.stringify(c));
    const staged = await stageExtraction(withCommands(redis), store.keys, { kbId, documentId }, { text: second.text, markdown: second.text, chunks });
    const reply = await runScript(withCommands(redis), store.keys, finishSourceScript, {
      kbId, documentId, run, now: now(), status: 'ready', fields: {}, text: '', markdown: '', chunks: [], unchanged: false, keepBlobSeconds: 0,
      staged: { nonce: staged.nonce, textBytes: staged.text.size, markdownBytes: staged.markdown.size, chunks: staged.chunks.size, feed: staged.feed.size, feedBytes: staged.feedBytes, extractedBytes: staged.extractedBytes },
    });
    if (reply.kind !== 'ok') throw new Error(reply.kind);
    await emitChunks(withCommands(redis), store.keys, { kbId, documentId }, { seq: reply.emitSeq, phase: 'u', at: '0' }, 1);
    expect(await replayed(kbId, documentId)).not.toEqual(idsOf(kbId, documentId, second.text, second.chunks));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(1);
    // The feed entries still to emit are counted with the source's bytes until they are emitted.
    const record = store.keys.source(kbId, documentId);
    const stored = async () => Number(await redis.hget(store.keys.kb(kbId), 'storedBytes'));
    expect(Number(await redis.hget(record, 'emitBytes'))).toBe(staged.feedBytes);
    expect(await stored()).toBe(staged.extractedBytes + staged.feedBytes);

    // A pass right away leaves it alone (it may be under way); a later one finishes it.
    expect((await reconcileAt(Date.now())).metadataResumed).toBe(0);
    expect((await reconcileAt(Date.now() + METADATA_STALE_MS + 1000)).metadataResumed).toBe(1);
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, second.text, second.chunks));
    expect(await redis.hget(record, 'emitBytes')).toBeNull();
    expect(await stored()).toBe(staged.extractedBytes);
    expect(new Set(await redis.hkeys(store.keys.sourceKeys(kbId, documentId).chunkIds))).toEqual(idsOf(kbId, documentId, second.text, second.chunks));
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });
  it('is superseded exactly by a re-chunk that comes between its batches', async () => {
    const kbId = 'kb_lw_superseded';
    const { documentId } = await claimedSource(kbId, 'url');
    const big = largeText(400_000, 'eta');
    const chunks = big.chunks.map((c) => JSON.stringify(c));
    const staged = await stageExtraction(withCommands(redis), store.keys, { kbId, documentId }, { text: big.text, markdown: big.text, chunks });
    const tag = chunkingTag(DEFAULT_CHUNK_SETTINGS);
    const reply = await runScript(withCommands(redis), store.keys, finishSourceScript, {
      kbId, documentId, run: 1, now: now(), status: 'ready', fields: { chunking: tag }, text: '', markdown: '', chunks: [], unchanged: false, keepBlobSeconds: 0,
      staged: { nonce: staged.nonce, textBytes: staged.text.size, markdownBytes: staged.markdown.size, chunks: staged.chunks.size, feed: staged.feed.size, feedBytes: staged.feedBytes, extractedBytes: staged.extractedBytes },
    });
    if (reply.kind !== 'ok') throw new Error(reply.kind);
    await emitChunks(withCommands(redis), store.keys, { kbId, documentId }, { seq: reply.emitSeq, phase: 'u', at: '0' }, 1);

    // A re-chunk into ten chunks of the same Markdown, written inside its script.
    const step = Math.ceil(big.chunks.length / 10);
    const merged: StoredChunk[] = [];
    for (let i = 0; i < big.chunks.length; i += step) {
      const last = big.chunks[Math.min(i + step, big.chunks.length) - 1]!;
      merged.push({ ...big.chunks[i]!, index: merged.length, charEnd: last.charEnd, byteEnd: last.byteEnd });
    }
    const settings = DEFAULT_CHUNK_SETTINGS;
    const rechunk = await store.kbs.rechunkSourceReport({ kbId, documentId, run: 1, chunking: settings, defaultChunking: settings, chunks: merged, markdown: big.text, now: now() });
    expect(rechunk.result).toBe('ok');
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, big.text, merged));

    // The interrupted emission writes nothing more; what it left is dropped.
    await reconcileAt(Date.now() + METADATA_STALE_MS + 1000);
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, big.text, merged));
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });
  it('re-chunks a large source with a bounded argument, its feed showing exactly the new chunks', async () => {
    const kbId = 'kb_lw_rechunk';
    const { documentId } = await claimedSource(kbId, 'url');
    const big = largeText(800_000, 'theta');
    await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text: big.text, chunks: big.chunks, truncated: false, chunking: chunkingTag(DEFAULT_CHUNK_SETTINGS) }, { now: now() });
    // Two chunks a new one: every id changes, the old ones are deleted.
    const merged: StoredChunk[] = [];
    for (let i = 0; i < big.chunks.length; i += 2) {
      const last = big.chunks[Math.min(i + 1, big.chunks.length - 1)]!;
      merged.push({ ...big.chunks[i]!, index: merged.length, charEnd: last.charEnd, byteEnd: last.byteEnd });
    }
    await redis.slowlog('RESET');
    const settings = DEFAULT_CHUNK_SETTINGS;
    const rechunk = await store.kbs.rechunkSourceReport({ kbId, documentId, run: 1, chunking: settings, defaultChunking: settings, chunks: merged, markdown: big.text, now: now() });
    expect(rechunk.result).toBe('ok');
    expect(Math.max(...(await scriptArgBytes()))).toBeLessThanOrEqual(SCRIPT_ARG_MAX_BYTES);
    expect(rechunk.changes?.to).toBe(await redis.hget(store.keys.changesInfo(kbId), 'head'));
    const k = store.keys.sourceKeys(kbId, documentId);
    expect(await redis.lrange(k.chunks, 0, -1)).toEqual(merged.map((c) => JSON.stringify(c)));
    expect(await redis.hget(k.record, 'chunkCount')).toBe(String(merged.length));
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, big.text, merged));
    const counted = Buffer.byteLength(big.text) * 2 + merged.reduce((n, c) => n + Buffer.byteLength(JSON.stringify(c)), 0);
    expect(Number(await redis.hget(store.keys.kb(kbId), 'storedBytes'))).toBe(counted);
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
  });
});

describe("a batch of texts' finish", () => {
  it('goes in scripts of a bounded share of the batch, a text large enough to be staged in a finish of its own', async () => {
    const kbId = 'kb_lw_texts';
    const small = Array.from({ length: FINISH_TEXTS_MAX_SOURCES + 8 }, (_, i) => `Paragraph ${i}. ${'The reading room opens at nine and closes at five. '.repeat(10)}`);
    const big = largeText(200_000, 'texts').text;
    const sources: NewSource[] = [...small, big].map((content, i) => ({
      documentId: `doc_lwtexts${String(i).padStart(9, '0')}`,
      type: 'text',
      content,
      fingerprint: sourceFingerprint({ type: 'text', content }),
    }));
    await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources, now: now() });
    const batch = sources.map((s) => ({ documentId: s.documentId, run: 1 }));
    const start = await store.kbs.startTexts(kbId, batch, { now: now(), claim: 'lock-texts', workspaceId: WS });
    if (start.result !== 'ok') throw new Error(`claim: ${start.result}`);
    expect(start.claims.map((c) => c.result)).toEqual(batch.map(() => 'ok'));
    const config = { MAX_TEXT_CHARS: 1_000_000 } as Config;
    const ended = start.claims.map((c, i) => ({ ...batch[i]!, outcome: textOutcome({ config }, c.source!, DEFAULT_CHUNK_SETTINGS) }));

    await redis.slowlog('RESET');
    const reports = await store.kbs.finishTexts(kbId, ended, { now: now(), claim: 'lock-texts' });
    expect(reports.map((r) => r.result)).toEqual(batch.map(() => 'ok'));
    const log = ((await redis.slowlog('GET', -1)) as SlowEntry[]).filter((e) => /^(EVALSHA|EVAL)$/i.test(String(e[3][0])));
    // The batch's scripts are those whose payload opens with the attempt's claim (a finish of one opens with its source's id).
    const shares = log.filter((e) => String(e[3][e[3].length - 1]).startsWith('{"claim":"lock-texts"'));
    expect(shares).toHaveLength(Math.ceil(small.length / FINISH_TEXTS_MAX_SOURCES));
    await redis.slowlog('RESET');
    expect(Math.max(...log.map((e) => { const last = String(e[3][e[3].length - 1]); const more = /\.\.\. \((\d+) more bytes\)$/.exec(last); return more ? 128 + Number(more[1]) : Buffer.byteLength(last); }))).toBeLessThanOrEqual(SCRIPT_ARG_MAX_BYTES);

    const meta = await store.kbs.getMeta(kbId);
    expect(meta?.sourceCounts).toMatchObject({ ready: sources.length, processing: 0, pending: 0 });
    const last = ended.at(-1)!;
    expect(last.outcome.status === 'ready' && last.outcome.text.length).toBeGreaterThan(150_000);
    expect(await redis.get(store.keys.text(kbId, last.documentId))).toBe(last.outcome.status === 'ready' ? last.outcome.text : '');
    for (const [i, e] of ended.entries()) {
      if (e.outcome.status !== 'ready') throw new Error('a text failed');
      expect(await replayed(kbId, e.documentId), sources[i]!.documentId).toEqual(idsOf(kbId, e.documentId, e.outcome.text, e.outcome.chunks!));
    }
    const readyEvents = (await store.outbox.read(kbId, 10_000)).filter((e) => e.type === 'source.ready');
    expect(readyEvents).toHaveLength(sources.length);
  });
});

describe('a file that reuses a large extraction', () => {
  it('is committed ready with the same text, Markdown, chunks and feed events, no script taking more than a bounded argument', async () => {
    const kbId = 'kb_lw_reused';
    const { documentId } = await claimedSource(kbId);
    const big = largeText(1_000_000, 'zeta');
    const markdown = `# Title\n\n${big.text}`;
    const chunks = big.chunks.map((c) => ({ ...c, charStart: c.charStart + 9, charEnd: c.charEnd + 9 }));
    await store.kbs.finishSourceReport(
      { kbId, documentId, run: 1 },
      { status: 'ready', text: big.text, markdown, chunks, truncated: false, sha256: kbId.padEnd(64, '0').slice(0, 64), chunking: chunkingTag(DEFAULT_CHUNK_SETTINGS) },
      { now: now() },
    );
    const sha256 = (await redis.hget(store.keys.source(kbId, documentId), 'sha256'))!;
    await store.kbs.recordExtractedFile(WS, sha256, kbId, documentId);

    const other = 'kb_lw_reuser';
    await store.kbs.create({ workspaceId: WS, kbId: other, name: other, sources: [], now: now() });
    const again: NewSource = { documentId: 'doc_lw_again000000000', type: 'file', content: 'again.pdf', filename: 'again.pdf', sha256, fingerprint: sourceFingerprint({ type: 'file', content: 'again.pdf', sha256 }) };
    await redis.slowlog('RESET');
    const found = await store.kbs.findReusable(WS, [again]);
    await store.kbs.addSources({ workspaceId: WS, kbId: other, sources: [{ ...again, reuse: found.get(again.documentId)! }], now: now() });
    expect(Math.max(...(await scriptArgBytes()))).toBeLessThanOrEqual(SCRIPT_ARG_MAX_BYTES);

    const k = store.keys.sourceKeys(other, again.documentId);
    expect(await redis.hget(k.record, 'status')).toBe('ready');
    expect(await redis.get(k.text)).toBe(big.text);
    expect(await redis.get(k.markdown)).toBe(markdown);
    expect(await redis.lrange(k.chunks, 0, -1)).toEqual(chunks.map((c) => JSON.stringify(c)));
    expect(await replayed(other, again.documentId)).toEqual(idsOf(other, again.documentId, markdown, chunks));
    expect(await kbKeys(other)).not.toContainEqual(expect.stringMatching(/:staged:|:cemit:|:cseen:/));
  });
});

describe('a deleted source of many chunks', () => {
  /** The chunk.deleted events of `documentId` in the feed, by the knowledge_base.changed range that told of them. */
  async function deletedByRange(kbId: string, documentId: string): Promise<number[]> {
    const events = await redis.xrange(store.keys.changes(kbId), '-', '+');
    const ranges = (await store.outbox.read(kbId, 10_000)).filter((e) => e.type === 'knowledge_base.changed').map((e) => JSON.parse(e.data) as { from: string; to: string });
    const after = (a: string, b: string) => { const [x, y] = a.split('-').map(BigInt) as [bigint, bigint]; const [u, v] = b.split('-').map(BigInt) as [bigint, bigint]; return x > u || (x === u && y > v); };
    return ranges
      .map((r) => events.filter(([id, f]) => after(id, r.from) && !after(id, r.to) && f[1] === 'd' && f[5] === documentId).length)
      .filter((n) => n > 0);
  }

  it('has its chunk.deleted events written in bounded batches after the delete, every one of them', async () => {
    const kbId = 'kb_lw_delsource';
    const { documentId, big } = await readyManyChunks(kbId, 1_200_000, 'theta');
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, big.text, big.chunks));

    const { changes } = await store.kbs.deleteSource({ workspaceId: WS, kbId, documentId }, now());
    expect(changes).toBeDefined();
    expect(await replayed(kbId, documentId)).toEqual(new Set());
    const batches = await deletedByRange(kbId, documentId);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(big.chunks.length);
    expect(Math.max(...batches)).toBeLessThanOrEqual(DROP_BATCH);
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringContaining(documentId));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });

  it('has the events a crash left unwritten written by the reconciler', async () => {
    const kbId = 'kb_lw_delcrash';
    const { documentId, big } = await readyManyChunks(kbId, 1_200_000, 'iota');
    // The API dies right after the delete script: no batch of events written.
    const reply = await runScript(withCommands(redis), store.keys, deleteSourceScript, { workspaceId: WS, kbId, documentId, now: now() });
    expect(reply).toMatchObject({ kind: 'ok', dropping: 1, feedTo: '' });
    expect(await redis.ttl(store.keys.sourceKeys(kbId, documentId).dropIds)).toBeGreaterThan(0);
    expect(await replayed(kbId, documentId)).toEqual(idsOf(kbId, documentId, big.text, big.chunks));

    expect((await reconcileAt(Date.now() + METADATA_STALE_MS + 1000)).metadataResumed).toBe(1);
    expect(await replayed(kbId, documentId)).toEqual(new Set());
    expect(Math.max(...(await deletedByRange(kbId, documentId)))).toBeLessThanOrEqual(DROP_BATCH);
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringContaining(documentId));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });
});

describe('a failed run of a source of many chunks', () => {
  it("has its chunk.deleted events written in emitChunks' batches, every one of them", async () => {
    const kbId = 'kb_lw_failrun';
    const { documentId, big } = await readyManyChunks(kbId, 1_200_000, 'lambda');
    const { run } = await store.kbs.refreshSource({ workspaceId: WS, kbId, documentId }, now());
    // The refresh is not kept: a run ending failed, as a retry of a deleted page does.
    expect((await store.kbs.startSourceReport({ kbId, documentId, run }, { now: now() })).result).toBe('ok');
    const before = (await store.outbox.read(kbId, 10_000)).filter((e) => e.type === 'knowledge_base.changed').length;
    const report = await store.kbs.finishSourceReport({ kbId, documentId, run }, { status: 'failed', error: { code: 'fetch_failed', message: 'gone' } }, { now: now() });
    expect(report.result).toBe('ok');
    expect(await replayed(kbId, documentId)).toEqual(new Set());
    expect(await redis.hlen(store.keys.sourceKeys(kbId, documentId).chunkIds)).toBe(0);
    const changed = (await store.outbox.read(kbId, 10_000)).filter((e) => e.type === 'knowledge_base.changed').length - before;
    expect(changed).toBeGreaterThan(1);
    expect(await kbKeys(kbId)).not.toContainEqual(expect.stringMatching(/:cemit:|:cseen:/));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });
});

describe('a deleted site of many chunks', () => {
  it("writes its pages' chunk.deleted events in bounded batches, every one of them, and keeps the other sources in order", async () => {
    const kbId = 'kb_lw_delsite';
    const siteId = 'site_lw_delsite0000000';
    const pageText = (i: number) => largeText(200 * 2000, `kappa${i}`);
    const pages = [0, 1, 2].map((i) => ({ documentId: `doc_lwsite${String(i).padStart(11, '0')}`, url: `https://example.com/p${i}.html`, ...pageText(i) }));
    const own = (documentId: string, url: string, siteOf?: string): NewSource => ({ documentId, type: 'url', content: url, fingerprint: sourceFingerprint({ type: 'url', content: url }), ...(siteOf && { siteId: siteOf }) });
    const before = own('doc_lwsiteown00000000', 'https://example.com/own-a.html');
    const after = own('doc_lwsiteown00000001', 'https://example.com/own-b.html');
    await store.kbs.create({
      workspaceId: WS, kbId, name: kbId, now: now(),
      sites: [{ siteId, url: 'https://example.com/', maxPages: 10, maxDepth: 1, sitemap: 'auto' }],
      sources: [before, ...pages.slice(0, 2).map((p) => own(p.documentId, p.url, siteId)), after, own(pages[2]!.documentId, pages[2]!.url, siteId)],
    });
    for (const p of pages) {
      const ref = { kbId, documentId: p.documentId, run: 1 };
      await store.kbs.startSourceReport(ref, { now: now() });
      await store.kbs.finishSourceReport(ref, { status: 'ready', text: p.text, chunks: p.chunks, truncated: false }, { now: now() });
    }
    const total = pages.reduce((n, p) => n + p.chunks.length, 0);
    expect(total).toBeGreaterThan(2 * DROP_BATCH);
    const feedLength = await redis.xlen(store.keys.changes(kbId));

    const { removed } = await store.sites.delete({ workspaceId: WS, kbId, siteId }, now());
    expect(removed).toBe(3);
    for (const p of pages) expect(await replayed(kbId, p.documentId)).toEqual(new Set());
    expect((await redis.xlen(store.keys.changes(kbId))) - feedLength).toBe(total);
    // Each knowledge_base.changed the delete told of covers at most one batch of events.
    const events = await redis.xrange(store.keys.changes(kbId), '-', '+');
    const order = new Map(events.map(([id], i) => [id, i]));
    const ranges = (await store.outbox.read(kbId, 10_000)).filter((e) => e.type === 'knowledge_base.changed').map((e) => JSON.parse(e.data) as { from: string; to: string });
    const deletes = ranges.filter((r) => order.has(r.to) && (order.get(r.to)! >= feedLength)).map((r) => order.get(r.to)! - (order.get(r.from) ?? -1));
    expect(deletes.reduce((a, b) => a + b, 0)).toBe(total);
    expect(Math.max(...deletes)).toBeLessThanOrEqual(DROP_BATCH);
    expect(await redis.lrange(store.keys.sourceIds(kbId), 0, -1)).toEqual([before.documentId, after.documentId]);
    for (const p of pages) expect(await kbKeys(kbId)).not.toContainEqual(expect.stringContaining(p.documentId));
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
  });

  it('is gone at once, and has the pages a crash left between its steps deleted by the reconciler', async () => {
    const kbId = 'kb_lw_delsitecrash';
    const siteId = 'site_lw_delsitecrash00';
    const page = (i: number): NewSource => {
      const url = `https://example.com/crash/${i}.html`;
      return { documentId: `doc_lwcrash${String(i).padStart(10, '0')}`, type: 'url', content: url, fingerprint: sourceFingerprint({ type: 'url', content: url }), siteId };
    };
    const pages = Array.from({ length: 5 }, (_, i) => page(i));
    await store.kbs.create({
      workspaceId: WS, kbId, name: kbId, now: now(),
      sites: [{ siteId, url: 'https://example.com/crash/', maxPages: 10, maxDepth: 1, sitemap: 'auto' }],
      sources: pages,
    });
    // The API dies after the first step, which deleted two pages.
    const reply = await runScript(withCommands(redis), store.keys, deleteSiteScript, { workspaceId: WS, kbId, siteId, now: now(), pageMax: 2 });
    expect(reply).toMatchObject({ kind: 'ok', removed: 2, done: 0 });
    expect(await store.sites.get(kbId, siteId)).toBeNull();
    expect(await redis.lrange(store.keys.sites(kbId), 0, -1)).toEqual([]);
    expect(await redis.llen(store.keys.sourceIds(kbId))).toBe(3);

    expect((await reconcileAt(Date.now())).sitesSwept).toBe(0);
    expect((await reconcileAt(Date.now() + METADATA_STALE_MS + 1000)).sitesSwept).toBe(1);
    expect(await redis.llen(store.keys.sourceIds(kbId))).toBe(0);
    expect((await store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 0, failed: 0 });
    expect(await redis.zcard(store.keys.siteSweeps(kbId))).toBe(0);
    for (const p of pages) expect(await kbKeys(kbId)).not.toContainEqual(expect.stringContaining(p.documentId));
  });
});

describe('a deleted knowledge base', () => {
  async function kbOf(kbId: string, count: number): Promise<void> {
    const small = largeText(3000, kbId);
    const sources: NewSource[] = Array.from({ length: count }, (_, i) => {
      const content = `${kbId} ${i}`;
      return { documentId: `doc_${kbId.slice(-6)}${String(i).padStart(11, '0')}`, type: 'text', content, fingerprint: sourceFingerprint({ type: 'text', content }) };
    });
    await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources, now: now() });
    for (const s of sources) {
      const ref = { kbId, documentId: s.documentId, run: 1 };
      await store.kbs.startSourceReport(ref, { now: now() });
      await store.kbs.finishSourceReport(ref, { status: 'ready', text: small.text, chunks: small.chunks, truncated: false }, { now: now() });
    }
  }

  it('loses every key of its sources, each script handling a bounded batch', async () => {
    const kbId = 'kb_lw_delete';
    await kbOf(kbId, 3 * SWEEP_BATCH + 7);
    expect((await kbKeys(kbId)).length).toBeGreaterThan(3 * SWEEP_BATCH * 4);
    await redis.slowlog('RESET');
    await store.kbs.delete(WS, kbId);
    const log = (await redis.slowlog('GET', -1)) as SlowEntry[];
    // One delete script, then one sweep script per batch of SWEEP_BATCH sources.
    const scripts = log.filter((e) => /^(EVALSHA|EVAL)$/i.test(String(e[3][0]))).map((e) => String(e[3][3]));
    expect(scripts.filter((key) => key.endsWith(':sweep:docs'))).toHaveLength(4);
    expect(await kbKeys(kbId)).toEqual([]);
    expect(await redis.zscore(store.keys.sweepKbs(), kbId)).toBeNull();
    expect(await store.kbs.getMeta(kbId)).toBeNull();
  });

  it('has its keys swept by the reconciler when the deleting request died after the delete script', async () => {
    const kbId = 'kb_lw_delete_crash';
    await kbOf(kbId, 30);
    await redis.zadd(store.keys.sweepKbs(), Date.now(), kbId);
    const reply = await runScript(withCommands(redis), store.keys, deleteKbScript, { workspaceId: WS, kbId });
    expect(reply.kind).toBe('ok');
    expect(await store.kbs.getMeta(kbId)).toBeNull();
    expect((await kbKeys(kbId)).length).toBeGreaterThan(0);

    // A pass within the grace leaves it to the request; a later one sweeps it.
    expect((await reconcileAt(Date.now())).swept).toBe(0);
    expect((await reconcileAt(Date.now() + SWEEP_GRACE_MS + 1000)).swept).toBe(1);
    expect(await kbKeys(kbId)).toEqual([]);
    expect(await redis.zscore(store.keys.sweepKbs(), kbId)).toBeNull();
  });
});
