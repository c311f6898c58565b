import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';
import { refreshKnowledgeBase } from '../../worker/jobs/refresh-kb.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';

let h: Harness;
let key: string;
let worker: RunningWorker;
let origin: Server;
let page = '<html><head><title>Hours</title></head><body><p>We are open 9 to 5.</p></body></html>';
let fetches = 0;

beforeAll(async () => {
  // The origin is on loopback, which URL sources may reach only with this switch (as in a local demo).
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true' });
  key = await h.key('ws-refresh');
  origin = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  origin.close();
  await h.close();
});

const url = (): string => `http://127.0.0.1:${(origin.address() as AddressInfo).port}/hours`;
const refresh = (kbId: string, documentId: string) =>
  call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${documentId}/refresh`, { key });

describe('refreshing a URL source', () => {
  it('keeps the text and moves only checkedAt when the page is unchanged, and re-extracts when it changed', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url()])));
    const first = await waitForDocument(h, key, kbId, docs[0]!);
    expect(first).toMatchObject({ status: 'ready', text: 'Hours\n\nWe are open 9 to 5.' });
    const firstChecked = (first as { checkedAt?: string }).checkedAt!;
    expect(firstChecked).toBeTruthy();

    const accepted = await refresh(kbId, docs[0]!);
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body.status).toBe('pending');
    const same = await waitForDocument(h, key, kbId, docs[0]!);
    expect(same).toMatchObject({ status: 'ready', text: 'Hours\n\nWe are open 9 to 5.' });
    expect((same as { checkedAt?: string }).checkedAt! > firstChecked).toBe(true);
    expect(same).not.toHaveProperty('refreshedAt');
    expect(fetches).toBe(2);

    page = '<html><head><title>Hours</title></head><body><p>We are open 8 to 6.</p></body></html>';
    expect((await refresh(kbId, docs[0]!)).status).toBe(202);
    const changed = await waitForDocument(h, key, kbId, docs[0]!);
    expect(changed).toMatchObject({ status: 'ready', text: 'Hours\n\nWe are open 8 to 6.' });
    expect((changed as { refreshedAt?: string }).refreshedAt).toBeTruthy();
    const kb = (await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).body;
    expect(kb.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
  });

  it('refreshes every ready or failed URL source of a knowledge base when its schedule fires, and nothing else', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_urls', JSON.stringify([`${url()}?scheduled`]));
      f.set('knowledge_base_texts', JSON.stringify(['a text source is never refreshed']));
      f.set('auto_refresh_hours', '12');
    });
    await waitForDocument(h, key, kbId, docs[0]!);
    await waitForDocument(h, key, kbId, docs[1]!);
    const before = fetches;
    const queued = await refreshKnowledgeBase({ kbs: h.store.kbs, queue: bullSourceQueue(h.queue, 2, 50), logger: createLogger('silent') }, { workspaceId: 'ws-refresh', kbId });
    expect(queued).toBe(1);
    // Texts come first, then URLs: docs[1] is the URL source.
    const again = await waitForDocument(h, key, kbId, docs[1]!);
    expect(again.status).toBe('ready');
    expect(fetches).toBe(before + 1);
    const text = await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}`, { key });
    expect(text.body.status).toBe('ready');
  });

  it('drops the schedule of a knowledge base that is gone', async () => {
    const { kbId } = await createKbWith(h, key, (f) => f.set('auto_refresh_hours', '6'));
    await h.store.kbs.delete('ws-refresh', kbId);
    expect(await h.queue.getJobScheduler(`refresh.${kbId}`)).toBeDefined();
    const queued = await refreshKnowledgeBase({ kbs: h.store.kbs, queue: bullSourceQueue(h.queue, 2, 50), logger: createLogger('silent') }, { workspaceId: 'ws-refresh', kbId });
    expect(queued).toBe(0);
    expect(await h.queue.getJobScheduler(`refresh.${kbId}`)).toBeUndefined();
  });
});
