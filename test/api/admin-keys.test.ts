import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody, type ApiResponse } from './support.js';

const TOKEN = 'admin-token-0123456789abcdef0123456789';
let h: Harness;
let app: ReturnType<typeof createApp>;
let lines: string[];

beforeAll(async () => {
  h = await createHarness({ ADMIN_TOKEN: TOKEN });
  const captured = capturingLogger('trace');
  lines = captured.lines;
  app = createApp({ config: h.config, redis: h.redis, store: h.store, queue: bullSourceQueue(h.queue, 1), logger: captured.logger, ingestQueue: h.queue });
});
afterAll(async () => {
  await h.close();
});

const admin = (method: string, path: string, body?: unknown, token = TOKEN): Promise<ApiResponse> =>
  call(app, method, path, {
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

describe('/v1/admin/keys with ADMIN_TOKEN set', () => {
  it('creates a key that works at once as X-API-Key for its workspace, stored only as a hash', async () => {
    const res = await admin('POST', '/v1/admin/keys', { workspaceId: 'ws_admin_a', name: 'crm' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ workspaceId: 'ws_admin_a', name: 'crm', readOnly: false, revokedAt: null });
    expect(res.body.key).toMatch(/^kbi_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('location')).toBe(`/v1/admin/keys/${res.body.keyId}`);

    const usage = await call(app, 'GET', '/v1/usage', { key: res.body.key });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.workspaceId).toBe('ws_admin_a');

    const stored = await Promise.all((await h.allKeys()).map(async (k) => ((await h.redis.type(k)) === 'hash' ? JSON.stringify(await h.redis.hgetall(k)) : '')));
    expect(stored.join('\n')).not.toContain(res.body.key);
  });

  it('makes a read-only key that gets 403 on a write', async () => {
    const res = await admin('POST', '/v1/admin/keys', { workspaceId: 'ws_admin_ro', readOnly: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.readOnly).toBe(true);
    const write = await call(app, 'POST', '/v1/webhooks', {
      key: res.body.key,
      body: JSON.stringify({ url: 'https://hooks.example.com/x', events: ['source.ready'] }),
      headers: { 'content-type': 'application/json' },
    });
    expectErrorBody(write, 403, '/v1/webhooks', { fields: ['request'] });
  });

  it("lists a workspace's keys without the keys, and revokes one so that it stops working", async () => {
    const a = await admin('POST', '/v1/admin/keys', { workspaceId: 'ws_admin_list', name: 'one' });
    const b = await admin('POST', '/v1/admin/keys', { workspaceId: 'ws_admin_list', name: 'two' });
    const list = await admin('GET', '/v1/admin/keys?workspaceId=ws_admin_list');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((k: { keyId: string }) => k.keyId)).toEqual([a.body.keyId, b.body.keyId]);
    expect(list.text).not.toContain(a.body.key);
    expect(list.text).not.toContain(b.body.key);

    const del = await admin('DELETE', `/v1/admin/keys/${a.body.keyId}`);
    expect(del.status, del.text).toBe(204);
    expect((await call(app, 'GET', '/v1/usage', { key: a.body.key })).status).toBe(401);
    expect((await call(app, 'GET', '/v1/usage', { key: b.body.key })).status).toBe(200);

    const one = await admin('GET', `/v1/admin/keys/${a.body.keyId}`);
    expect(one.body.revokedAt).toEqual(expect.any(String));
    const again = await admin('DELETE', `/v1/admin/keys/${a.body.keyId}`);
    expectErrorBody(again, 404, '/v1/admin/keys', { fields: ['keyId'] });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `${TOKEN}x`],
    ['a prefix of the token', TOKEN.slice(0, -1)],
    ['an API key instead', 'kbi_not-an-admin-token'],
  ])('answers 401 with %s and never logs what was sent', async (_label, token) => {
    const sent = token ?? '';
    const res = await call(app, 'POST', '/v1/admin/keys', {
      headers: { 'content-type': 'application/json', ...(token !== undefined && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ workspaceId: 'ws_admin_no' }),
    });
    expectErrorBody(res, 401, '/v1/admin/keys', { message: 'any' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await h.store.apiKeys.list('ws_admin_no')).toEqual([]);
    const log = lines.join('\n');
    expect(log).not.toContain(TOKEN);
    if (sent !== '') expect(log).not.toContain(sent);
  });

  it('does not accept a workspace API key for the admin routes', async () => {
    const key = await h.key('ws_admin_tenant');
    const res = await call(app, 'GET', '/v1/admin/keys?workspaceId=ws_admin_tenant', { key });
    expectErrorBody(res, 401, '/v1/admin/keys', { message: 'any' });
  });

  it.each([
    ['an unknown field, naming the nearest one', { workspaceId: 'ws_x', read_only: true }, 'request', /did you mean "readOnly"\?/],
    ['a missing workspace', { name: 'x' }, 'workspaceId', /.+/],
    ['a malformed workspace id', { workspaceId: 'ws x' }, 'workspaceId', /letters, digits/],
    ['readOnly not a boolean', { workspaceId: 'ws_x', readOnly: 'yes' }, 'readOnly', /true or false/],
  ])('answers 400 for %s', async (_label, body, field, message) => {
    const res = await admin('POST', '/v1/admin/keys', body);
    expectErrorBody(res, 400, '/v1/admin/keys', { fields: [field] });
    expect(res.body.validationErrors[field]).toMatch(message);
  });

  it('answers 400 naming workspaceId when the listing has none', async () => {
    const res = await admin('GET', '/v1/admin/keys');
    expectErrorBody(res, 400, '/v1/admin/keys', { fields: ['workspaceId'] });
  });
});

describe('/v1/admin/keys without ADMIN_TOKEN', () => {
  it('answers 404 to every admin route, whatever token is sent', async () => {
    const closed = createApp({ config: { ...h.config, ADMIN_TOKEN: undefined }, redis: h.redis, store: h.store, queue: bullSourceQueue(h.queue, 1), logger: capturingLogger().logger });
    for (const [method, path] of [
      ['POST', '/v1/admin/keys'],
      ['GET', '/v1/admin/keys?workspaceId=ws_a'],
      ['DELETE', '/v1/admin/keys/key_x'],
    ] as const) {
      const res = await call(closed, method, path, { headers: { authorization: 'Bearer anything-at-all' } });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('ADMIN_TOKEN validation', () => {
  it('refuses a short token at start-up without printing it', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'short-secret' })).toThrow(/ADMIN_TOKEN: must be at least 32 characters/);
    try {
      loadConfig({ ADMIN_TOKEN: 'short-secret' });
    } catch (err) {
      expect(String(err)).not.toContain('short-secret');
    }
  });
});
