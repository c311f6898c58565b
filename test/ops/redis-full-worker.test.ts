import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullSourceQueue, extractSourceJobId, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { SourceError } from '../../shared/source-errors.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { createKbWith } from '../helpers/worker-harness.js';

/** A Redis at maxmemory (noeviction) answers every write with OOM while reads go on. */
let server: RedisServerHandle;
let h: Harness;
let key: string;

beforeAll(async () => {
  server = await startRedisServer();
  h = await createHarness({ REDIS_URL: server.url });
  key = await h.key('ws_full_worker');
});
afterAll(async () => {
  await h.redis.config('SET', 'maxmemory', '0');
  await h.close();
  await server.stop();
});

/**
 * A processor whose store fills Redis up right after the source is claimed
 * and read, so the write of the result is the first to meet the OOM.
 */
function processorFillingRedisAfterClaim() {
  const kbs = h.store.kbs;
  const filling = new Proxy(kbs, {
    get(target, prop, receiver) {
      if (prop === 'getSource') {
        return async (...args: Parameters<typeof kbs.getSource>) => {
          const source = await target.getSource(...args);
          await h.redis.config('SET', 'maxmemory', '1');
          return source;
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return createProcessor({
    config: h.config,
    kbs: filling,
    queue: bullSourceQueue(h.queue, 3, 50),
    logger: createLogger('silent'),
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    extract: () => Promise.reject(new Error('no extraction in this test')),
  });
}

const attempt = (data: ExtractSourceJob, attemptsMade: number): Job =>
  ({ id: extractSourceJobId(data), data, attemptsMade, opts: { attempts: 3 } }) as unknown as Job;

function plainProcessor() {
  return createProcessor({
    config: h.config,
    kbs: h.store.kbs,
    queue: bullSourceQueue(h.queue, 3, 50),
    logger: createLogger('silent'),
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    extract: () => Promise.reject(new Error('no extraction in this test')),
  });
}

describe('a worker meeting a full Redis', () => {
  it('claims nothing and fails the attempt for a retry when Redis is full at the claim, and the retry ends the source ready once Redis has room', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['claimed after the OOM'])));
    const data = { workspaceId: 'ws_full_worker', kbId, documentId: docs[0]!, run: 1 };
    const before = await h.redis.hgetall(h.store.keys.source(kbId, docs[0]!));
    await h.redis.config('SET', 'maxmemory', '1');
    let thrown: unknown;
    try {
      thrown = await plainProcessor()(attempt(data, 0), 'lock-1').catch((err: unknown) => err);
    } finally {
      await h.redis.config('SET', 'maxmemory', '0');
    }
    expect(String(thrown)).toMatch(/OOM/);
    expect(await h.redis.hgetall(h.store.keys.source(kbId, docs[0]!))).toEqual(before);
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 1, processing: 0, ready: 0, failed: 0 });

    expect(await plainProcessor()(attempt(data, 1), 'lock-2')).toEqual({ status: 'ready' });
    expect(await h.redis.get(h.store.keys.text(kbId, docs[0]!))).toBe('claimed after the OOM');
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });

  it('writes the result whole or not at all when Redis fills up between the claim and the finish, and a retry ends it ready', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['finished at the OOM'])));
    const doc = docs[0]!;
    const data = { workspaceId: 'ws_full_worker', kbId, documentId: doc, run: 1 };
    let outcome: unknown;
    try {
      outcome = await processorFillingRedisAfterClaim()(attempt(data, 0), 'lock-1').catch((err: unknown) => err);
    } finally {
      await h.redis.config('SET', 'maxmemory', '0');
    }
    const source = await h.store.kbs.getSource(kbId, doc);
    const resultKeys = await h.redis.exists(h.store.keys.text(kbId, doc), h.store.keys.markdown(kbId, doc), h.store.keys.chunks(kbId, doc));
    const counts = (await h.store.kbs.getMeta(kbId))?.sourceCounts;
    if (source?.status === 'ready') {
      // Redis lets a script that has begun writing (here with a deletion) finish past maxmemory.
      expect(outcome).toEqual({ status: 'ready' });
      expect(resultKeys).toBe(3);
      expect(counts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    } else {
      expect(outcome).toBeInstanceOf(SourceError);
      expect(outcome).toMatchObject({ code: 'internal', retryable: true });
      expect(source?.status).toBe('processing');
      expect(resultKeys).toBe(0);
      expect(counts).toEqual({ pending: 0, processing: 1, ready: 0, failed: 0 });
      expect(await plainProcessor()(attempt(data, 1), 'lock-2')).toEqual({ status: 'ready' });
    }
    expect(await h.redis.get(h.store.keys.text(kbId, doc))).toBe('finished at the OOM');
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });
});
