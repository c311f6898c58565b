import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

let h: Harness;
let key: string;
let worker: RunningWorker;
let origin: Server;
let version = 1;
const answers: number[] = [];
const asked: (string | undefined)[] = [];

beforeAll(async () => {
  // The origin is on loopback, which URL sources may reach only with this switch (as in a local demo).
  h = await createHarness({ URL_FETCH_ALLOW_PRIVATE: 'true', URL_FETCH_HOST_SPACING_MS: '0' });
  key = await h.key('ws-conditional');
  origin = createServer((req, res) => {
    const etag = `"v${version}"`;
    asked.push(req.headers['if-none-match']);
    if (req.headers['if-none-match'] === etag) {
      answers.push(304);
      res.writeHead(304, { etag });
      return res.end();
    }
    answers.push(200);
    res.writeHead(200, { 'content-type': 'text/html', etag });
    res.end(`<html><head><title>Hours</title></head><body><p>Version ${version} of the opening hours.</p></body></html>`);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  worker = await startTestWorker(h);
});
afterAll(async () => {
  await worker.close();
  origin.close();
  await h.close();
});

describe('refreshing a page whose origin sends an ETag', () => {
  it('costs a 304 while the page is unchanged, and re-extracts once it changed', async () => {
    const url = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/hours`;
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url])));
    const first = await waitForDocument(h, key, kbId, docs[0]!);
    expect(first.text).toBe('Hours\n\nVersion 1 of the opening hours.');
    const refresh = () => call(h.app, 'POST', `/v1/knowledge-bases/${kbId}/documents/${docs[0]}/refresh`, { key });

    expect((await refresh()).status).toBe(202);
    const same = await waitForDocument(h, key, kbId, docs[0]!);
    expect(same).toMatchObject({ status: 'ready', text: 'Hours\n\nVersion 1 of the opening hours.' });
    expect(same).not.toHaveProperty('refreshedAt');
    expect(same).not.toHaveProperty('etag');
    expect(answers).toEqual([200, 304]);
    expect(asked).toEqual([undefined, '"v1"']);

    version = 2;
    expect((await refresh()).status).toBe(202);
    const changed = await waitForDocument(h, key, kbId, docs[0]!);
    expect(changed.text).toBe('Hours\n\nVersion 2 of the opening hours.');
    expect(answers).toEqual([200, 304, 200]);
  });
});
