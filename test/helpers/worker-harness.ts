import { Worker } from 'bullmq';
import { expect } from 'vitest';
import { INGEST_QUEUE, queuePrefix } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../worker/main.js';
import type { Harness } from './app-harness.js';
import { waitFor } from './wait.js';

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
  let last: DocumentBody | undefined;
  return waitFor(
    `source ${documentId} to end ready or failed`,
    async () => {
      const res = await h.app.request(`/v1/knowledge-bases/${kbId}/documents/${documentId}`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(200);
      last = (await res.json()) as DocumentBody;
      return last.status === 'ready' || last.status === 'failed' ? last : undefined;
    },
    { timeoutMs, describe: () => String(last?.status) },
  );
}

/** Creates a knowledge base from form fields and returns its id and source ids in order. */
export async function createKbWith(h: Harness, key: string, fill: (form: FormData) => void): Promise<{ kbId: string; docs: string[] }> {
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
    { connection: createRedis(h.config, 'worker'), prefix: queuePrefix(h.prefix) },
  );
}

/** Waits until a job's state is `state`, failing the test after `timeoutMs`. */
export async function waitForJobState(h: Harness, jobId: string, state: string, timeoutMs = 20_000): Promise<void> {
  let last = 'missing';
  await waitFor(
    `job ${jobId} to be ${state}`,
    async () => (last = (await (await h.queue.getJob(jobId))?.getState()) ?? 'missing') === state,
    { timeoutMs, describe: () => last },
  );
}

/** A job's end and the attempts BullMQ made, read once it has completed or failed. */
export async function finishedJob(h: Harness, jobId: string, timeoutMs = 20_000): Promise<{ state: string; attemptsMade: number }> {
  let state = 'missing';
  await waitFor(
    `job ${jobId} to finish`,
    async () => (state = await h.queue.getJobState(jobId)) === 'completed' || state === 'failed',
    { timeoutMs, describe: () => state },
  );
  const job = await h.queue.getJob(jobId);
  if (!job) throw new Error(`the ${state} job ${jobId} is gone`);
  return { state, attemptsMade: job.attemptsMade };
}
