import net, { type LookupFunction } from 'node:net';
import { UnrecoverableError, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/runtime/logger.js';
import type { ConnectTarget } from '../../worker/fetch/guarded-connector.js';
import { createDeliveryProcessor } from '../../worker/webhooks/deliver.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let h: Harness;
let receiver: Receiver;
let receiverPort: number;

beforeAll(async () => {
  h = await createHarness();
  receiver = await startReceiver();
  receiverPort = Number(new URL(receiver.origin).port);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

/**
 * DNS and connect stubs: `hooks.example.test` resolves to `address`; a
 * connection is carried to the loopback receiver only when the guard let
 * through 127.0.0.1, and any other connection attempt is recorded and
 * refused, so no packet leaves loopback.
 */
function stubs(address: string) {
  const connects: ConnectTarget[] = [];
  const lookup: LookupFunction = (_host, _opts, callback) => callback(null, [{ address, family: net.isIP(address) }]);
  const connect = (target: ConnectTarget) => {
    connects.push(target);
    if (target.address !== '127.0.0.1') throw new Error(`forbidden connect attempted to ${target.address}`);
    return net.connect({ host: '127.0.0.1', port: receiverPort });
  };
  return { lookup, connect, connects };
}

async function setUp(path: string, workspaceId: string) {
  const hook = await h.store.webhooks.create(workspaceId, { url: `http://hooks.example.test:${receiverPort}${path}`, events: ['source.ready'] }, 20, new Date().toISOString());
  receiver.on(path, { secret: hook.secret, statuses: [200] });
  const event = { id: `evt_${path.slice(1)}`, type: 'source.ready' as const, createdAt: new Date().toISOString(), data: { kbId: 'kb_1', documentId: 'doc_1', status: 'ready' as const } };
  await h.store.webhooks.saveEvent(workspaceId, event);
  const job = { id: 'job-1', data: { workspaceId, webhookId: hook.webhookId, eventId: event.id }, attemptsMade: 0, opts: { attempts: 8 } } as unknown as Job;
  return { hook, job };
}

describe('the delivery address check after DNS', () => {
  it.each([
    ['a private address', '10.1.2.3', false],
    ['loopback without URL_FETCH_ALLOW_PRIVATE', '127.0.0.1', false],
    ['the metadata address even with URL_FETCH_ALLOW_PRIVATE', '169.254.169.254', true],
  ])('refuses a name that resolves to %s, without connecting and without a retry', async (label, address, allowPrivate) => {
    const path = `/dns-${address.replace(/\./g, '-')}`;
    const { hook, job } = await setUp(path, `ws_dns_${address.replace(/\./g, '_')}`);
    const s = stubs(address);
    const deliver = createDeliveryProcessor({ webhooks: h.store.webhooks, logger: createLogger('silent'), allowPrivate, lookup: s.lookup, connect: s.connect });
    await expect(deliver(job), label).rejects.toBeInstanceOf(UnrecoverableError);
    expect(s.connects).toEqual([]);
    expect(receiver.at(path)).toEqual([]);
    const { items } = await h.store.webhooks.deliveries(hook.webhookId, 0, 10);
    expect(items).toMatchObject([{ attempt: 1, statusCode: null, willRetry: false, error: expect.stringMatching(/not allowed/) }]);
  });

  it('connects to the checked address and delivers when the policy allows it', async () => {
    const path = '/dns-allowed';
    const { hook, job } = await setUp(path, 'ws_dns_ok');
    const s = stubs('127.0.0.1');
    const deliver = createDeliveryProcessor({ webhooks: h.store.webhooks, logger: createLogger('silent'), allowPrivate: true, lookup: s.lookup, connect: s.connect });
    await expect(deliver(job)).resolves.toEqual({ status: 'delivered' });
    expect(s.connects.map((c) => c.address)).toEqual(['127.0.0.1']);
    expect(receiver.at(path)).toHaveLength(1);
    expect(receiver.at(path)[0]!.verifyError).toBeUndefined();
    const { items } = await h.store.webhooks.deliveries(hook.webhookId, 0, 10);
    expect(items).toMatchObject([{ attempt: 1, statusCode: 200, error: null, willRetry: false }]);
  });
});

describe('the delivery history', () => {
  it('keeps the newest 1,000 attempts, newest first', async () => {
    const hook = await h.store.webhooks.create('ws_history', { url: 'https://hooks.example.test/', events: ['source.ready'] }, 20, new Date().toISOString());
    for (let i = 1; i <= 1_005; i++) {
      const attempt = { eventId: `evt_${i}`, type: 'source.ready' as const, kbId: 'kb_1', documentId: 'doc_1', siteId: null, nextAttemptAt: null, attempt: 1, statusCode: 200, error: null, willRetry: false, durationMs: 1, attemptedAt: new Date().toISOString() };
      expect(await h.store.webhooks.recordDelivery(hook.webhookId, attempt)).toBe('active');
    }
    const first = await h.store.webhooks.deliveries(hook.webhookId, 0, 2);
    expect(first.total).toBe(1_000);
    expect(first.items.map((d) => d.eventId)).toEqual(['evt_1005', 'evt_1004']);
    const last = await h.store.webhooks.deliveries(hook.webhookId, 499, 2);
    expect(last.items.map((d) => d.eventId)).toEqual(['evt_7', 'evt_6']);
  });

  it('records nothing for a deleted webhook', async () => {
    const hook = await h.store.webhooks.create('ws_history_gone', { url: 'https://hooks.example.test/', events: ['source.ready'] }, 20, new Date().toISOString());
    await h.store.webhooks.delete('ws_history_gone', hook.webhookId);
    const attempt = { eventId: 'evt_late', type: 'source.ready' as const, kbId: 'kb_1', documentId: 'doc_1', siteId: null, nextAttemptAt: null, attempt: 1, statusCode: 200, error: null, willRetry: false, durationMs: 1, attemptedAt: new Date().toISOString() };
    expect(await h.store.webhooks.recordDelivery(hook.webhookId, attempt)).toBeNull();
    expect(await h.redis.exists(h.store.keys.webhookDeliveries(hook.webhookId))).toBe(0);
  });
});
