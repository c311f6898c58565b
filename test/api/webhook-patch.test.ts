import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody, type ApiResponse } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws_hook_patch');
});
afterAll(async () => {
  await h.close();
});

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const hookBody = { url: 'https://hooks.example.com/kb', events: ['source.ready'], description: 'CRM' };

async function register(k = key): Promise<{ webhookId: string; secret: string }> {
  const res = await call(h.app, 'POST', '/v1/webhooks', { key: k, ...json(hookBody) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const patch = (id: string, body: unknown, k = key): Promise<ApiResponse> => call(h.app, 'PATCH', `/v1/webhooks/${id}`, { key: k, ...json(body) });

describe('PATCH /v1/webhooks/{webhookId}', () => {
  it('changes the URL and the events, keeps the rest and the secret', async () => {
    const hook = await register();
    const res = await patch(hook.webhookId, { url: 'https://other.example.com/in', events: ['source.failed', 'knowledge_base.settled'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      webhookId: hook.webhookId,
      url: 'https://other.example.com/in',
      events: ['source.failed', 'knowledge_base.settled'],
      description: 'CRM',
      status: 'active',
    });
    expect(res.body).not.toHaveProperty('secret');
    const stored = await h.store.webhooks.get(hook.webhookId);
    expect(stored?.secret).toBe(hook.secret);
    expect((await call(h.app, 'GET', `/v1/webhooks/${hook.webhookId}`, { key })).body.url).toBe('https://other.example.com/in');
  });

  it('clears the description with null', async () => {
    const hook = await register();
    const res = await patch(hook.webhookId, { description: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body.description).toBeNull();
  });

  it('disables with enabled: false, so no event reaches it and a test event is a 409, and turns it back on with enabled: true', async () => {
    const hook = await register();
    const off = await patch(hook.webhookId, { enabled: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ status: 'disabled', disabledReason: expect.stringContaining('enabled: false') });
    expect(off.body.disabledAt).toEqual(expect.any(String));
    expect((await h.store.webhooks.active('ws_hook_patch')).map((w) => w.webhookId)).not.toContain(hook.webhookId);
    expectErrorBody(await call(h.app, 'POST', `/v1/webhooks/${hook.webhookId}/test`, { key }), 409, '/v1/webhooks', { message: 'any' });

    const on = await patch(hook.webhookId, { enabled: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ status: 'active', disabledAt: null, disabledReason: null, consecutiveFailures: 0, backoffUntil: null });
    expect((await h.store.webhooks.active('ws_hook_patch')).map((w) => w.webhookId)).toContain(hook.webhookId);
  });

  it('starts the health of the endpoint afresh when the URL changes', async () => {
    const hook = await register();
    await h.redis.hset(h.store.keys.webhook(hook.webhookId), { failures: '7', failingSinceMs: String(Date.now() - 60_000), backoffUntilMs: String(Date.now() + 600_000) });
    const same = await patch(hook.webhookId, { url: hookBody.url });
    expect(same.body.consecutiveFailures).toBe(7);
    const moved = await patch(hook.webhookId, { url: 'https://fixed.example.com/hook' });
    expect(moved.body).toMatchObject({ consecutiveFailures: 0, failingSince: null, backoffUntil: null });
  });

  it.each([
    ['the metadata address', { url: 'http://169.254.169.254/' }, 'url'],
    ['a private address', { url: 'http://10.0.0.7/hook' }, 'url'],
    ['an empty events list', { events: [] }, 'events'],
    ['an unknown event', { events: ['source.deleted'] }, 'events[0]'],
    ['enabled that is not a boolean', { enabled: 'no' }, 'enabled'],
    ['nothing to change', {}, 'request'],
    ['a body that is not an object', ['url'], 'request'],
  ])('answers 400 for %s and changes nothing', async (_label, body, field) => {
    const hook = await register();
    const before = await h.redis.hgetall(h.store.keys.webhook(hook.webhookId));
    const res = await patch(hook.webhookId, body);
    expectErrorBody(res, 400, '/v1/webhooks', { fields: [field] });
    expect(await h.redis.hgetall(h.store.keys.webhook(hook.webhookId))).toEqual(before);
  });

  it('suggests the nearest field for an unknown one', async () => {
    const hook = await register();
    const res = await patch(hook.webhookId, { enable: false });
    expectErrorBody(res, 400, '/v1/webhooks', { fields: ['request'] });
    expect(res.body.validationErrors.request).toBe('unknown field "enable"; did you mean "enabled"?');
  });

  it("answers 404 for an unknown webhook and 403 for another workspace's", async () => {
    expectErrorBody(await patch('wh_nope', { enabled: false }), 404, '/v1/webhooks', { fields: ['webhookId'] });
    const hook = await register();
    const other = await h.key('ws_hook_patch_other');
    expectErrorBody(await patch(hook.webhookId, { enabled: false }, other), 403, '/v1/webhooks', { fields: ['request'] });
    expect((await h.store.webhooks.get(hook.webhookId))?.status).toBe('active');
  });

  it('answers 403 to a read-only key', async () => {
    const hook = await register();
    const ro = await h.key('ws_hook_patch', { readOnly: true });
    expectErrorBody(await patch(hook.webhookId, { enabled: false }, ro), 403, '/v1/webhooks', { fields: ['request'] });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const hook = await register();
    const res = await call(h.app, 'PATCH', `/v1/webhooks/${hook.webhookId}`, { key, body: 'enabled=false', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectErrorBody(res, 415, '/v1/webhooks', { message: 'The request body must be application/json' });
  });
});
