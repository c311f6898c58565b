import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId, type ExtractSourceJob } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { SourceError } from '../../shared/source-errors.js';
import { KEPT_BYTES_TTL_SECONDS } from '../../shared/store/kb-store.js';
import { createProcessor } from '../../worker/jobs/processor.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith } from '../helpers/worker-harness.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_staged_bytes');
});
afterAll(async () => h.close());

/** A processor whose extraction fails with `failure`, called directly on run 1 as its last attempt. */
async function failWith(failure: Error): Promise<{ kbId: string; documentId: string }> {
  const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob(['some staged bytes']), 'a.txt'));
  const documentId = docs[0]!;
  const processor = createProcessor({
    config: h.config,
    kbs: h.store.kbs,
    logger: createLogger('silent'),
    queue: { enqueue: () => Promise.resolve(), rechunk: () => Promise.resolve(), discover: () => Promise.resolve(), scheduleRefresh: () => Promise.resolve(), nextPriority: () => Promise.resolve(1) },
    fetch: () => Promise.reject(new Error('no URL sources here')),
    extract: () => Promise.reject(failure),
  });
  const data: ExtractSourceJob = { workspaceId: 'ws_staged_bytes', kbId, documentId, run: 1 };
  const job = { id: extractSourceJobId(data), data, attemptsMade: 0, opts: { attempts: 1 } } as unknown as Job;
  await expect(processor(job)).rejects.toThrow();
  expect((await h.store.kbs.getSource(kbId, documentId))?.status).toBe('failed');
  return { kbId, documentId };
}

describe('staged bytes of a failed file', () => {
  it.each(['too_complex', 'corrupt', 'encrypted', 'no_text', 'unsupported_media_type'] as const)(
    'are dropped at once after %s, which a retry cannot fix',
    async (code) => {
      const { kbId, documentId } = await failWith(new SourceError(code, 'refused'));
      expect(await h.redis.exists(h.store.keys.blob(kbId, documentId))).toBe(0);
    },
  );

  it.each([
    ['timeout', new SourceError('timeout', 'took too long', true)],
    ['internal', new Error('unexpected')],
  ])('are kept for a day at most after %s, for a retry', async (_code, failure) => {
    const { kbId, documentId } = await failWith(failure);
    const ttl = await h.redis.ttl(h.store.keys.blob(kbId, documentId));
    expect(ttl).toBeGreaterThan(KEPT_BYTES_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(KEPT_BYTES_TTL_SECONDS);
    expect(h.config.STAGING_TTL_SECONDS).toBeGreaterThan(KEPT_BYTES_TTL_SECONDS);
  });

  it('keep a shorter remaining life than a day as it is', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob(['bytes']), 'b.txt'));
    const blob = h.store.keys.blob(kbId, docs[0]!);
    await h.redis.expire(blob, 600);
    await h.store.kbs.startSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { now: new Date().toISOString() });
    await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: docs[0]!, run: 1 }, { status: 'failed', error: { code: 'timeout', message: 'slow' }, keepBlob: true }, { now: new Date().toISOString() });
    expect(await h.redis.ttl(blob)).toBeLessThanOrEqual(600);
    expect(await h.redis.ttl(blob)).toBeGreaterThan(0);
  });
});
