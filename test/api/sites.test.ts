import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody, type ApiResponse, type ErrorExpectation } from './support.js';

const expectError = (res: ApiResponse, status: number, exp: ErrorExpectation = {}) => expectErrorBody(res, status, '/v1/knowledge-bases', exp);

let h: Harness;
let key: string;
let otherKey: string;

beforeAll(async () => {
  h = await createHarness({ CRAWL_MAX_PAGES: '50' });
  key = await h.key('ws-site-form');
  otherKey = await h.key('ws-site-other');
});
afterAll(() => h.close());

const post = (sites: unknown, k = key) => {
  const form = new FormData();
  form.set('knowledge_base_name', 'sites');
  form.set('knowledge_base_sites', typeof sites === 'string' ? sites : JSON.stringify(sites));
  return call(h.app, 'POST', '/v1/knowledge-bases', { key: k, body: form });
};

describe('knowledge_base_sites', () => {
  it.each([
    ['no url', [{ maxPages: 3 }], /url/],
    ['an unknown key', [{ url: 'https://example.com/', depth: 2 }], /unknown field "depth"; did you mean "maxDepth"\?/],
    ['maxPages over CRAWL_MAX_PAGES', [{ url: 'https://example.com/', maxPages: 51 }], /at most 50/],
    ['a sitemap mode it does not know', [{ url: 'https://example.com/', sitemap: 'always' }], /auto, only, off/],
    ['a URL with credentials', [{ url: 'https://u:p@example.com/' }], /url/],
    ['a glob that is not a path', [{ url: 'https://example.com/', exclude: ['docs'] }], /path glob/],
  ])('returns 400 naming the element for %s, and creates nothing', async (_what, sites, message) => {
    const before = await h.allKeys();
    const res = await post(sites);
    expectError(res, 400, { message: 'any', fields: ['knowledge_base_sites[0]'] });
    expect((res.body as { validationErrors: Record<string, string> }).validationErrors['knowledge_base_sites[0]']).toMatch(message);
    expect((await h.allKeys()).filter((k) => !before.includes(k) && !k.includes(':{rate')).filter((k) => k.includes('{kb:'))).toEqual([]);
  });

  it('returns 400 for a field that is not a JSON array', async () => {
    expectError(await post('{"url":"https://example.com/"}'), 400, { message: 'any', fields: ['knowledge_base_sites'] });
  });

  it('answers the site with its defaults (maxPages at most CRAWL_MAX_PAGES), discovering, and keeps the knowledge base in progress', async () => {
    const res = await post([{ url: 'https://example.com/docs/' }]);
    expect(res.status, res.text).toBe(201);
    const body = res.body as { kbId: string; status: string; sites: Record<string, unknown>[] };
    expect(body.status).toBe('in_progress');
    expect(body.sites).toEqual([
      expect.objectContaining({ url: 'https://example.com/docs/', maxPages: 50, maxDepth: 3, include: [], exclude: [], sitemap: 'auto', status: 'discovering', pagesFound: 0, pagesAdded: 0, truncated: false }),
    ]);
    const siteId = body.sites[0]!.siteId as string;
    expect(siteId).toMatch(/^site_[A-Za-z0-9_-]{21}$/);
    const job = await h.queue.getJob(`${body.kbId}.${siteId}.d1`);
    expect(job?.name).toBe('site');
    const mine = await call(h.app, 'GET', `/v1/knowledge-bases/${body.kbId}/sites/${siteId}`, { key });
    expect(mine.status).toBe(200);
    expectError(await call(h.app, 'GET', `/v1/knowledge-bases/${body.kbId}/sites/${siteId}`, { key: otherKey }), 403, { message: 'any' });
    const missing = await call(h.app, 'GET', `/v1/knowledge-bases/${body.kbId}/sites/site_nope`, { key });
    expectError(missing, 404);
    expect((missing.body as { validationErrors?: Record<string, string> }).validationErrors).toEqual({
      siteId: `Site site_nope was not found in knowledge base ${body.kbId}`,
    });
    const gone = await call(h.app, 'DELETE', `/v1/knowledge-bases/${body.kbId}/sites/site_nope`, { key });
    expectError(gone, 404);
    expect((gone.body as { validationErrors?: Record<string, string> }).validationErrors).toEqual({
      siteId: `Site site_nope was not found in knowledge base ${body.kbId}`,
    });
  });

  it('refuses more than 20 sites in one knowledge base', async () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ url: `https://example.com/${i}` }));
    expectError(await post(many), 400, { message: 'any', fields: ['knowledge_base_sites'] });
  });

  it('leaves no key of a site behind when its knowledge base is deleted', async () => {
    const res = await post([{ url: 'https://example.com/a/' }, { url: 'https://example.com/b/' }]);
    const kbId = (res.body as { kbId: string }).kbId;
    expect((await h.allKeys()).filter((k) => k.includes(`{kb:${kbId}}:site`)).length).toBeGreaterThan(0);
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kbId}`, { key })).status).toBe(204);
    // Only its change feed stays, holding one knowledge_base.deleted until retention ends, and its
    // outbox, holding that event's knowledge_base.changed until the relay takes it (none runs here), expiring.
    const left = (await h.allKeys()).filter((k) => k.includes(`{kb:${kbId}}`) && !k.includes(`{kb:${kbId}}:changes`));
    expect(left.sort()).toEqual([h.store.keys.outbox(kbId), h.store.keys.outboxInfo(kbId)].sort());
    for (const k of left) expect(await h.redis.ttl(k)).toBeGreaterThan(0);
  });

  it('accepts webhooks for site.discovered', async () => {
    const res = await call(h.app, 'POST', '/v1/webhooks', {
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/hooks', events: ['site.discovered'] }),
    });
    expect(res.status, res.text).toBe(201);
    expect((res.body as { events: string[] }).events).toEqual(['site.discovered']);
  });
});

describe('the OpenAPI document', () => {
  it('describes knowledge_base_sites on POST and PATCH and the Site schema', async () => {
    const doc = (await call(h.app, 'GET', '/openapi.json')).body as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.KnowledgeBaseUpdateForm!.properties)).toContain('knowledge_base_sites');
    expect(Object.keys(schemas.KnowledgeBaseCreateForm!.properties)).toContain('knowledge_base_sites');
    expect(Object.keys(schemas.Site!.properties)).toEqual(expect.arrayContaining(['siteId', 'status', 'pagesFound', 'pagesAdded', 'truncated']));
    expect(Object.keys(schemas.KnowledgeBase!.properties)).toContain('sites');
  });
});

describe('the workspace budget of pages in discovery', () => {
  const caps = { pages: 100, discoveries: 10 };

  it('admits at most CRAWL_WORKSPACE_MAX_DISCOVERIES holders at once, whatever their pages', async () => {
    const sites = h.store.sites;
    const two = { pages: 1000, discoveries: 2 };
    expect(await sites.reserveBudget('ws-two', 'job-a', 10, two)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-two', 'job-b', 10, two)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-two', 'job-c', 10, two)).toEqual({ ok: false, holders: expect.arrayContaining(['job-a', 'job-b']) });
    // A holder asking again at its next step keeps its place.
    expect(await sites.reserveBudget('ws-two', 'job-a', 10, two)).toEqual({ ok: true });
    await sites.releaseBudget('ws-two', 'job-a');
    expect(await sites.reserveBudget('ws-two', 'job-c', 10, two)).toEqual({ ok: true });
    for (const holder of ['job-b', 'job-c']) await sites.releaseBudget('ws-two', holder);
  });

  it('gives pages while they fit under the cap, none past it, and takes them back', async () => {
    const sites = h.store.sites;
    expect(await sites.reserveBudget('ws-budget', 'job-a', 60, caps)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-budget', 'job-b', 50, caps)).toEqual({ ok: false, holders: ['job-a'] });
    expect(await sites.reserveBudget('ws-budget-other', 'job-c', 100, caps)).toEqual({ ok: true });
    // A holder taking its pages again (its job run again) replaces its own entry.
    expect(await sites.reserveBudget('ws-budget', 'job-a', 60, caps)).toEqual({ ok: true });
    await sites.releaseBudget('ws-budget', 'job-a');
    expect(await sites.reserveBudget('ws-budget', 'job-b', 100, caps)).toEqual({ ok: true });
    await sites.releaseBudget('ws-budget', 'job-b');
    await sites.releaseBudget('ws-budget-other', 'job-c');
    expect((await h.allKeys()).filter((k) => k.includes('{crawl:'))).toEqual([]);
  });

  it('drops the pages of a holder whose job is gone or finished, and keeps those of a job running or waiting for its next step', async () => {
    const sites = h.store.sites;
    const job = (holder: string) => `${h.prefix}:test-jobs:${holder}`;
    await h.redis.hset(job('job-running'), 'timestamp', String(Date.now()));
    await h.redis.hset(job('job-done'), 'timestamp', String(Date.now()), 'finishedOn', String(Date.now()));
    expect(await sites.reserveBudget('ws-crash', 'job-done', 0, caps)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-crash', 'job-running', 40, caps)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-crash', 'job-crashed', 60, caps)).toEqual({ ok: true });
    const full = await sites.reserveBudget('ws-crash', 'job-next', 50, caps);
    expect(full).toEqual({ ok: false, holders: expect.arrayContaining(['job-running', 'job-crashed', 'job-done']) });
    expect((await sites.dropDeadHolders('ws-crash', full.ok ? [] : full.holders, job)).sort()).toEqual(['job-crashed', 'job-done']);
    expect(await sites.reserveBudget('ws-crash', 'job-next', 50, caps)).toEqual({ ok: true });
    expect(await sites.reserveBudget('ws-crash', 'job-more', 20, caps)).toEqual({ ok: false, holders: expect.arrayContaining(['job-running', 'job-next']) });
    for (const holder of ['job-running', 'job-next']) await sites.releaseBudget('ws-crash', holder);
    // One key a command: on a cluster the two job keys sit on different slots.
    for (const holder of ['job-running', 'job-done']) await h.redis.del(job(holder));
  });
});
