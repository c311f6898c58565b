import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody, type ApiResponse } from './support.js';

let h: Harness;
let key: string;
let app: ReturnType<typeof createApp>;
const logLines: string[] = [];

beforeAll(async () => {
  h = await createHarness({ MAX_WEBHOOKS_PER_WORKSPACE: '3' });
  key = await h.key('ws_hooks');
  // The harness's app logs nothing; this one logs everything into `logLines`.
  const logger = createLogger('trace', {}, { write: (line: string) => void logLines.push(line) });
  app = createApp({ config: h.config, redis: h.redis, store: h.store, queue: bullSourceQueue(h.queue, 1), logger, ingestQueue: h.queue });
});
afterAll(async () => {
  await h.close();
});

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const register = (body: unknown, k = key): Promise<ApiResponse> => call(app, 'POST', '/v1/webhooks', { key: k, ...json(body) });
const hookBody = { url: 'https://hooks.example.com/kb', events: ['source.ready', 'knowledge_base.settled'] };

describe('POST /v1/webhooks', () => {
  it('returns 201 with the webhook and a whsec_ secret of 24 random bytes', async () => {
    const res = await register({ ...hookBody, description: 'CRM sync' });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'backoffUntil',
      'consecutiveFailures',
      'createdAt',
      'description',
      'disabledAt',
      'disabledReason',
      'events',
      'failingSince',
      'previousSecretExpiresAt',
      'secret',
      'status',
      'url',
      'webhookId',
    ]);
    expect(res.body).toMatchObject({ status: 'active', consecutiveFailures: 0, failingSince: null, backoffUntil: null, disabledAt: null, previousSecretExpiresAt: null });
    expect(res.body).toMatchObject({ url: 'https://hooks.example.com/kb', events: hookBody.events, description: 'CRM sync' });
    expect(res.body.webhookId).toMatch(/^wh_[A-Za-z0-9_-]+$/);
    expect(res.headers.get('location')).toBe(`/v1/webhooks/${res.body.webhookId}`);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(res.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
    await call(app, 'DELETE', `/v1/webhooks/${res.body.webhookId}`, { key });
  });

  it('gives every webhook its own secret', async () => {
    const a = await register(hookBody);
    const b = await register(hookBody);
    expect(a.body.secret).not.toBe(b.body.secret);
    for (const r of [a, b]) await call(app, 'DELETE', `/v1/webhooks/${r.body.webhookId}`, { key });
  });

  it('returns 400 for the metadata address http://169.254.169.254/', async () => {
    const res = await register({ url: 'http://169.254.169.254/', events: ['source.ready'] });
    expectErrorBody(res, 400, '/v1/webhooks', { fields: ['url'] });
    expect(res.body.validationErrors.url).toMatch(/metadata/);
  });

  it.each([
    ['a private IP literal', 'http://10.0.0.7/hook', /private|internal/],
    ['loopback', 'http://127.0.0.1:8080/hook', /loopback|private|internal/],
    ['a local host name', 'http://localhost/hook', /local or internal/],
    ['a metadata host name', 'http://metadata.google.internal/', /metadata/],
    ['an internal service port', 'http://hooks.example.com:6379/', /port 6379/],
    ['another scheme', 'ftp://hooks.example.com/', /http or https/],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/', /user name or password/],
    ['no URL at all', '', /http or https/],
  ])('returns 400 with validationErrors.url for %s', async (_label, url, message) => {
    const res = await register({ url, events: ['source.ready'] });
    expectErrorBody(res, 400, '/v1/webhooks', { fields: ['url'] });
    expect(res.body.validationErrors.url).toMatch(message);
  });

  it.each([
    ['no events', { url: hookBody.url }, 'events'],
    ['an empty events list', { url: hookBody.url, events: [] }, 'events'],
    ['an unknown event', { url: hookBody.url, events: ['source.deleted'] }, 'events[0]'],
    ['events that are not a list', { url: hookBody.url, events: 'source.ready' }, 'events'],
    ['an unknown field', { ...hookBody, secret: 'mine' }, 'request'],
    ['a description over 500 characters', { ...hookBody, description: 'x'.repeat(501) }, 'description'],
  ])('returns 400 with validationErrors for %s', async (_label, body, field) => {
    const res = await register(body);
    expectErrorBody(res, 400, '/v1/webhooks', { fields: [field] });
  });

  it('returns 400 in the error body for a body that is not JSON', async () => {
    const res = await call(app, 'POST', '/v1/webhooks', { key, body: '{"url": ', headers: { 'content-type': 'application/json' } });
    expectErrorBody(res, 400, '/v1/webhooks', { fields: ['request'] });
  });

  it.each([
    ['a multipart form', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://a.example/\r\n--x--\r\n'],
    ['plain text holding JSON', 'text/plain', JSON.stringify(hookBody)],
    ['no content type', undefined, JSON.stringify(hookBody)],
  ])('returns 415 for %s, as the knowledge-base routes answer a body of the wrong type, and registers nothing', async (_label, type, body) => {
    const k = await h.key('ws_wrong_type');
    const res = await call(app, 'POST', '/v1/webhooks', { key: k, body, headers: type ? { 'content-type': type } : {} });
    expectErrorBody(res, 415, '/v1/webhooks', { message: 'The request body must be application/json' });
    expect((await call(app, 'GET', '/v1/webhooks', { key: k })).body.totalCount).toBe(0);
  });

  it('returns 413 for a body over 16 KiB and registers nothing', async () => {
    const k = await h.key('ws_big');
    const res = await register({ ...hookBody, description: 'x'.repeat(17 * 1024) }, k);
    expectErrorBody(res, 413, '/v1/webhooks', { message: 'The request body must be at most 16 KiB' });
    expect((await call(app, 'GET', '/v1/webhooks', { key: k })).body.totalCount).toBe(0);
  });

  it('keeps each event once when the list repeats one', async () => {
    const res = await register({ url: hookBody.url, events: ['source.failed', 'source.failed'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['source.failed']);
    await call(app, 'DELETE', `/v1/webhooks/${res.body.webhookId}`, { key });
  });

  it('returns 409 past MAX_WEBHOOKS_PER_WORKSPACE and accepts one again after a delete', async () => {
    const k = await h.key('ws_full');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await register(hookBody, k)).body.webhookId);
    expectErrorBody(await register(hookBody, k), 409, '/v1/webhooks', { message: 'any' });
    await call(app, 'DELETE', `/v1/webhooks/${made[0]}`, { key: k });
    expect((await register(hookBody, k)).status).toBe(201);
  });
});

describe('GET /v1/webhooks', () => {
  it('lists the workspace’s webhooks newest first in the page wrapper, without secrets', async () => {
    const k = await h.key('ws_list');
    const first = (await register({ ...hookBody, description: 'one' }, k)).body;
    const second = (await register({ url: 'https://other.example.com/', events: ['source.failed'] }, k)).body;
    await register(hookBody, await h.key('ws_elsewhere'));
    const res = await call(app, 'GET', '/v1/webhooks?size=1', { key: k });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 0, size: 1, totalCount: 2, totalPages: 2, hasNext: true, hasPrevious: false });
    const { secret: _secret, ...secondView } = second;
    expect(res.body.data).toEqual([{ ...secondView, events: ['source.failed'], description: null }]);
    const next = await call(app, 'GET', '/v1/webhooks?page=1&size=1', { key: k });
    expect(next.body.data.map((w: { webhookId: string }) => w.webhookId)).toEqual([first.webhookId]);
    expect(res.text + next.text).not.toContain('whsec_');
  });

  it('returns 400 for a bad page size', async () => {
    expectErrorBody(await call(app, 'GET', '/v1/webhooks?size=0', { key }), 400, '/v1/webhooks', { fields: ['size'] });
  });
});

describe('DELETE /v1/webhooks/{webhookId}', () => {
  it('returns 204, then 404 for the same webhook', async () => {
    const { webhookId } = (await register(hookBody)).body;
    const res = await call(app, 'DELETE', `/v1/webhooks/${webhookId}`, { key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectErrorBody(await call(app, 'DELETE', `/v1/webhooks/${webhookId}`, { key }), 404, '/v1/webhooks');
    expectErrorBody(await call(app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key }), 404, '/v1/webhooks');
    const list = await call(app, 'GET', '/v1/webhooks', { key });
    expect(list.body.data.map((w: { webhookId: string }) => w.webhookId)).not.toContain(webhookId);
  });

  it('returns 400 with validationErrors.webhookId for a malformed id', async () => {
    expectErrorBody(await call(app, 'DELETE', '/v1/webhooks/wh%3Abad', { key }), 400, '/v1/webhooks', { fields: ['webhookId'] });
  });
});

describe('workspaces and read-only keys', () => {
  it("returns 403 with the reason for another workspace's webhook and leaves it in place", async () => {
    const { webhookId } = (await register(hookBody)).body;
    const other = await h.key('ws_other');
    for (const [method, path] of [
      ['DELETE', `/v1/webhooks/${webhookId}`],
      ['GET', `/v1/webhooks/${webhookId}/deliveries`],
    ] as const) {
      const res = await call(app, method, path, { key: other });
      expectErrorBody(res, 403, '/v1/webhooks', { fields: ['request'] });
      expect(res.body.validationErrors.request).toBe("the resource belongs to another workspace than this key's");
    }
    expect((await call(app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key })).status).toBe(200);
  });

  it('lets a read-only key list webhooks and deliveries but not register or delete', async () => {
    const { webhookId } = (await register(hookBody)).body;
    const reader = await h.key('ws_hooks', { readOnly: true });
    expect((await call(app, 'GET', '/v1/webhooks', { key: reader })).status).toBe(200);
    expect((await call(app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key: reader })).status).toBe(200);
    for (const res of [await register(hookBody, reader), await call(app, 'DELETE', `/v1/webhooks/${webhookId}`, { key: reader })]) {
      expectErrorBody(res, 403, '/v1/webhooks', { fields: ['request'] });
      expect(res.body.validationErrors.request).toBe('this API key is read-only');
    }
    expect((await call(app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key })).status).toBe(200);
  });

  it('returns 401 without a key', async () => {
    expectErrorBody(await call(app, 'GET', '/v1/webhooks'), 401, '/v1/webhooks');
  });
});

describe('GET /v1/webhooks/{webhookId}/deliveries', () => {
  it('is an empty page for a webhook that has had no event yet', async () => {
    const { webhookId } = (await register(hookBody)).body;
    const res = await call(app, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key });
    expect(res.body).toEqual({ data: [], page: 0, size: 20, totalCount: 0, totalPages: 0, hasNext: false, hasPrevious: false });
  });
});

describe('logs', () => {
  it('never carry a webhook secret', async () => {
    const k = await h.key('ws_logs');
    const res = await register(hookBody, k);
    expect(res.status).toBe(201);
    await call(app, 'GET', '/v1/webhooks', { key: k });
    await call(app, 'DELETE', `/v1/webhooks/${res.body.webhookId}`, { key: k });
    expect(logLines.some((l) => l.includes(res.body.webhookId)), 'the webhook was logged at all').toBe(true);
    const secretKey = res.body.secret.slice('whsec_'.length);
    expect(logLines.filter((l) => l.includes(secretKey))).toEqual([]);
  });
});
