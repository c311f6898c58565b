import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, createRedis, type RedisClient } from '../../shared/redis/redis.js';
import { HostSlots } from '../../shared/store/host-slots.js';
import { KeySpace } from '../../shared/store/keys.js';
import { HostBusyError, HostGate, hostKey, HostLimiterUnavailableError } from '../../worker/fetch/host-gate.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let server: RedisServerHandle;
let redis: RedisClient;
const keys = new KeySpace('hs');
let slots: HostSlots;

beforeAll(async () => {
  server = await startRedisServer();
  redis = createRedis(server.url, 'cli');
  await connectRedis(redis);
  slots = new HostSlots(redis, keys);
});
afterAll(async () => {
  await redis.quit().catch(() => undefined);
  await server.stop();
});

let n = 0;
/** A host of its own for each test. */
const freshHost = () => `h${++n}.example:443`;
const limits = { maxPerHost: 2, leaseMs: 60_000 };

describe('the acquire script', () => {
  it('grants at most maxPerHost leases of one host, answers busy with the time to the first expiry, and frees a slot on release', async () => {
    const host = freshHost();
    expect(await slots.tryAcquire(host, 'a', limits)).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'b', limits)).toEqual({ ok: true });
    const third = await slots.tryAcquire(host, 'c', limits);
    expect(third).toMatchObject({ ok: false, reason: 'busy' });
    if (third.ok) throw new Error('unreachable');
    expect(third.retryInMs).toBeGreaterThan(0);
    expect(third.retryInMs).toBeLessThanOrEqual(60_000);
    expect(await redis.zcard(keys.hostLeases(host))).toBe(2);

    await slots.release(host, 'a');
    await slots.release(host, 'a'); // twice changes nothing
    expect(await slots.tryAcquire(host, 'c', limits)).toEqual({ ok: true });
    expect((await redis.zrange(keys.hostLeases(host), 0, -1)).sort()).toEqual(['b', 'c']);
  });

  it('counts a token that already holds a lease once', async () => {
    const host = freshHost();
    const one = { ...limits, maxPerHost: 1 };
    expect(await slots.tryAcquire(host, 'a', one)).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'a', one)).toEqual({ ok: true });
    expect(await redis.zcard(keys.hostLeases(host))).toBe(1);
  });

  it('keeps one host saturated without holding back another', async () => {
    const [busy, free] = [freshHost(), freshHost()];
    const one = { ...limits, maxPerHost: 1 };
    expect(await slots.tryAcquire(busy, 'a', one)).toEqual({ ok: true });
    expect(await slots.tryAcquire(busy, 'b', one)).toMatchObject({ ok: false, reason: 'busy' });
    expect(await slots.tryAcquire(free, 'b', one)).toEqual({ ok: true });
  });

  it('records a start only once the spacing after the last one has passed', async () => {
    const host = freshHost();
    expect(await slots.tryStart(host, 400)).toEqual({ ok: true });
    const second = await slots.tryStart(host, 400);
    expect(second).toMatchObject({ ok: false, reason: 'spacing' });
    if (second.ok) throw new Error('unreachable');
    expect(second.retryInMs).toBeGreaterThan(0);
    expect(second.retryInMs).toBeLessThanOrEqual(400);
    // The marker of the next start expires with the spacing, so an idle host leaves nothing behind.
    expect(await redis.pttl(keys.hostNextStart(host))).toBeLessThanOrEqual(400);
    await waitFor('the spacing to pass', async () => (await slots.tryStart(host, 400)).ok, { timeoutMs: 5_000 });
    expect(await slots.tryStart(host, 400)).toMatchObject({ ok: false, reason: 'spacing' });
  });

  it('records nothing without spacing, and spacing never takes a slot', async () => {
    const host = freshHost();
    expect(await slots.tryStart(host, 0)).toEqual({ ok: true });
    expect(await slots.tryStart(host, 0)).toEqual({ ok: true });
    expect(await redis.exists(keys.hostNextStart(host))).toBe(0);
    await slots.tryStart(host, 60_000);
    expect(await slots.tryAcquire(host, 'a', limits)).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'b', limits)).toEqual({ ok: true });
  });

  it('drops a lease its holder never released once it expires, and the key with it', async () => {
    const host = freshHost();
    const short = { maxPerHost: 1, leaseMs: 300 };
    expect(await slots.tryAcquire(host, 'dead-holder', short)).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'b', short)).toMatchObject({ ok: false, reason: 'busy' });
    const ttl = await redis.pttl(keys.hostLeases(host));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await waitFor('the dead lease to expire', async () => (await redis.exists(keys.hostLeases(host))) === 0, { timeoutMs: 5_000 });
    expect(await slots.tryAcquire(host, 'b', short)).toEqual({ ok: true });
  });

  it('frees the slot of an expired lease beside a live one', async () => {
    const host = freshHost();
    expect(await slots.tryAcquire(host, 'live', { ...limits, leaseMs: 60_000 })).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'dead-holder', { ...limits, leaseMs: 300 })).toEqual({ ok: true });
    expect(await slots.tryAcquire(host, 'b', limits)).toMatchObject({ ok: false, reason: 'busy' });
    await waitFor('the dead lease to expire', async () => (await slots.tryAcquire(host, 'b', limits)).ok, { timeoutMs: 5_000 });
    expect((await redis.zrange(keys.hostLeases(host), 0, -1)).sort()).toEqual(['b', 'live']);
  });

  it('keeps the set as long as its longest lease when replicas use different lease lengths', async () => {
    const host = freshHost();
    await slots.tryAcquire(host, 'long', { ...limits, leaseMs: 60_000 });
    await slots.tryAcquire(host, 'short', { ...limits, leaseMs: 200 });
    expect(await redis.pttl(keys.hostLeases(host))).toBeGreaterThan(30_000);
  });

  it('keeps both keys of a host in one hash tag, even for a host name holding braces', () => {
    const host = 'a}b{c.example:80';
    const tag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    expect(tag(keys.hostLeases(host))).toBe('host:a%7Db%7Bc.example:80');
    expect(tag(keys.hostNextStart(host))).toBe(tag(keys.hostLeases(host)));
  });
});

describe('hostKey', () => {
  it('is the lower-case host name without a trailing dot and the port, the default one when none is written', () => {
    expect(hostKey(new URL('https://Example.COM./a'))).toBe('example.com:443');
    expect(hostKey(new URL('http://example.com/a'))).toBe('example.com:80');
    expect(hostKey(new URL('http://example.com:8080/a'))).toBe('example.com:8080');
    expect(hostKey(new URL('http://[::1]:8080/'))).toBe('[::1]:8080');
    expect(hostKey(new URL('https://Bücher.de/'))).toBe('xn--bcher-kva.de:443');
  });
});

describe('the host gate', () => {
  it('spaces the first request of each slot holder, once per lease, and gives the slot back on release, once', async () => {
    const host = freshHost();
    const gate = new HostGate(slots, { maxPerHost: 2, leaseMs: 60_000, spacingMs: 300, maxWaitMs: 5_000, pollMs: 50 });
    const [a, b] = [await gate.acquire(host), await gate.acquire(host)]; // spacing never holds back a slot
    await a.start();
    expect(await slots.tryStart(host, 300)).toMatchObject({ ok: false, reason: 'spacing' });
    await b.start(); // waits for the spacing after a's start, then records its own
    expect(await slots.tryStart(host, 300)).toMatchObject({ ok: false, reason: 'spacing' });
    await waitFor('the spacing to pass', async () => (await redis.exists(keys.hostNextStart(host))) === 0, { timeoutMs: 5_000 });
    await b.start(); // a redirect to the same host: no new start
    expect(await redis.exists(keys.hostNextStart(host))).toBe(0);

    expect(await redis.zcard(keys.hostLeases(host))).toBe(2);
    await a.release();
    await b.release();
    await b.release();
    expect(await redis.exists(keys.hostLeases(host))).toBe(0);
  });

  it('gives up past its wait with HostBusyError carrying a hand-back delay while the host stays saturated', async () => {
    const host = freshHost();
    const gate = new HostGate(slots, { maxPerHost: 1, leaseMs: 60_000, spacingMs: 0, maxWaitMs: 300, pollMs: 50, handBackMs: 1000 });
    const held = await gate.acquire(host);
    const err = await gate.acquire(host).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostBusyError);
    expect((err as HostBusyError).host).toBe(host);
    expect((err as HostBusyError).delayMs).toBeGreaterThanOrEqual(1000);
    expect((err as HostBusyError).delayMs).toBeLessThanOrEqual(2000);
    expect(await redis.zcard(keys.hostLeases(host))).toBe(1);
    await held.release();
  });

  it('stops waiting when the fetch deadline fires', async () => {
    const host = freshHost();
    const gate = new HostGate(slots, { maxPerHost: 1, leaseMs: 60_000, spacingMs: 0, maxWaitMs: 60_000, pollMs: 50 });
    const held = await gate.acquire(host);
    await expect(gate.acquire(host, AbortSignal.timeout(200))).rejects.toMatchObject({ name: 'TimeoutError' });
    await held.release();
  });

  it('gives back every lease still held when its worker stops, and only those', async () => {
    const [a, b] = [freshHost(), freshHost()];
    const gate = new HostGate(slots, { ...limits, spacingMs: 0, maxWaitMs: 1_000 });
    const done = await gate.acquire(a);
    await done.release();
    await gate.acquire(a);
    await gate.acquire(b);
    await slots.tryAcquire(b, 'another-worker', limits);
    await gate.releaseAll();
    expect(await redis.exists(keys.hostLeases(a))).toBe(0);
    expect(await redis.zrange(keys.hostLeases(b), 0, -1)).toEqual(['another-worker']);
  });

  it('fails with HostLimiterUnavailableError, never a lease, when Redis cannot be asked', async () => {
    const lost = createRedis(server.url, 'cli');
    await connectRedis(lost);
    const gate = new HostGate(new HostSlots(lost, keys), { ...limits, spacingMs: 0, maxWaitMs: 1_000 });
    lost.disconnect();
    await expect(gate.acquire(freshHost())).rejects.toBeInstanceOf(HostLimiterUnavailableError);
  });
});
