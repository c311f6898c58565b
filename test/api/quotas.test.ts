import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, patchKb } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
let h: Harness;

beforeAll(async () => {
  // Global defaults: 2 knowledge bases, 3 sources each; one workspace gets its own below.
  h = await createHarness({ QUOTA_KNOWLEDGE_BASES: '2', QUOTA_SOURCES_PER_KNOWLEDGE_BASE: '3' });
});
afterAll(async () => h.close());

const stageKeys = async () => (await h.allKeys()).filter((k) => k.includes(':stage'));
const post = (key: string, name: string, parts = [textsField(['x'])]) =>
  call(h.app, 'POST', KB_PATH, { key, body: multipartForm([nameField(name), ...parts]) });

describe('workspace quotas', () => {
  it('creates knowledge bases up to the quota and answers 409 past it, creating nothing', async () => {
    const key = await h.key('ws-quota-kbs');
    expect((await post(key, 'one')).status).toBe(201);
    expect((await post(key, 'two')).status).toBe(201);
    const past = await post(key, 'three', [filePart('a.txt', 'file bytes')]);
    expectErrorBody(past, 409, KB_PATH, { message: 'This workspace has reached its quota of 2 knowledge bases; delete one or ask the operator for more' });
    expect((await h.store.kbs.list('ws-quota-kbs', 0, 10)).total).toBe(2);
    expect(await stageKeys()).toEqual([]);
  });

  it('adds sources up to the per-knowledge-base quota and answers 409 past it, adding nothing', async () => {
    const key = await h.key('ws-quota-sources');
    const kb = await createKb(h, key, 'Sources', [textsField(['a', 'b'])]);
    expect((await patchKb(h, key, kb.kbId, [textsField(['c'])])).status).toBe(200);
    const past = await patchKb(h, key, kb.kbId, [textsField(['d'])]);
    expectErrorBody(past, 409, KB_PATH, { message: 'any' });
    const fileAtFull = await patchKb(h, key, kb.kbId, [filePart('e.txt', 'file bytes')]);
    expectErrorBody(fileAtFull, 409, KB_PATH, { message: 'any' });
    expect(await stageKeys()).toEqual([]);
    const now = await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key });
    expect(now.body.files).toHaveLength(3);
    // A rename adds no source: the quota does not stand in its way.
    expect((await patchKb(h, key, kb.kbId, [nameField('Renamed')])).status).toBe(200);
    const tooMany = await post(key, 'Born too big', [textsField(['1', '2', '3', '4'])]);
    expectErrorBody(tooMany, 409, KB_PATH, { message: 'any' });
  });

  it('renames a knowledge base that holds more sources than a quota lowered since', async () => {
    const key = await h.key('ws-quota-lowered');
    const kb = await createKb(h, key, 'Before', [textsField(['a', 'b', 'c'])]);
    await h.store.quotas.set('ws-quota-lowered', { sourcesPerKnowledgeBase: 2 });
    const renamed = await patchKb(h, key, kb.kbId, [nameField('After')]);
    expect(renamed.status, renamed.text).toBe(200);
    expectErrorBody(await patchKb(h, key, kb.kbId, [textsField(['d'])]), 409, KB_PATH, { message: 'This knowledge base would have 4 sources, past its workspace\'s quota of 2 sources per knowledge base' });
  });

  it("applies a workspace's own quota over the global one, 0 meaning unlimited", async () => {
    const key = await h.key('ws-quota-own');
    await h.store.quotas.set('ws-quota-own', { knowledgeBases: 0, sourcesPerKnowledgeBase: 1 });
    for (const name of ['a', 'b', 'c']) expect((await post(key, name)).status).toBe(201);
    const kb = await createKb(h, key, 'd', [textsField(['only'])]);
    expectErrorBody(await patchKb(h, key, kb.kbId, [textsField(['second'])]), 409, KB_PATH, { message: 'any' });
  });

  it('frees an Idempotency-Key refused by a quota, so the same request runs once there is room', async () => {
    const key = await h.key('ws-quota-idem');
    const kb = await createKb(h, key, 'Idem', [textsField(['a', 'b', 'c'])]);
    const send = () => call(h.app, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, body: multipartForm([textsField(['d'])]), headers: { 'Idempotency-Key': 'q-1' } });
    expect((await send()).status).toBe(409);
    await h.store.quotas.set('ws-quota-idem', { sourcesPerKnowledgeBase: 4 });
    const retried = await send();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('shows the workspace its usage and quotas on GET /v1/usage', async () => {
    const key = await h.key('ws-quota-usage');
    await createKb(h, key, 'Used');
    const res = await call(h.app, 'GET', '/v1/usage', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      workspaceId: 'ws-quota-usage',
      knowledgeBases: { used: 1, limit: 2 },
      sourcesPerKnowledgeBase: { limit: 3 },
      storedBytes: { used: 0, limit: null },
      sourcesInFlight: { used: 0, limit: null },
      idempotencyKeys: { used: 0, limit: h.config.IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE },
      derivedBytes: { changeFeeds: 0, searchIndexes: 0, outboxes: 0 },
    });
  });
});
