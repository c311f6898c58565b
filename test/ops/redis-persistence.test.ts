import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

/**
 * What a 200 to PATCH is worth when Redis dies right after it: each test runs
 * its own redis-server with AOF, PATCHes sources with no worker running,
 * kills Redis with SIGKILL the moment the answers are in, restarts it on the
 * same port and data dir, and looks for every accepted source and its job.
 */
const workspaceId = 'ws_persist';
const PATCHES = 4;

interface Accepted {
  documentId: string;
  type: string;
  content: string;
}

async function patchSources(h: Harness, key: string, kbId: string, i: number): Promise<Response> {
  const form = new FormData();
  form.set('knowledge_base_texts', JSON.stringify([`note ${i} one`, { title: `Title ${i}`, text: `note ${i} two` }]));
  form.append('knowledge_base_files', new Blob([`# Upload ${i}\n\nuploaded body ${i}\n`]), `upload-${i}.md`);
  return h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'PATCH', body: form, headers: { 'X-API-Key': key } });
}

async function killRestartAndFinish(fsync: 'always' | 'everysec'): Promise<void> {
  let server: RedisServerHandle = await startRedisServer({ appendonly: true, args: ['--appendfsync', fsync] });
  const h = await createHarness({ REDIS_URL: server.url, JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
  // Connection errors while Redis is down are expected here; the requests tell the story.
  h.redis.on('error', () => undefined);
  h.queue.on('error', () => undefined);
  try {
    const key = await h.key(workspaceId);
    const created = new FormData();
    created.set('knowledge_base_name', `persist ${fsync}`);
    const res = await h.app.request('/v1/knowledge-bases', { method: 'POST', body: created, headers: { 'X-API-Key': key } });
    expect(res.status).toBe(201);
    const { kbId } = (await res.json()) as { kbId: string };

    const answers = await Promise.all(Array.from({ length: PATCHES }, (_, i) => patchSources(h, key, kbId, i)));
    // Killed the moment the last answer is in: nothing after the 200s gets to Redis.
    server.process.kill('SIGKILL');
    await once(server.process, 'exit');
    expect(answers.map((a) => a.status)).toEqual(Array(PATCHES).fill(200));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as { files: Accepted[] }[];
    const accepted = new Map<string, Accepted>();
    for (const b of bodies) for (const f of b.files) accepted.set(f.documentId, f);
    expect(accepted.size).toBe(PATCHES * 3);

    // Meanwhile the API refuses at once instead of hanging on the dead connection.
    const started = Date.now();
    const down = await patchSources(h, key, kbId, 99);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Date.now() - started).toBeLessThan(2_000);

    server = await startRedisServer({ appendonly: true, port: server.port, dir: server.dir, args: ['--appendfsync', fsync] });
    const kb = await waitFor(
      'the API to read the knowledge base again',
      async () => {
        const got = await h.app.request(`/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': key } });
        return got.status === 200 ? ((await got.json()) as { files: (Accepted & { status: string })[] }) : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(new Set(kb.files.map((f) => f.documentId))).toEqual(new Set(accepted.keys()));
    expect(kb.files.every((f) => f.status === 'pending')).toBe(true);
    // The queue has a connection of its own, which may come back a moment later.
    const states = await waitFor(
      'the queue to read the jobs again',
      async () => {
        try {
          // A request's texts run in one batch job, which their records name; a file has a job of its own.
          const records = await Promise.all([...accepted.keys()].map((documentId) => h.store.kbs.getSource(kbId, documentId)));
          const ids = records.map((r, i) => r?.batchJob ?? extractSourceJobId({ workspaceId, kbId, documentId: [...accepted.keys()][i]!, run: 1 }));
          return await Promise.all(ids.map(async (id) => (await (await h.queue.getJob(id))?.getState()) ?? 'missing'));
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 20_000 },
    );
    expect(states).toEqual(Array(accepted.size).fill('prioritized'));

    const worker = await startTestWorker(h);
    try {
      for (const [documentId, source] of accepted) {
        const doc = await waitForDocument(h, key, kbId, documentId, 30_000);
        expect(doc.status, JSON.stringify(doc.error)).toBe('ready');
        if (source.type === 'text') expect(doc.text).toMatch(/^note \d (one|two)$/);
        else expect(doc.text).toMatch(/uploaded body \d/);
      }
    } finally {
      await worker.close();
    }
    expect((await h.store.kbs.getMeta(kbId))?.sourceCounts).toEqual({ pending: 0, processing: 0, ready: PATCHES * 3, failed: 0 });
  } finally {
    await h.close().catch(() => undefined);
    await server.stop();
    await rm(server.dir, { recursive: true, force: true });
  }
}

describe('sources accepted just before Redis is killed', { timeout: 120_000 }, () => {
  it('keeps every accepted source and its job through a SIGKILL of Redis with appendfsync always, and a worker then ends them all ready', async () => {
    await killRestartAndFinish('always');
  });

  it('keeps them too with appendfsync everysec through a Redis process kill (the OS keeps what was written; the up-to-1 s loss on power failure or an OS crash cannot be reproduced on loopback)', async () => {
    await killRestartAndFinish('everysec');
  });
});
