import type { Job } from 'bullmq';
import { expect } from 'vitest';
import type { Harness } from '../helpers/app-harness.js';
import { multipartForm, nameField, type FormPart } from '../helpers/multipart-body.js';

/**
 * `error` and default `message` of the source's section 7, written out here
 * (not imported from api/) so a change of the strings in the code fails a test.
 */
export const SOURCE_STATUS_TABLE: Record<number, { error: string; message: string }> = {
  400: { error: 'Bad Request', message: 'Invalid request parameters' },
  401: { error: 'Unauthorized', message: 'X-API-Key is missing or invalid' },
  403: { error: 'Forbidden', message: 'Access denied for this resource' },
  404: { error: 'Not Found', message: 'The requested resource was not found' },
  413: { error: 'Payload Too Large', message: 'An uploaded file exceeds the per-file size limit (25 MB).' },
  415: {
    error: 'Unsupported Media Type',
    message: 'Uploaded file type is not supported. Allowed: PDF, TXT, HTML, Markdown, DOCX.',
  },
  500: { error: 'Internal Server Error', message: 'Unexpected server error' },
};
export const KB_500_MESSAGE = 'Something went wrong on the server';

/** Statuses the source's table does not list: only `error` is fixed. */
const OTHER_STATUS_TEXT: Record<number, string> = {
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON; response bodies are checked field by field in the tests. */
  body: any;
}

export interface CallOptions {
  key?: string;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}

type RequestApp = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

/** One request through `app.request()`, body read and parsed when it is JSON. */
export async function call(app: RequestApp, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers = new Headers(opts.headers);
  if (opts.key !== undefined) headers.set('X-API-Key', opts.key);
  const res = await app.request(path, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
  const text = await res.text();
  let body: unknown = undefined;
  if ((res.headers.get('content-type') ?? '').includes('application/json') && text !== '') body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body };
}

export interface ErrorExpectation {
  /** Exact message; defaults to the source's default for the status. `any` accepts any non-empty message. */
  message?: string | 'any';
  /** Field names that must appear in `validationErrors` (and only on a 400). */
  fields?: string[];
}

/**
 * Asserts the contract's error body: exactly the fields of the source's
 * section 7, an ISO timestamp close to now, the status echoed, the table's
 * strings, and the collection path.
 */
export function expectErrorBody(res: ApiResponse, status: number, path: string, exp: ErrorExpectation = {}): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  const allowed = ['timestamp', 'status', 'error', 'message', 'path', 'validationErrors'];
  expect(Object.keys(body).filter((k) => !allowed.includes(k))).toEqual([]);
  expect(typeof body.timestamp).toBe('string');
  expect(body.timestamp).toMatch(ISO_8601);
  const at = Date.parse(body.timestamp as string);
  expect(Number.isNaN(at)).toBe(false);
  expect(Math.abs(Date.now() - at)).toBeLessThan(60_000);
  expect(body.status).toBe(status);
  const table = SOURCE_STATUS_TABLE[status];
  expect(body.error).toBe(table?.error ?? OTHER_STATUS_TEXT[status]);
  if (exp.message === 'any' || (exp.message === undefined && !table)) {
    expect(typeof body.message).toBe('string');
    expect((body.message as string).length).toBeGreaterThan(0);
  } else {
    expect(body.message).toBe(exp.message ?? table!.message);
  }
  expect(body.path).toBe(path);
  if (exp.fields) {
    // 400s name fields; 403, 404, 413 and 415 may name the reason, the missing resource or the refused part.
    expect([400, 403, 404, 413, 415]).toContain(status);
    expect(body.validationErrors, 'validationErrors').toBeTypeOf('object');
    const v = body.validationErrors as Record<string, unknown>;
    for (const f of exp.fields) {
      expect(Object.keys(v), `validationErrors names ${f}`).toContain(f);
      expect(typeof v[f]).toBe('string');
    }
  } else if (![400, 403, 404, 413, 415].includes(status)) {
    expect(body).not.toHaveProperty('validationErrors');
  }
}

/** Creates a knowledge base through the API and returns its body (asserting 201). */
export async function createKb(h: Harness, key: string, name: string, parts: FormPart[] = []) {
  const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField(name), ...parts]) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** `PATCH /v1/knowledge-bases/{kbId}` with the parts in order. */
export function patchKb(h: Harness, key: string, kbId: string, parts: FormPart[]): Promise<ApiResponse> {
  return call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: multipartForm(parts) });
}

/** Every job of the harness's queue that belongs to one knowledge base. */
export async function jobsOf(h: Harness, kbId: string): Promise<Job[]> {
  const jobs = await h.queue.getJobs(['wait', 'waiting-children', 'delayed', 'prioritized', 'active', 'completed', 'failed'], 0, -1);
  return jobs.filter((j) => (j.data as { kbId?: string }).kbId === kbId);
}

/** Redis keys of one knowledge base (its hash tag), under the harness prefix. */
export async function kbKeys(h: Harness, kbId: string): Promise<string[]> {
  return (await h.allKeys()).filter((k) => k.includes(`{kb:${kbId}}`));
}

/** Every key of one knowledge base with its value (hashes, lists and strings), for before/after comparisons. */
export async function kbSnapshot(h: Harness, kbId: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const k of (await kbKeys(h, kbId)).sort()) {
    const type = await h.redis.type(k);
    if (type === 'stream') out[k] = await h.redis.xrange(k, '-', '+');
    else if (type === 'zset') out[k] = await h.redis.zrange(k, 0, -1, 'WITHSCORES');
    else if (type === 'set') out[k] = (await h.redis.smembers(k)).sort();
    else out[k] = type === 'hash' ? await h.redis.hgetall(k) : type === 'list' ? await h.redis.lrange(k, 0, -1) : await h.redis.get(k);
  }
  return out;
}

/** Marks a source failed the way the worker does (start, then finish). */
export async function failSource(h: Harness, kbId: string, documentId: string, run = 1): Promise<void> {
  const now = new Date().toISOString();
  expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: documentId, run: run }, { now: now })).result).toBe('ok');
  const outcome = { status: 'failed' as const, error: { code: 'fetch_failed' as const, message: 'The origin refused the connection' } };
  expect((await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: documentId, run: run }, outcome, { now: now })).result).toBe('ok');
}

/** Marks a source ready with an extracted text the way the worker does. */
export async function readySource(h: Harness, kbId: string, documentId: string, text: string, run = 1): Promise<void> {
  const now = new Date().toISOString();
  expect((await h.store.kbs.startSourceReport({ kbId: kbId, documentId: documentId, run: run }, { now: now })).result).toBe('ok');
  expect((await h.store.kbs.finishSourceReport({ kbId: kbId, documentId: documentId, run: run }, { status: 'ready', text, truncated: false }, { now: now })).result).toBe('ok');
}

/** Resolves once the clock has moved past `ms`, so the next record gets a later timestamp. */
export async function clockPast(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setImmediate(r));
}

/**
 * Awaits a request but gives up after `ms`: a request that never answers
 * fails its test with a clear message instead of the runner's timeout.
 */
export async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no response within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
