import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { urlsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, failSource, jobsOf } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ REFRESH_COOLDOWN_SECONDS: '60' });
  key = await h.key('ws-cooldown');
});
afterAll(() => h.close());

/** Marks a URL source ready as the worker does after a fetch that ended `secondsAgo` ago. */
async function readyFetchedAgo(kbId: string, documentId: string, secondsAgo: number): Promise<void> {
  const at = new Date(Date.now() - secondsAgo * 1000).toISOString();
  const ref = { kbId, documentId, run: 1 };
  expect((await h.store.kbs.startSourceReport(ref, { now: at })).result).toBe('ok');
  const outcome = { status: 'ready' as const, text: 'page text', truncated: false, checkedAt: at, sha256: 'a'.repeat(64) };
  expect((await h.store.kbs.finishSourceReport(ref, outcome, { now: at })).result).toBe('ok');
}

const refresh = (kbId: string, documentId: string) => call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/refresh`, { key });

describe('POST .../refresh cooldown (REFRESH_COOLDOWN_SECONDS)', () => {
  it('answers 429 with the seconds left in Retry-After for a page fetched 10 s ago, and changes nothing', async () => {
    const kb = await createKb(h, key, 'Just fetched', [urlsField(['https://example.com/a'])]);
    const doc = kb.files[0].documentId;
    await readyFetchedAgo(kb.kbId, doc, 10);
    const jobsBefore = (await jobsOf(h, kb.kbId)).map((j) => j.id);
    const res = await refresh(kb.kbId, doc);
    expectErrorBody(res, 429, '/v1/knowledge-bases', { message: 'any' });
    expect(res.body.message).toMatch(/fetched less than 60 s ago; refresh it again after 5\d s/);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(49);
    expect(retryAfter).toBeLessThanOrEqual(50);
    const source = await h.store.kbs.getSource(kb.kbId, doc);
    expect(source).toMatchObject({ status: 'ready', run: 1 });
    expect((await jobsOf(h, kb.kbId)).map((j) => j.id)).toEqual(jobsBefore);
  });

  it('refreshes a page fetched just over the cooldown ago', async () => {
    const kb = await createKb(h, key, 'Fetched a while ago', [urlsField(['https://example.com/b'])]);
    const doc = kb.files[0].documentId;
    await readyFetchedAgo(kb.kbId, doc, 61);
    const res = await refresh(kb.kbId, doc);
    expect(res.status, res.text).toBe(202);
    expect(res.body.status).toBe('pending');
  });

  it('does not hold back a failed source, whose refresh is a retry', async () => {
    const kb = await createKb(h, key, 'Failed just now', [urlsField(['https://example.com/c'])]);
    await failSource(h, kb.kbId, kb.files[0].documentId);
    expect((await refresh(kb.kbId, kb.files[0].documentId)).status).toBe(202);
  });

  it('answers 404 for a missing document before any cooldown', async () => {
    const kb = await createKb(h, key, 'Missing doc', [urlsField(['https://example.com/d'])]);
    expectErrorBody(await refresh(kb.kbId, 'doc_missing'), 404, '/v1/knowledge-bases', { message: 'any' });
  });
});
