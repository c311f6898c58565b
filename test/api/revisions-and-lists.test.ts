import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, nameField, textsField, urlsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, failSource, jobsOf, readySource } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-revisions');
});
afterAll(async () => h.close());

const kbPath = (kbId: string): string => `/v1/knowledge-bases/${kbId}`;
const patchWith = (kbId: string, headers: Record<string, string>, parts = [nameField('renamed')]) =>
  call(h.app, 'PATCH', kbPath(kbId), { key, headers, body: multipartForm(parts) });

describe('ETag and If-Match', () => {
  it('sends an ETag that changes with every change of the knowledge base or a source', async () => {
    const kb = await createKb(h, key, 'Revisions', [textsField(['a'])]);
    const first = await call(h.app, 'GET', kbPath(kb.kbId), { key });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"r\d+"$/);
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag')).toBe(etag);
    await readySource(h, kb.kbId, kb.files[0].documentId, 'a');
    const after = (await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag');
    expect(after).not.toBe(etag);
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 once it changed', async () => {
    const kb = await createKb(h, key, 'Conditional GET');
    const etag = (await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag')!;
    const same = await call(h.app, 'GET', kbPath(kb.kbId), { key, headers: { 'If-None-Match': etag } });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    await patchWith(kb.kbId, {});
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key, headers: { 'If-None-Match': etag } })).status).toBe(200);
  });

  it('applies a PATCH whose If-Match is current and returns the new ETag', async () => {
    const kb = await createKb(h, key, 'Current');
    const etag = (await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag')!;
    const res = await patchWith(kb.kbId, { 'If-Match': etag });
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('renamed');
    expect(res.headers.get('etag')).not.toBe(etag);
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('answers 412 to a PATCH with a stale If-Match and changes nothing', async () => {
    const kb = await createKb(h, key, 'Stale', [textsField(['x'])]);
    const stale = (await call(h.app, 'GET', kbPath(kb.kbId), { key })).headers.get('etag')!;
    await failSource(h, kb.kbId, kb.files[0].documentId);
    const before = (await call(h.app, 'GET', kbPath(kb.kbId), { key })).body;
    const jobs = (await jobsOf(h, kb.kbId)).length;
    const res = await patchWith(kb.kbId, { 'If-Match': stale }, [nameField('lost update'), textsField(['new'])]);
    expectErrorBody(res, 412, '/v1/knowledge-bases');
    expect((await call(h.app, 'GET', kbPath(kb.kbId), { key })).body).toEqual(before);
    expect((await jobsOf(h, kb.kbId)).length).toBe(jobs);
  });

  it('accepts If-Match: * for any revision and refuses a value that is no ETag of ours', async () => {
    const kb = await createKb(h, key, 'Star');
    expect((await patchWith(kb.kbId, { 'If-Match': '*' })).status).toBe(200);
    expectErrorBody(await patchWith(kb.kbId, { 'If-Match': '"something-else"' }), 412, '/v1/knowledge-bases');
  });

  it('refuses atomically when the knowledge base changes between the check and the commit', async () => {
    const kb = await createKb(h, key, 'Race');
    const meta = await h.store.kbs.getMeta(kb.kbId);
    await h.store.kbs.addSources({ workspaceId: 'ws-revisions', kbId: kb.kbId, name: 'first writer', sources: [], now: new Date().toISOString(), ifRev: meta!.rev });
    await expect(
      h.store.kbs.addSources({ workspaceId: 'ws-revisions', kbId: kb.kbId, name: 'second writer', sources: [], now: new Date().toISOString(), ifRev: meta!.rev }),
    ).rejects.toMatchObject({ code: 'precondition_failed' });
    expect((await h.store.kbs.getMeta(kb.kbId))?.name).toBe('first writer');
  });
});

describe('GET /v1/knowledge-bases/{kbId}/documents', () => {
  it('pages through the sources in order without their text', async () => {
    const kb = await createKb(h, key, 'Many', [textsField(['s0', 's1', 's2', 's3', 's4'])]);
    const res = await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents?page=1&size=2`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ page: 1, size: 2, totalCount: 5, totalPages: 3, hasNext: true, hasPrevious: true });
    expect(res.body.data.map((d: { content: string }) => d.content)).toEqual(['s2', 's3']);
    expect(res.body.data[0]).not.toHaveProperty('text');
  });

  it('filters by status and counts only the matching sources', async () => {
    const kb = await createKb(h, key, 'Filtered', [textsField(['r0', 'p1', 'r2', 'f3', 'r4'])]);
    const ids = kb.files.map((f: { documentId: string }) => f.documentId);
    for (const i of [0, 2, 4]) await readySource(h, kb.kbId, ids[i], `text ${i}`);
    await failSource(h, kb.kbId, ids[3]);
    const ready = await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents?status=ready&size=2`, { key });
    expect(ready.body).toMatchObject({ totalCount: 3, totalPages: 2, hasNext: true });
    expect(ready.body.data.map((d: { content: string }) => d.content)).toEqual(['r0', 'r2']);
    const next = await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents?status=ready&size=2&page=1`, { key });
    expect(next.body.data.map((d: { content: string }) => d.content)).toEqual(['r4']);
    const pending = await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents?status=pending`, { key });
    expect(pending.body.data.map((d: { content: string }) => d.content)).toEqual(['p1']);
  });

  it('answers 400 for an unknown status, 404 for an unknown knowledge base and 403 for another workspace', async () => {
    const kb = await createKb(h, key, 'Errors');
    expectErrorBody(await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents?status=done`, { key }), 400, '/v1/knowledge-bases', { fields: ['status'] });
    expectErrorBody(await call(h.app, 'GET', `${kbPath('kb_missing')}/documents`, { key }), 404, '/v1/knowledge-bases');
    const other = await h.key('ws-other-lists');
    expectErrorBody(await call(h.app, 'GET', `${kbPath(kb.kbId)}/documents`, { key: other }), 403, '/v1/knowledge-bases', { fields: ['request'] });
  });
});

describe('POST .../refresh', () => {
  const refresh = (kbId: string, documentId: string) =>
    call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/refresh`, { key });

  it('answers 409 while a URL source is pending and changes nothing', async () => {
    const kb = await createKb(h, key, 'Refresh busy', [urlsField(['https://example.com/page'])]);
    const jobs = (await jobsOf(h, kb.kbId)).length;
    expectErrorBody(await refresh(kb.kbId, kb.files[0].documentId), 409, '/v1/knowledge-bases', { message: 'any' });
    expect((await jobsOf(h, kb.kbId)).length).toBe(jobs);
  });

  it('answers 400 for a text source', async () => {
    const kb = await createKb(h, key, 'Refresh text', [textsField(['not a URL'])]);
    await readySource(h, kb.kbId, kb.files[0].documentId, 'not a URL');
    expectErrorBody(await refresh(kb.kbId, kb.files[0].documentId), 400, '/v1/knowledge-bases', { fields: ['documentId'] });
  });

  it('puts a failed URL source back to pending under a new run and queues it', async () => {
    const kb = await createKb(h, key, 'Refresh failed', [urlsField(['https://example.com/gone'])]);
    await failSource(h, kb.kbId, kb.files[0].documentId);
    const res = await refresh(kb.kbId, kb.files[0].documentId);
    expect(res.status, res.text).toBe(202);
    expect(res.body.status).toBe('pending');
    expect((await jobsOf(h, kb.kbId)).map((j) => j.id)).toContain(`${kb.kbId}.${kb.files[0].documentId}.r2`);
  });
});

describe('auto_refresh_hours', () => {
  const scheduler = (kbId: string) => h.queue.getJobScheduler(`refresh.${kbId}`);

  it('schedules a refresh of the URL sources per knowledge base, changes its period, and turns it off with 0', async () => {
    const kb = await createKb(h, key, 'Auto refresh', [{ name: 'auto_refresh_hours', value: '24' }]);
    expect(kb.autoRefreshHours).toBe(24);
    expect((await scheduler(kb.kbId))?.every).toBe(24 * 3_600_000);

    const weekly = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kb.kbId}`, { key, body: multipartForm([{ name: 'auto_refresh_hours', value: '168' }]) });
    expect(weekly.status, weekly.text).toBe(200);
    expect(weekly.body.autoRefreshHours).toBe(168);
    expect((await scheduler(kb.kbId))?.every).toBe(168 * 3_600_000);

    const off = await call(h.app, 'PATCH', `/v1/knowledge-bases/${kb.kbId}`, { key, body: multipartForm([{ name: 'auto_refresh_hours', value: '0' }]) });
    expect(off.body).not.toHaveProperty('autoRefreshHours');
    expect(await scheduler(kb.kbId)).toBeUndefined();
  });

  it('removes the schedule with the knowledge base', async () => {
    const kb = await createKb(h, key, 'Deleted with schedule', [{ name: 'auto_refresh_hours', value: '1' }]);
    expect(await scheduler(kb.kbId)).toBeDefined();
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key })).status).toBe(204);
    expect(await scheduler(kb.kbId)).toBeUndefined();
  });

  it.each([['721'], ['-1'], ['1.5'], ['daily']])('refuses auto_refresh_hours=%s with 400 naming the field', async (value) => {
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField('Bad period'), { name: 'auto_refresh_hours', value }]) });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['auto_refresh_hours'] });
  });
});
