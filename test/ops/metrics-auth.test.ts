import { Hono } from 'hono';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// Every comparison of a secret must go through timingSafeEqual, on buffers of
// one length whatever was sent: the spy sees each call and its operands.
const compared = vi.hoisted(() => ({ calls: [] as [number, number][] }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.calls.push([a.byteLength, b.byteLength]);
      return actual.timingSafeEqual(a, b);
    },
  };
});

const { metricsAuth } = await import('../../api/ops/metrics.js');

const TOKEN = 'metrics-token-0123456789abcdef';

function app(access: Parameters<typeof metricsAuth>[0]): Hono {
  const a = new Hono();
  a.use('/metrics', metricsAuth(access) as never);
  a.get('/metrics', (c) => c.text('figures'));
  return a;
}

describe('metricsAuth compares secrets in constant time', () => {
  beforeEach(() => {
    compared.calls.length = 0;
  });

  it.each([
    ['the right token', `Bearer ${TOKEN}`, 200],
    ['a token one character short', `Bearer ${TOKEN.slice(0, -1)}`, 401],
    ['a token with the last character wrong', `Bearer ${TOKEN.slice(0, -1)}x`, 401],
    ['a one-character token', 'Bearer m', 401],
    ['a token ten times as long', `Bearer ${TOKEN.repeat(10)}`, 401],
    ['no Authorization header', undefined, 401],
  ])('%s: answers %#, through timingSafeEqual on equal-length digests', async (_name, authorization, status) => {
    const res = await app({ requireAuth: true, token: TOKEN }).request('/metrics', authorization ? { headers: { Authorization: authorization } } : {});
    expect(res.status).toBe(status);
    // The token is compared once whatever was sent, on two 32-byte digests: no early exit on length or prefix.
    expect(compared.calls).toEqual([[32, 32]]);
  });

  it('runs the token check and both halves of the Basic check on every request, matched or not', async () => {
    const guarded = app({ requireAuth: true, token: TOKEN, user: 'ops', password: 'board-secret' });
    const basic = `Basic ${Buffer.from('ops:board-secret').toString('base64')}`;
    for (const authorization of [`Bearer ${TOKEN}`, basic, 'Bearer nope', `Basic ${Buffer.from('ops:nope').toString('base64')}`]) {
      compared.calls.length = 0;
      await guarded.request('/metrics', { headers: { Authorization: authorization } });
      expect(compared.calls, authorization).toEqual([[32, 32], [32, 32], [32, 32]]);
    }
  });

  it('compares nothing with METRICS_REQUIRE_AUTH=false', async () => {
    const res = await app({ requireAuth: false, token: TOKEN }).request('/metrics');
    expect(res.status).toBe(200);
    expect(compared.calls).toEqual([]);
  });
});
