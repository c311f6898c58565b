import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import type { StoredChunk } from '../../shared/schemas/chunk.js';
import { sourceFingerprint } from '../../shared/store/kb-records.js';
import type { Store } from '../../shared/store/index.js';
import { METADATA_BATCH } from '../../shared/store/source-changes.js';
import { METADATA_STALE_MS, reconcile } from '../../worker/reconciler.js';
import { openSlowlogStore, type SlowlogStore } from '../helpers/slowlog-store.js';

/**
 * A metadata change of a large source emits its chunk.upserted events in
 * bounded batches, each one short script, and a crash between batches
 * loses none: the reconciler finishes the emission.
 */
const WS = 'ws-meta-batches';
const SIZE = 1000;
let own: SlowlogStore;
let redis: Redis;
let store: Store;
let queue: Queue;
const now = () => new Date().toISOString();

/** A text of `count` chunks of about `chars` characters each. */
function textOf(count: number, chars: number, seed: string): { text: string; chunks: StoredChunk[] } {
  let text = '';
  const chunks: StoredChunk[] = [];
  for (let i = 0; i < count; i++) {
    const start = text.length;
    let body = `Line ${seed}-${i}:`;
    while (body.length < chars) body += ` word${(i * 7 + body.length) % 97}`;
    text += `${body}\n\n`;
    const end = text.length - 2;
    chunks.push({ index: i, charStart: start, charEnd: end, byteStart: start, byteEnd: end, tokens: 16, headings: [] });
  }
  return { text, chunks };
}

async function readySource(kbId: string): Promise<{ documentId: string; text: string }> {
  const documentId = `doc_${kbId.slice(3)}`.padEnd(21, '0');
  const { text, chunks } = textOf(SIZE, 60, kbId);
  await store.kbs.create({ workspaceId: WS, kbId, name: kbId, sources: [{ documentId, type: 'text', content: text, fingerprint: sourceFingerprint({ type: 'text', content: text }) }], now: now() });
  await store.kbs.startSourceReport({ kbId, documentId, run: 1 }, { now: now() });
  await store.kbs.finishSourceReport({ kbId, documentId, run: 1 }, { status: 'ready', text, markdown: text, chunks, truncated: false }, { now: now() });
  return { documentId, text };
}

const head = async (kbId: string) => (await redis.hget(store.keys.changesInfo(kbId), 'head')) ?? '0-0';

/** The chunk.upserted events after `after`: chunk id to the metadata each showed, in order. */
async function upsertsAfter(kbId: string, after: string): Promise<{ chunkId: string; metadata: unknown }[]> {
  const out: { chunkId: string; metadata: unknown }[] = [];
  for (const [, fields] of await redis.xrange(store.keys.changes(kbId), `(${after}`, '+')) {
    const f: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
    if (f.k !== 'u') continue;
    const source = JSON.parse(f.s!) as { metadata?: string };
    out.push({ chunkId: f.c!, metadata: source.metadata ? JSON.parse(source.metadata) : undefined });
  }
  return out;
}

const chunkIds = async (kbId: string, documentId: string) => redis.hkeys(store.keys.sourceKeys(kbId, documentId).chunkIds);
const marker = async (kbId: string, documentId: string) => redis.hget(store.keys.source(kbId, documentId), 'metaEmit');
const reconcileLater = () =>
  reconcile(
    { redis, kbs: store.kbs, queue, sourceQueue: bullSourceQueue(queue, 2, 50), logger: createLogger('silent'), processingDeadlineMs: 600_000 },
    Date.now() + METADATA_STALE_MS + 1000,
  );

/** The scripts of metadata changes (those naming the pending emissions) the slow log (threshold 0) saw since the last reset: each one's time in µs. */
async function metadataScriptTimes(kbId: string): Promise<number[]> {
  const log = (await redis.slowlog('GET', 10_000)) as [number, number, number, string[]][];
  const pending = store.keys.metadataEmits(kbId);
  return log.filter((e) => /^(EVALSHA|EVAL)$/i.test(String(e[3][0])) && e[3].includes(pending)).map((e) => e[2]);
}

beforeAll(async () => {
  own = await openSlowlogStore('mb', 10000);
  ({ redis, store, queue } = own);
});
afterAll(async () => own?.close());

describe('a metadata change of a large source', () => {
  it('emits every chunk once with the new metadata, at most a batch per script', async () => {
    const kbId = 'kb_mbatch_all';
    const { documentId } = await readySource(kbId);
    const before = await head(kbId);
    await redis.slowlog('RESET');
    const range = await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'birds' }, now());
    const times = await metadataScriptTimes(kbId);
    console.log(`metadata change of ${SIZE} chunks: ${times.length} scripts, slowest ${(Math.max(...times) / 1000).toFixed(2)} ms`);

    const upserts = await upsertsAfter(kbId, before);
    expect(upserts).toHaveLength(SIZE);
    expect(new Set(upserts.map((u) => u.chunkId))).toEqual(new Set(await chunkIds(kbId, documentId)));
    for (const u of upserts) expect(u.metadata).toEqual({ team: 'birds' });
    expect(range).toEqual({ from: before, to: await head(kbId) });
    expect(await marker(kbId, documentId)).toBeNull();
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
    // One script sets the metadata, then one per batch of at most METADATA_BATCH chunks.
    expect(METADATA_BATCH).toBeLessThanOrEqual(200);
    expect(times).toHaveLength(1 + Math.ceil(SIZE / METADATA_BATCH));

    // The same metadata again writes nothing.
    const again = await head(kbId);
    expect(await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'birds' }, now())).toBeUndefined();
    expect(await head(kbId)).toBe(again);
  });

  it('writes at most a batch of events per script', async () => {
    const kbId = 'kb_mbatch_one';
    const { documentId } = await readySource(kbId);
    const before = await head(kbId);
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'owls' }, now(), 1);
    expect(await upsertsAfter(kbId, before)).toHaveLength(METADATA_BATCH);
    expect(await marker(kbId, documentId)).toMatch(new RegExp(`^\\d+:${METADATA_BATCH}$`));
    expect((await reconcileLater()).metadataResumed).toBe(1);
    expect(await upsertsAfter(kbId, before)).toHaveLength(SIZE);
  });

  it('is finished by the reconciler after a crash between batches', async () => {
    const kbId = 'kb_mbatch_crash';
    const { documentId } = await readySource(kbId);
    const before = await head(kbId);
    // The first batch only, as a crash after it would leave it.
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'crows' }, now(), 1);
    expect(await upsertsAfter(kbId, before)).toHaveLength(METADATA_BATCH);
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(1);

    // A pass right away leaves it alone: it may be under way.
    await reconcile({ redis, kbs: store.kbs, queue, sourceQueue: bullSourceQueue(queue, 2, 50), logger: createLogger('silent'), processingDeadlineMs: 600_000 });
    expect(await upsertsAfter(kbId, before)).toHaveLength(METADATA_BATCH);

    const report = await reconcileLater();
    expect(report.metadataResumed).toBe(1);
    const upserts = await upsertsAfter(kbId, before);
    expect(upserts).toHaveLength(SIZE);
    expect(new Set(upserts.map((u) => u.chunkId))).toEqual(new Set(await chunkIds(kbId, documentId)));
    for (const u of upserts) expect(u.metadata).toEqual({ team: 'crows' });
    expect(await marker(kbId, documentId)).toBeNull();
    expect(await redis.zcard(store.keys.metadataEmits(kbId))).toBe(0);
    expect((await reconcileLater()).metadataResumed, 'nothing left to finish').toBe(0);
  });

  it('lets a later change supersede an interrupted one', async () => {
    const kbId = 'kb_mbatch_twice';
    const { documentId } = await readySource(kbId);
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'jays' }, now(), 1);
    const middle = await head(kbId);
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'rooks' }, now());
    const upserts = await upsertsAfter(kbId, middle);
    expect(upserts).toHaveLength(SIZE);
    for (const u of upserts) expect(u.metadata).toEqual({ team: 'rooks' });
    expect((await reconcileLater()).metadataResumed).toBe(0);
    expect(await upsertsAfter(kbId, middle)).toHaveLength(SIZE);
  });

  it('shows every chunk a re-write left with the new metadata when the re-write came between batches', async () => {
    const kbId = 'kb_mbatch_moved';
    const { documentId, text } = await readySource(kbId);
    const before = await head(kbId);
    await store.kbs.setMetadata({ workspaceId: WS, kbId, documentId }, { team: 'wrens' }, now(), 1);
    // A re-chunk rewrites the chunks meanwhile: two old chunks a new one.
    const old = textOf(SIZE, 60, kbId).chunks;
    const merged: StoredChunk[] = [];
    for (let i = 0; i < old.length; i += 2) {
      const a = old[i]!;
      const b = old[i + 1] ?? a;
      merged.push({ ...a, index: merged.length, charEnd: b.charEnd, byteEnd: b.byteEnd, tokens: 32 });
    }
    const tag = { maxTokens: 512, overlapTokens: 0 };
    const record = await store.kbs.getSource(kbId, documentId);
    expect((await store.kbs.rechunkSourceReport({ kbId, documentId, run: record!.run, chunking: tag, defaultChunking: tag, chunks: merged, markdown: text, now: now() })).result).toBe('ok');

    expect((await reconcileLater()).metadataResumed).toBe(1);
    const current = new Set(await chunkIds(kbId, documentId));
    expect(current.size).toBe(merged.length);
    // Every chunk the source now has appears after the change with the new metadata.
    const latest = new Map<string, unknown>();
    for (const u of await upsertsAfter(kbId, before)) latest.set(u.chunkId, u.metadata);
    for (const id of current) expect(latest.get(id), id).toEqual({ team: 'wrens' });
    expect(await marker(kbId, documentId)).toBeNull();
  });
});
