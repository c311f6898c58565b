import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalog } from '../../bin/catalog-import.js';
import { createKbClient, unwrap, type KbClient, type KnowledgeBase, type paths } from '../../clients/typescript/src/index.js';
import type { RunningWorker } from '../../worker/main.js';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { SiteServer } from '../helpers/site-server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker-harness.js';

/*
 * Every route of the OpenAPI document, called through the typed client
 * against the API as `start:api` serves it, with a worker, a loopback site and
 * a loopback webhook receiver. The calls are a table typed from the generated
 * `paths`: a route added to the document is a type error here until it has a
 * call, and the last test fails at run time when the served document names a
 * route that no request reached.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = (typeof METHODS)[number];
type Call = () => Promise<void>;
/** One call per operation of each path of the generated types, and no call for an operation it lacks. */
type RouteCalls = { [P in keyof paths]: { [M in Method as [NonNullable<paths[P][M]>] extends [never] ? never : M]: Call } };

let served: ServedApi;
let worker: RunningWorker;
let site: SiteServer;
let receiver: Receiver;
let client: KbClient;
/** `METHOD /template` of every request the client sent, with the statuses answered. */
const reached = new Map<string, number[]>();
let templates: { route: string; method: string; pattern: RegExp; params: number }[] = [];
let doc: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

const ADMIN_TOKEN = 'typed-client-admin-token-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const WORKSPACE = 'ws_demo'; // examples/catalog.json's, so its QA issue is readable
let kb: KnowledgeBase;
const ids = { text: '', file: '', url: '', failed: '', siteId: '', webhookId: '', eventId: '', qaIssueId: '', keyId: '' };

/** The fetch the client is given: records which documented route each request reached. */
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  const { pathname } = new URL(request.url);
  const match = templates.filter((t) => t.method === request.method && t.pattern.test(pathname)).sort((a, b) => a.params - b.params)[0];
  const key = match?.route ?? `${request.method} ${pathname} (no route of the document)`;
  reached.set(key, [...(reached.get(key) ?? []), response.status]);
  return response;
};

beforeAll(async () => {
  served = await serveApi({ URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8', URL_FETCH_HOST_SPACING_MS: '0', CRAWL_MAX_PAGES: '5', ADMIN_TOKEN });
  worker = await startTestWorker(served.h);
  site = new SiteServer({
    pages: new Map([
      ['/docs/a.html', 'Alpha: the shop repairs bicycles on weekdays.'],
      ['/docs/b.html', 'Beta: tyres are replaced while you wait.'],
      ['/docs/c.html', 'Gamma: gift cards never expire.'],
    ]),
    sitemap: ['/docs/b.html', '/docs/c.html'],
    robots: [],
  });
  await site.start();
  receiver = await startReceiver();
  doc = (await (await served.wire.request('/openapi.json')).json()) as typeof doc;
  templates = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m): m is Method => (METHODS as readonly string[]).includes(m))
      .map((m) => ({
        route: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (path.match(/\{/g) ?? []).length,
      })),
  );
  const catalog = JSON.parse(readFileSync(new URL('../../examples/catalog.json', import.meta.url), 'utf8')) as { workspaceId: string; qaIssues: { qaIssueId: string }[] };
  expect(catalog.workspaceId).toBe(WORKSPACE);
  expect(await importCatalog(served.h.store.catalog, catalog)).toMatchObject({ ok: true });
  ids.qaIssueId = catalog.qaIssues[0]!.qaIssueId;
  client = createKbClient({ baseUrl: `http://127.0.0.1:${served.port}/`, apiKey: await served.h.key(WORKSPACE), fetch: recordingFetch });

  const created = await client.createKnowledgeBase({
    name: 'Every route',
    texts: [{ title: 'Hours', text: 'We open at nine on weekdays.', metadata: { team: 'front' } }],
    urls: [`${site.origin}/docs/a.html`, { url: `${site.origin}/docs/missing.html`, metadata: { team: 'web' } }],
    sites: [{ url: `${site.origin}/sitemap.xml`, sitemap: 'only', maxPages: 5 }],
    files: [{ name: 'faq.md', data: new TextEncoder().encode('# FAQ\n\nReturns take 30 days.\n'), type: 'text/markdown' }],
  });
  expect(created.sites?.map((s) => s.url)).toEqual([`${site.origin}/sitemap.xml`]);
  ids.siteId = created.sites![0]!.siteId;
  [ids.text, ids.url, ids.failed, ids.file] = created.files.map((f) => f.documentId) as [string, string, string, string];
  kb = await client.waitUntilSettled(created.kbId, { initialDelayMs: 50, timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await worker?.close();
  await served?.close();
  await site?.stop();
  await receiver?.close();
});

const kbPath = () => ({ path: { kbId: kb.kbId } });
const docPath = (documentId: string) => ({ path: { kbId: kb.kbId, documentId } });
const hookPath = () => ({ path: { webhookId: ids.webhookId } });

const calls: RouteCalls = {
  '/v1/knowledge-bases': {
    get: async () => {
      const page = await client.listKnowledgeBases(0, 10);
      expect(page.data.map((k) => k.kbId)).toContain(kb.kbId);
    },
    post: async () => {
      const again = await client.createKnowledgeBase({ name: 'Chunked small', texts: ['One short text.'], chunkMaxTokens: 128, chunkOverlapTokens: 16 });
      expect(again).toMatchObject({ chunkMaxTokens: 128, chunkOverlapTokens: 16 });
    },
  },
  '/v1/knowledge-bases/{kbId}': {
    get: async () => {
      const { data, response } = await client.api.GET('/v1/knowledge-bases/{kbId}', { params: kbPath() });
      expect(response.headers.get('etag')).toMatch(/^"r\d+"$/);
      expect(data?.status).toBe('partial');
      expect(data?.sites?.[0]).toMatchObject({ siteId: ids.siteId, status: 'done', pagesAdded: 2 });
    },
    patch: async () => {
      const etag = (await client.api.GET('/v1/knowledge-bases/{kbId}', { params: kbPath() })).response.headers.get('etag')!;
      const patched = await client.updateKnowledgeBase(kb.kbId, { name: 'Every route (renamed)', autoRefreshHours: 24 }, { ifMatch: etag });
      expect(patched).toMatchObject({ name: 'Every route (renamed)', autoRefreshHours: 24 });
    },
    delete: async () => {
      const gone = await client.createKnowledgeBase({ name: 'To delete', texts: ['Short-lived.'] });
      const { changesCursor } = await client.listChunks(gone.kbId);
      expect(unwrap(await client.api.DELETE('/v1/knowledge-bases/{kbId}', { params: { path: { kbId: gone.kbId } } }))).toBeUndefined();
      // Its feed ends with knowledge_base.deleted, where followChanges stops.
      const pages = [];
      for await (const page of client.followChanges(gone.kbId, { after: changesCursor, follow: false })) pages.push(page);
      expect(pages.at(-1)).toMatchObject({ deleted: true, events: expect.arrayContaining([{ type: 'knowledge_base.deleted', kbId: gone.kbId }]) });
    },
  },
  '/v1/knowledge-bases/{kbId}/documents': {
    get: async () => {
      const page = unwrap(await client.api.GET('/v1/knowledge-bases/{kbId}/documents', { params: { ...kbPath(), query: { status: 'failed', page: 0, size: 10 } } }));
      expect(page.data.map((d) => d.documentId)).toEqual([ids.failed]);
    },
  },
  '/v1/knowledge-bases/{kbId}/documents/{documentId}': {
    get: async () => {
      const document = unwrap(await client.api.GET('/v1/knowledge-bases/{kbId}/documents/{documentId}', { params: { ...docPath(ids.file), query: { format: 'markdown' } } }));
      expect(document).toMatchObject({ status: 'ready', markdown: expect.stringContaining('# FAQ') });
    },
    patch: async () => {
      const patched = unwrap(await client.api.PATCH('/v1/knowledge-bases/{kbId}/documents/{documentId}', { params: docPath(ids.text), body: { metadata: { team: 'desk', year: 2026 } } }));
      expect(patched.metadata).toEqual({ team: 'desk', year: 2026 });
    },
    delete: async () => {
      const added = await client.addSources(kb.kbId, { texts: ['A text to delete.'] });
      const documentId = added.files.at(-1)!.documentId;
      expect(unwrap(await client.api.DELETE('/v1/knowledge-bases/{kbId}/documents/{documentId}', { params: docPath(documentId) }))).toBeUndefined();
    },
    put: async () => {
      const added = await client.addSources(kb.kbId, { texts: ['The first version of a text.'] });
      const documentId = added.files.at(-1)!.documentId;
      const readDoc = async () => unwrap(await client.api.GET('/v1/knowledge-bases/{kbId}/documents/{documentId}', { params: { ...docPath(documentId), query: {} } }));
      await waitFor('the text ready', async () => (await readDoc()).status === 'ready');
      const replaced = unwrap(await client.api.PUT('/v1/knowledge-bases/{kbId}/documents/{documentId}', { params: docPath(documentId), body: { knowledge_base_texts: ['The second version of a text.'] } as never }));
      expect(replaced).toMatchObject({ documentId, status: 'pending' });
      await waitFor('the new version ready', async () => (await readDoc()).text === 'The second version of a text.');
    },
  },
  '/v1/knowledge-bases/{kbId}/documents/{documentId}/chunks': {
    get: async () => {
      const page = await client.chunks(kb.kbId, ids.file);
      expect(page.data.map((c) => c.text).join(' ')).toContain('Returns take 30 days.');
    },
  },
  '/v1/knowledge-bases/{kbId}/chunks': {
    get: async () => {
      const listing = await client.listChunks(kb.kbId, undefined, 100);
      expect(listing.data.map((c) => c.documentId)).toEqual(expect.arrayContaining([ids.text, ids.file, ids.url]));
    },
  },
  '/v1/knowledge-bases/{kbId}/changes': {
    get: async () => {
      // From no cursor: every chunk as chunk.upserted on a reset page, then the feed to its end.
      const held = new Map<string, string>();
      let cursor: string | undefined;
      for await (const page of client.followChanges(kb.kbId, { follow: false, size: 2 })) {
        if (page.reset) held.clear();
        for (const e of page.events) if (e.type === 'chunk.upserted') held.set(e.chunk.id, e.chunk.text);
        else if (e.type === 'chunk.deleted') held.delete(e.chunkId);
        cursor = page.cursor ?? cursor;
      }
      const listing = await client.listChunks(kb.kbId, undefined, 100);
      expect(new Map(listing.data.map((c) => [c.id, c.text]))).toEqual(held);
      expect((await client.changes(kb.kbId, cursor)).data).toEqual([]);
    },
  },
  '/v1/knowledge-bases/{kbId}/search': {
    post: async () => {
      const result = await client.search(kb.kbId, { query: 'tyres replaced', topK: 3 });
      expect(result.data[0]?.chunk.text).toContain('tyres are replaced');
    },
  },
  '/v1/knowledge-bases/{kbId}/documents/{documentId}/retry': {
    post: async () => {
      const retried = unwrap(await client.api.POST('/v1/knowledge-bases/{kbId}/documents/{documentId}/retry', { params: docPath(ids.failed) }));
      expect(retried.documentId).toBe(ids.failed);
    },
  },
  '/v1/knowledge-bases/{kbId}/documents/{documentId}/refresh': {
    post: async () => {
      const refreshed = unwrap(await client.api.POST('/v1/knowledge-bases/{kbId}/documents/{documentId}/refresh', { params: docPath(ids.url) }));
      expect(refreshed.documentId).toBe(ids.url);
    },
  },
  '/v1/knowledge-bases/{kbId}/sites/{siteId}': {
    get: async () => {
      const got = unwrap(await client.api.GET('/v1/knowledge-bases/{kbId}/sites/{siteId}', { params: { path: { kbId: kb.kbId, siteId: ids.siteId } } }));
      expect(got).toMatchObject({ status: 'done', pagesFound: 2, pagesAdded: 2 });
    },
    delete: async () => {
      const added = await client.addSites(kb.kbId, [{ url: `${site.origin}/docs/c.html`, maxDepth: 0, sitemap: 'off' }]);
      const siteId = added.sites!.at(-1)!.siteId;
      expect(unwrap(await client.api.DELETE('/v1/knowledge-bases/{kbId}/sites/{siteId}', { params: { path: { kbId: kb.kbId, siteId } } }))).toBeUndefined();
    },
  },
  '/v1/knowledge-bases/{kbId}/sites/{siteId}/refresh': {
    post: async () => {
      const refreshed = unwrap(await client.api.POST('/v1/knowledge-bases/{kbId}/sites/{siteId}/refresh', { params: { path: { kbId: kb.kbId, siteId: ids.siteId } } }));
      expect(refreshed.status).toBe('discovering');
    },
  },
  '/v1/agents': {
    get: async () => {
      const page = unwrap(await client.api.GET('/v1/agents', { params: { query: { page: 0, size: 10 } } }));
      expect(page.totalCount).toBeGreaterThan(0);
    },
  },
  '/v1/qa-issues/{qaIssueId}': {
    get: async () => {
      const issue = unwrap(await client.api.GET('/v1/qa-issues/{qaIssueId}', { params: { path: { qaIssueId: ids.qaIssueId } } }));
      expect(issue.qaIssueId).toBe(ids.qaIssueId);
    },
  },
  '/v1/webhooks': {
    post: async () => {
      const created = unwrap(await client.api.POST('/v1/webhooks', { body: { url: `${receiver.origin}/hook`, events: ['source.ready'] } }));
      receiver.on('/hook', { secret: created.secret, statuses: [200] });
      ids.webhookId = created.webhookId;
    },
    get: async () => {
      const page = unwrap(await client.api.GET('/v1/webhooks', {}));
      expect(page.data.map((w) => w.webhookId)).toContain(ids.webhookId);
    },
  },
  '/v1/webhooks/{webhookId}': {
    get: async () => {
      expect(unwrap(await client.api.GET('/v1/webhooks/{webhookId}', { params: hookPath() })).url).toBe(`${receiver.origin}/hook`);
    },
    delete: async () => {
      const spare = unwrap(await client.api.POST('/v1/webhooks', { body: { url: `${receiver.origin}/spare`, events: ['source.failed'] } }));
      expect(unwrap(await client.api.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: spare.webhookId } } }))).toBeUndefined();
    },
    patch: async () => {
      const spare = unwrap(await client.api.POST('/v1/webhooks', { body: { url: `${receiver.origin}/spare`, events: ['source.failed'] } }));
      const path = { path: { webhookId: spare.webhookId } };
      const patched = unwrap(await client.api.PATCH('/v1/webhooks/{webhookId}', { params: path, body: { events: ['source.ready', 'source.failed'], enabled: false } }));
      expect(patched).toMatchObject({ events: ['source.ready', 'source.failed'], status: 'disabled' });
      unwrap(await client.api.DELETE('/v1/webhooks/{webhookId}', { params: path }));
    },
  },
  '/v1/webhooks/{webhookId}/test': {
    post: async () => {
      const queued = unwrap(await client.api.POST('/v1/webhooks/{webhookId}/test', { params: hookPath() }));
      ids.eventId = queued.eventId;
      await waitFor('the test event at the receiver', () => receiver.at('/hook').some((r) => r.verified?.id === queued.eventId));
    },
  },
  '/v1/webhooks/{webhookId}/deliveries': {
    get: async () => {
      // The test event's delivery, among those of the knowledge base's sources that became ready meanwhile.
      const delivery = await waitFor('the test delivery recorded', async () => {
        const p = unwrap(await client.api.GET('/v1/webhooks/{webhookId}/deliveries', { params: hookPath() }));
        return p.data.find((d) => d.eventId === ids.eventId);
      });
      expect(delivery).toMatchObject({ type: 'webhook.test', statusCode: 200 });
    },
  },
  '/v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver': {
    post: async () => {
      unwrap(await client.api.POST('/v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver', { params: { path: { webhookId: ids.webhookId, eventId: ids.eventId } } }));
      await waitFor('the redelivery', () => receiver.at('/hook').filter((r) => r.verified?.id === ids.eventId).length === 2);
    },
  },
  '/v1/webhooks/{webhookId}/rotate-secret': {
    post: async () => {
      const rotated = unwrap(await client.api.POST('/v1/webhooks/{webhookId}/rotate-secret', { params: hookPath() }));
      expect(rotated.secret).toMatch(/^whsec_/);
    },
  },
  '/v1/webhooks/{webhookId}/enable': {
    post: async () => {
      expect(unwrap(await client.api.POST('/v1/webhooks/{webhookId}/enable', { params: hookPath() })).webhookId).toBe(ids.webhookId);
    },
  },
  '/v1/admin/keys': {
    post: async () => {
      const created = unwrap(await client.api.POST('/v1/admin/keys', { body: { workspaceId: 'ws_typed_admin', name: 'typed', readOnly: true }, headers: admin }));
      expect(created).toMatchObject({ workspaceId: 'ws_typed_admin', readOnly: true, revokedAt: null });
      expect(created.key).toMatch(/^kbi_/);
      ids.keyId = created.keyId;
    },
    get: async () => {
      const list = unwrap(await client.api.GET('/v1/admin/keys', { params: { query: { workspaceId: 'ws_typed_admin' } }, headers: admin }));
      expect(list.data.map((k) => k.keyId)).toEqual([ids.keyId]);
    },
  },
  '/v1/admin/keys/{keyId}': {
    get: async () => {
      expect(unwrap(await client.api.GET('/v1/admin/keys/{keyId}', { params: { path: { keyId: ids.keyId } }, headers: admin })).name).toBe('typed');
    },
    delete: async () => {
      expect(unwrap(await client.api.DELETE('/v1/admin/keys/{keyId}', { params: { path: { keyId: ids.keyId } }, headers: admin }))).toBeUndefined();
    },
  },
  '/v1/usage': {
    get: async () => {
      const usage = unwrap(await client.api.GET('/v1/usage', {}));
      expect(usage.workspaceId).toBe(WORKSPACE);
    },
  },
};

describe('the typed client on every route of the OpenAPI document', () => {
  for (const [path, ops] of Object.entries(calls) as [string, Record<string, Call>][]) {
    for (const [method, call] of Object.entries(ops)) it(`${method.toUpperCase()} ${path}`, call, 30_000);
  }

  it('reached every route the served document declares, each with an answer it documents', () => {
    const declared = templates.map((t) => t.route).sort();
    const called = [...reached.keys()].sort();
    // A route in the document that no call reached: add its call to the table above.
    expect(declared.filter((r) => !reached.has(r)), 'routes of the document no call reached').toEqual([]);
    expect(called.filter((r) => !declared.includes(r)), 'requests that reached no route of the document').toEqual([]);
    for (const [route, statuses] of reached) {
      const [method, path] = route.split(' ') as [string, string];
      const documented = Object.keys(doc.paths[path]![method.toLowerCase()]!.responses);
      expect(statuses.filter((s) => !documented.includes(String(s))), `${route} answered undocumented statuses`).toEqual([]);
    }
  });
});
