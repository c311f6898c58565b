import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import type { Store } from '../../shared/store/index.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textBytes, textsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, KB_500_MESSAGE, SOURCE_STATUS_TABLE } from './support.js';

let h: Harness;
let key: string;
let otherKey: string;
let readOnlyKey: string;
let kbId: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-errors');
  otherKey = await h.key('ws-errors-other');
  readOnlyKey = await h.key('ws-errors', { readOnly: true });
  kbId = (await createKb(h, key, 'Errors', [textsField(['a pending text'])])).kbId;
});
afterAll(async () => h.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe('error body of each status', () => {
  it('answers 400 with the source strings and validationErrors naming the query field', async () => {
    const res = await call(h.app, 'GET', '/v1/agents?size=0', { key });
    expectErrorBody(res, 400, '/v1/agents', { fields: ['size'] });
  });

  it('answers 400 with validationErrors.kbId and the collection path for a malformed kbId', async () => {
    const res = await call(h.app, 'GET', '/v1/knowledge-bases/a:b', { key });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['kbId'] });
  });

  it('answers 400 with validationErrors naming a bad form field', async () => {
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, {
      key,
      body: multipartForm([textsField([''])]),
    });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['knowledge_base_texts[0]'] });
  });

  it('answers 401 with the source strings and the collection path of a document route', async () => {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/doc_y`);
    expectErrorBody(res, 401, '/v1/knowledge-bases');
  });

  it('answers 403 with the source strings for a knowledge base of another workspace', async () => {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key: otherKey });
    expectErrorBody(res, 403, '/v1/knowledge-bases');
  });

  it('answers 403 with the source strings for a read-only key on DELETE', async () => {
    const res = await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key: readOnlyKey });
    expectErrorBody(res, 403, '/v1/knowledge-bases');
  });

  it('answers 404 with path /v1/knowledge-bases for /v1/knowledge-bases/kb_x', async () => {
    const res = await call(h.app, 'GET', '/v1/knowledge-bases/kb_x', { key });
    expectErrorBody(res, 404, '/v1/knowledge-bases');
  });

  it('answers 404 with path /v1/knowledge-bases for /v1/knowledge-bases/kb_x/documents/doc_y', async () => {
    const res = await call(h.app, 'GET', '/v1/knowledge-bases/kb_x/documents/doc_y', { key });
    expectErrorBody(res, 404, '/v1/knowledge-bases');
  });

  it('answers 404 with path /v1/qa-issues for an unknown QA issue', async () => {
    const res = await call(h.app, 'GET', '/v1/qa-issues/q1', { key });
    expectErrorBody(res, 404, '/v1/qa-issues');
  });

  it('answers 409 with the error body when a pending source is retried', async () => {
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
    const doc = kb.files[0].documentId as string;
    const res = await call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${doc}/retry`, { key });
    expectErrorBody(res, 409, '/v1/knowledge-bases', { message: 'any' });
  });

  it('answers 413 with the source message for a file one byte over the limit', async () => {
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, {
      key,
      body: multipartForm([filePart('big.txt', textBytes(26_214_401))]),
    });
    expectErrorBody(res, 413, '/v1/knowledge-bases');
  });

  it('answers 415 with the source message for a file of an unsupported type', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, {
      key,
      body: multipartForm([filePart('a.pdf', png)]),
    });
    expectErrorBody(res, 415, '/v1/knowledge-bases');
  });
});

describe('unknown routes and wrong methods', () => {
  it('answers 404 with the error body for an unknown route outside /v1', async () => {
    const res = await call(h.app, 'GET', '/nope');
    expectErrorBody(res, 404, '/nope');
    expect(res.headers.get('X-Request-Id')).toMatch(UUID);
  });

  it('answers 404 with the error body for an unknown /v1 route with a valid key', async () => {
    const res = await call(h.app, 'GET', '/v1/nothing-here', { key });
    expectErrorBody(res, 404, '/v1/nothing-here');
  });

  it('answers 401, not 404, for an unknown /v1 route without a key', async () => {
    const res = await call(h.app, 'GET', '/v1/nothing-here');
    expectErrorBody(res, 401, '/v1/nothing-here');
  });

  it.each([
    ['PUT', '/v1/knowledge-bases/kb_x', '/v1/knowledge-bases', ['DELETE', 'GET', 'PATCH']],
    ['PUT', '/v1/knowledge-bases', '/v1/knowledge-bases', ['GET', 'POST']],
    ['POST', '/v1/knowledge-bases/kb_x/documents/doc_y', '/v1/knowledge-bases', ['DELETE', 'GET', 'PATCH', 'PUT']],
    ['GET', '/v1/knowledge-bases/kb_x/documents/doc_y/retry', '/v1/knowledge-bases', ['POST']],
    ['DELETE', '/v1/agents', '/v1/agents', ['GET']],
    ['POST', '/v1/qa-issues/q1', '/v1/qa-issues', ['GET']],
    ['POST', '/healthz', '/healthz', ['GET']],
  ])('answers 405 with the error body and an Allow header for %s %s', async (method, path, collection, allow) => {
    const res = await call(h.app, method, path, { key });
    expectErrorBody(res, 405, collection);
    const listed = (res.headers.get('Allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    expect(listed.filter((m) => m !== 'HEAD').sort()).toEqual(allow);
  });

  it.each([
    ['GET', '/docs/no-such-asset.js'],
    ['GET', '/v1/agents/'],
    ['GET', '/v1/knowledge-bases/kb_x/'],
    ['PATCH', '/v1/knowledge-bases/kb_x/'],
  ])('never answers 405 to %s %s with an Allow header that lists that same method', async (method, path) => {
    const res = await call(h.app, method, path, { key });
    const listed = (res.headers.get('Allow') ?? '').split(',').map((m) => m.trim());
    if (res.status === 405) expect(listed, `405 for ${method} with Allow: ${res.headers.get('Allow')}`).not.toContain(method);
    expect(res.status).not.toBe(500);
  });

  it('answers 404 with the error body for an unknown /docs asset', async () => {
    const res = await call(h.app, 'GET', '/docs/no-such-asset.js');
    expectErrorBody(res, 404, '/docs/no-such-asset.js');
  });
});

describe('authentication', () => {
  it('accepts a valid key (control for the 401 cases)', async () => {
    expect((await call(h.app, 'GET', '/v1/agents', { key })).status).toBe(200);
  });

  it('answers 401 when X-API-Key is missing', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/agents'), 401, '/v1/agents');
  });

  it('answers 401 when X-API-Key is empty', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/agents', { key: '' }), 401, '/v1/agents');
  });

  it('answers 401 for an unknown key and does not echo it', async () => {
    const unknown = 'kbi_not-a-real-key-0000000000000000000000000000';
    const res = await call(h.app, 'GET', '/v1/agents', { key: unknown });
    expectErrorBody(res, 401, '/v1/agents');
    expect(res.text).not.toContain(unknown);
  });

  it('answers 401 for a valid key in different case', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/agents', { key: key.toUpperCase() }), 401, '/v1/agents');
  });

  it('answers 401 for a very long key', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/agents', { key: `${key}${'x'.repeat(5000)}` }), 401, '/v1/agents');
  });

  it('answers 401 when the key is sent only in the query string', async () => {
    const q = encodeURIComponent(key);
    const res = await call(h.app, 'GET', `/v1/agents?X-API-Key=${q}&x-api-key=${q}&api_key=${q}&apiKey=${q}&key=${q}`);
    expectErrorBody(res, 401, '/v1/agents');
  });

  it('answers 401 when X-API-Key is sent twice through app.request', async () => {
    const headers = new Headers();
    headers.append('X-API-Key', key);
    headers.append('X-API-Key', key);
    const res = await h.app.request('/v1/agents', { headers });
    const body = (await res.json()) as { message: string };
    expect(res.status).toBe(401);
    expect(body.message).toBe(SOURCE_STATUS_TABLE[401]!.message);
  });

  it('answers 401 before reading a multipart body without a key', async () => {
    const res = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, {
      body: multipartForm([nameField('should not apply')]),
    });
    expectErrorBody(res, 401, '/v1/knowledge-bases');
    const kb = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key });
    expect(kb.body.name).toBe('Errors');
  });
});

describe('authentication over a real socket', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    if (!server.listening) await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** GET with raw header lines; a repeated name is sent as separate lines. */
  function rawGet(path: string, headers: Record<string, string | string[]>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
      req.on('error', reject);
      req.end();
    });
  }

  it('accepts one X-API-Key header line (control)', async () => {
    expect((await rawGet('/v1/agents', { 'X-API-Key': key })).status).toBe(200);
  });

  it('answers 401 when two X-API-Key header lines carry the same valid key', async () => {
    const res = await rawGet('/v1/agents', { 'X-API-Key': [key, key] });
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ status: 401, error: 'Unauthorized', message: SOURCE_STATUS_TABLE[401]!.message, path: '/v1/agents' });
  });

  it('answers 401 when a valid key line is followed by an unknown one', async () => {
    expect((await rawGet('/v1/agents', { 'X-API-Key': [key, 'kbi_wrong'] })).status).toBe(401);
  });
});

describe('X-Request-Id', () => {
  it('echoes a valid X-Request-Id on success', async () => {
    const res = await call(h.app, 'GET', '/v1/agents', { key, headers: { 'X-Request-Id': 'req-123_abc.9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Request-Id')).toBe('req-123_abc.9');
  });

  it('echoes a valid X-Request-Id on an error', async () => {
    const res = await call(h.app, 'GET', '/v1/agents', { headers: { 'X-Request-Id': 'trace-401' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('X-Request-Id')).toBe('trace-401');
  });

  it('generates a request id when none is sent', async () => {
    const res = await call(h.app, 'GET', '/v1/agents', { key });
    expect(res.headers.get('X-Request-Id')).toMatch(UUID);
  });

  it.each([
    ['with spaces and quotes', 'bad id "x"'],
    ['too long', 'a'.repeat(129)],
    ['with separators', 'a,b;c'],
  ])('generates a new request id instead of echoing one %s', async (_label, sent) => {
    const res = await call(h.app, 'GET', '/v1/agents', { key, headers: { 'X-Request-Id': sent } });
    const got = res.headers.get('X-Request-Id');
    expect(got).toMatch(UUID);
    expect(got).not.toBe(sent);
  });

  it('gives two requests different generated ids', async () => {
    const a = await call(h.app, 'GET', '/v1/agents', { key });
    const b = await call(h.app, 'GET', '/v1/agents', { key });
    expect(a.headers.get('X-Request-Id')).not.toBe(b.headers.get('X-Request-Id'));
  });
});

describe('500 answers', () => {
  const INTERNAL = 'ERR redis internal detail at /srv/app/shared/store/kb-store.ts:42 password=hunter2';
  let broken: ReturnType<typeof createApp>;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(() => {
    const fail = (): Promise<never> => Promise.reject(new Error(INTERNAL));
    const throwingProxy = <T extends object>(target: T): T =>
      new Proxy(target, {
        get(t, prop, receiver) {
          const value = Reflect.get(t, prop, receiver) as unknown;
          return typeof value === 'function' ? fail : value;
        },
      });
    const store: Store = { ...h.store, kbs: throwingProxy(h.store.kbs), catalog: throwingProxy(h.store.catalog) };
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        cb();
      },
    });
    const logger = createLogger('info', {}, sink);
    broken = createApp({ config: h.config, redis: h.redis, store, queue: bullSourceQueue(h.queue, 1), logger });
  });

  it.each([
    ['GET', '/v1/knowledge-bases', '/v1/knowledge-bases', KB_500_MESSAGE],
    ['GET', '/v1/knowledge-bases/kb_x', '/v1/knowledge-bases', KB_500_MESSAGE],
    ['DELETE', '/v1/knowledge-bases/kb_x', '/v1/knowledge-bases', KB_500_MESSAGE],
    ['GET', '/v1/knowledge-bases/kb_x/documents/doc_y', '/v1/knowledge-bases', KB_500_MESSAGE],
    ['GET', '/v1/agents', '/v1/agents', 'Unexpected server error'],
    ['GET', '/v1/qa-issues/q1', '/v1/qa-issues', 'Unexpected server error'],
  ])('answers %s %s with 500, its own message and no internal detail', async (method, path, collection, message) => {
    const res = await call(broken, method, path, { key });
    expectErrorBody(res, 500, collection, { message });
    expect(res.text).not.toContain('redis internal detail');
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('kb-store.ts');
    expect(res.text).not.toMatch(/\bat \S+ \(|stack|Error:/);
  });

  it('answers a PATCH whose store fails with the knowledge-base 500 message', async () => {
    const res = await call(broken, 'PATCH', '/v1/knowledge-bases/kb_x', { key, body: multipartForm([nameField('x')]) });
    expectErrorBody(res, 500, '/v1/knowledge-bases', { message: KB_500_MESSAGE });
    expect(res.text).not.toContain('hunter2');
  });

  it('sets X-Request-Id on a 500 and logs the error and where it was thrown, never its stack, under the same request id', async () => {
    const res = await call(broken, 'GET', '/v1/agents', { key, headers: { 'X-Request-Id': 'trace-500-agents' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('X-Request-Id')).toBe('trace-500-agents');
    const logged = logLines.find((l) => l.requestId === 'trace-500-agents' && (l.level as number) >= 50);
    expect(logged, 'an error log line with the request id').toBeDefined();
    expect(JSON.stringify(logged)).toContain('redis internal detail');
    expect((logged!.err as { at?: string }).at).toMatch(/:\d+:\d+/);
    expect(JSON.stringify(logged)).not.toMatch(/\\n\s+at |"stack"/);
  });

  it('sets a generated X-Request-Id on a 500 without one', async () => {
    const res = await call(broken, 'GET', '/v1/knowledge-bases/kb_x', { key });
    expect(res.status).toBe(500);
    const id = res.headers.get('X-Request-Id');
    expect(id).toMatch(UUID);
    expect(logLines.some((l) => l.requestId === id && (l.level as number) >= 50)).toBe(true);
  });
});
