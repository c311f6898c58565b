import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_BACKOFF, WEBHOOK_RETRY_DELAYS_MS, webhookJobOptions, webhookRetryDelay } from '../../shared/queue/jobs.js';
import { signDelivery } from '../../worker/webhooks/sign.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"id":"evt_1","type":"source.ready","createdAt":"2026-11-23T10:00:00.000Z","data":{"kbId":"kb_1"}}';

describe('signDelivery', () => {
  it('produces headers the standardwebhooks library verifies', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = signDelivery(SECRET, 'evt_1', now, BODY);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(new Webhook(SECRET).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  it('gives the same signature as the library for the same id, time and body', () => {
    const at = 1_614_265_330;
    expect(signDelivery(SECRET, 'msg_p5jXN8AQM9LWM0D4loKWxJek', at, '{"test": 2432232314}')['webhook-signature']).toBe(
      new Webhook(SECRET).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(at * 1000), '{"test": 2432232314}'),
    );
  });

  it('is refused by a receiver when the body, the id or the secret differ', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = { ...signDelivery(SECRET, 'evt_1', now, BODY) };
    expect(() => new Webhook(SECRET).verify(BODY.replace('kb_1', 'kb_2'), headers)).toThrow();
    expect(() => new Webhook(SECRET).verify(BODY, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(() => new Webhook(other).verify(BODY, headers)).toThrow();
  });
});

describe('signing with two secrets during a rotation', () => {
  const previous = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
  const unrelated = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;

  it('sends one v1 signature per secret, space-separated, each verifying with its own secret', () => {
    const now = Date.now() / 1000;
    const headers = signDelivery([SECRET, previous], 'evt_1', now, BODY);
    expect(headers['webhook-signature'].split(' ')).toEqual([signDelivery(SECRET, 'evt_1', now, BODY)['webhook-signature'], signDelivery(previous, 'evt_1', now, BODY)['webhook-signature']]);
    expect(() => new Webhook(SECRET).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(previous).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(unrelated).verify(BODY, { ...headers })).toThrow();
  });
});

describe('the delivery retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the failed attempts 1 to 7', () => {
    const s = 1_000;
    const min = 60 * s;
    const hour = 60 * min;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => webhookRetryDelay(n))).toEqual([5 * s, 5 * min, 30 * min, 2 * hour, 5 * hour, 10 * hour, 10 * hour]);
    expect(WEBHOOK_RETRY_DELAYS_MS).toHaveLength(7);
  });

  it('makes eight attempts in all with the custom backoff', () => {
    expect(webhookJobOptions()).toMatchObject({ attempts: 8, backoff: { type: WEBHOOK_BACKOFF } });
  });

  it('follows a shortened schedule when one is given, and keeps its last step past the end', () => {
    expect([1, 2, 3, 9].map((n) => webhookRetryDelay(n, [10, 20, 30]))).toEqual([10, 20, 30, 30]);
    expect(webhookJobOptions([10, 20]).attempts).toBe(3);
  });
});
