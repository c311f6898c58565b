import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KbApiError, createKbClient, verifyWebhook, type KbClient } from '../../clients/typescript/src/index.js';
import { signDelivery } from '../../worker/webhooks/sign.js';
import type { RunningWorker } from '../../worker/main.js';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { startTestWorker } from '../helpers/worker-harness.js';

let served: ServedApi;
let worker: RunningWorker;
let client: KbClient;

// The API as start:api runs it, on loopback, with a worker on the same prefix.
beforeAll(async () => {
  served = await serveApi();
  worker = await startTestWorker(served.h);
  client = createKbClient({ baseUrl: `http://127.0.0.1:${served.port}`, apiKey: await served.h.key('ws-client') });
});
afterAll(async () => {
  await worker?.close();
  await served?.close();
});

describe('the typed client against the running API', () => {
  it('creates a knowledge base with a text and a file, waits until it settles, and reads the chunks', async () => {
    const kb = await client.createKnowledgeBase({
      name: 'Client',
      texts: [{ title: 'Hours', text: 'We open at nine.' }],
      files: [{ name: 'faq.md', data: new TextEncoder().encode('# FAQ\n\nReturns take 30 days.\n'), type: 'text/markdown' }],
    });
    expect(kb.files.map((f) => f.type)).toEqual(['text', 'file']);
    const polled: string[] = [];
    const settled = await client.waitUntilSettled(kb.kbId, { initialDelayMs: 50, timeoutMs: 30_000, onPoll: (k) => polled.push(k.status) });
    expect(settled.status).toBe('ready');
    expect(polled.at(-1)).toBe('ready');
    const chunks = await client.chunks(kb.kbId, settled.files[1]!.documentId);
    expect(chunks.data.map((c) => c.text).join(' ')).toContain('Returns take 30 days.');
  });

  it('replays a create sent twice with the same Idempotency-Key', async () => {
    const first = await client.createKnowledgeBase({ name: 'Once', texts: ['one'] }, { idempotencyKey: 'client-once-1' });
    const again = await client.createKnowledgeBase({ name: 'Once', texts: ['one'] }, { idempotencyKey: 'client-once-1' });
    expect(again.kbId).toBe(first.kbId);
  });

  it('throws KbApiError with the error body and the named missing resource', async () => {
    const err = await client.getKnowledgeBase('kb_nothing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KbApiError);
    expect((err as KbApiError).status).toBe(404);
    expect((err as KbApiError).body?.validationErrors?.kbId).toContain('kb_nothing');
  });

  it('exposes every typed route: page and size are numbers, the ETag header is readable', async () => {
    const { data, response } = await client.api.GET('/v1/knowledge-bases', { params: { query: { page: 0, size: 1 } } });
    expect(response.status).toBe(200);
    expect(data?.size).toBe(1);
    const kb = data!.data[0]!;
    const got = await client.api.GET('/v1/knowledge-bases/{kbId}', { params: { path: { kbId: kb.kbId } } });
    expect(got.response.headers.get('etag')).toMatch(/^"r\d+"$/);
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const next = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', type: 'source.ready' });
  const now = 1_800_000_000;

  it('accepts what the service signs and refuses a changed body, a wrong secret or an old timestamp', () => {
    const headers = { ...signDelivery(secret, 'evt_1', now, body) };
    expect(verifyWebhook(secret, headers, body, { nowSeconds: now })).toBe(true);
    expect(verifyWebhook(secret, headers, `${body} `, { nowSeconds: now })).toBe(false);
    expect(verifyWebhook(next, headers, body, { nowSeconds: now })).toBe(false);
    expect(verifyWebhook(secret, headers, body, { nowSeconds: now + 301 })).toBe(false);
  });

  it('accepts either of two secrets while a rotation is in its grace period', () => {
    const headers = signDelivery(secret, 'evt_2', now, body);
    expect(verifyWebhook([next, secret], new Headers({ ...headers }), body, { nowSeconds: now })).toBe(true);
  });
});
