import { Worker } from 'bullmq';
import { expect } from 'vitest';
import { INGEST_QUEUE, queuePrefix } from '../../shared/jobs.js';
import { createRedis } from '../../shared/redis.js';
import { createLogger } from '../../shared/logger.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../worker/main.js';
import type { Harness } from './app-harness.js';

/** Starts an in-process worker on the harness's Redis prefix. */
export function startTestWorker(h: Harness, opts: WorkerOptions = {}): Promise<RunningWorker> {
  return startWorker(h.config, createLogger('silent'), { reconcileIntervalMs: 3_600_000, ...opts });
}

export interface DocumentBody {
  documentId: string;
  type: string;
  content: string;
  status: string;
  title?: string;
  mimeType?: string;
  sizeBytes?: number;
  charCount?: number;
  pageCount?: number;
  truncated?: boolean;
  error?: { code: string; message: string };
  text: string | null;
}

/**
 * Polls GET document until the source is `ready` or `failed` (the observable
 * state), failing the test if it does not get there in time.
 */
export async function waitForDocument(h: Harness, key: string, kbId: string, documentId: string, timeoutMs = 20_000): Promise<DocumentBody> {
  const deadline = Date.now() + timeoutMs;
  let last: DocumentBody | undefined;
  let pause = 25;
  while (Date.now() < deadline) {
    const res = await h.app.request(`/v1/knowledge-bases/${kbId}/documents/${documentId}`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    last = (await res.json()) as DocumentBody;
    if (last.status === 'ready' || last.status === 'failed') return last;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 250);
  }
  throw new Error(`source ${documentId} still ${last?.status} after ${timeoutMs} ms`);
}

/** Creates a knowledge base from form fields and returns its id and source ids in order. */
export async function createKb(h: Harness, key: string, fill: (form: FormData) => void): Promise<{ kbId: string; docs: string[] }> {
  const form = new FormData();
  form.set('knowledge_base_name', 'worker test');
  fill(form);
  const res = await h.app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': key } });
  const body = (await res.json()) as { kbId: string; files: { documentId: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { kbId: body.kbId, docs: body.files.map((f) => f.documentId) };
}

/**
 * A bare BullMQ consumer of the harness's queue whose every attempt throws
 * before touching the source, as a worker does when Redis fails before the
 * claim. Close it when the jobs have failed.
 */
export function startFailingConsumer(h: Harness, message = 'Connection is closed.'): Worker {
  return new Worker(
    INGEST_QUEUE,
    async (): Promise<unknown> => {
      throw new Error(message);
    },
    { connection: createRedis(h.config.redisUrl, 'worker'), prefix: queuePrefix(h.prefix) },
  );
}

/** Polls a job's state until it is `state`, failing the test after `timeoutMs`. */
export async function waitForJobState(h: Harness, jobId: string, state: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'missing';
  while (Date.now() < deadline) {
    last = (await (await h.queue.getJob(jobId))?.getState()) ?? 'missing';
    if (last === state) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} still ${last} after ${timeoutMs} ms`);
}
