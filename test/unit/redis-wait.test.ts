import { describe, expect, it } from 'vitest';
import { isRedisUnavailable } from '../../shared/redis/redis.js';
import { waitForRedis } from '../../shared/redis/redis-wait.js';
import { capturingLogger } from '../helpers/log-capture.js';

/** An error as a refused connection raises it. */
function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
}

const warnings = (lines: string[]): Record<string, unknown>[] =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'waiting for Redis');

describe('waitForRedis', () => {
  it('tries again while Redis is unavailable and returns what the first successful attempt opened', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const value = await waitForRedis(
      async () => {
        calls++;
        if (calls < 4) throw refused();
        return 'opened';
      },
      { target: 'redis://127.0.0.1:1', logger, initialDelayMs: 5, maxDelayMs: 20 },
    );
    expect(value).toBe('opened');
    expect(calls).toBe(4);
    expect(warnings(lines)[0]).toMatchObject({ redis: 'redis://127.0.0.1:1', attempts: 1, reason: 'connect ECONNREFUSED 127.0.0.1:1' });
  });

  it('warns at once, then at most once per longest pause, however often it tries', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const started = Date.now();
    await waitForRedis(
      async () => {
        calls++;
        if (Date.now() - started < 700) throw refused();
      },
      { target: 'redis://127.0.0.1:1', logger, initialDelayMs: 10, maxDelayMs: 200 },
    );
    const times = warnings(lines).map((l) => Date.parse(String(l.time)));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times.length).toBeLessThan(calls - 1);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(195);
  });

  it('throws any other error at once, without a second attempt', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const eviction = new Error('Redis maxmemory-policy is allkeys-lru; it must be noeviction, or queued jobs can be evicted');
    await expect(
      waitForRedis(
        async () => {
          calls++;
          throw eviction;
        },
        { target: 'redis://127.0.0.1:1', logger, initialDelayMs: 5, maxDelayMs: 20 },
      ),
    ).rejects.toBe(eviction);
    expect(calls).toBe(1);
    expect(warnings(lines)).toEqual([]);
  });

  it('stops waiting when its signal aborts, during a pause or an attempt that hangs', async () => {
    const { logger } = capturingLogger();
    const pausing = new AbortController();
    const paused = waitForRedis(async () => Promise.reject(refused()), { target: 't', logger, initialDelayMs: 60_000, signal: pausing.signal });
    setTimeout(() => pausing.abort(), 20);
    await expect(paused).rejects.toThrow(/abort/i);

    const hanging = new AbortController();
    const hung = waitForRedis(() => new Promise(() => undefined), { target: 't', logger, signal: hanging.signal });
    setTimeout(() => hanging.abort(), 20);
    await expect(hung).rejects.toThrow(/abort/i);
  });

  it('closes what a failed attempt opened, and what it opens after failing', async () => {
    const { logger } = capturingLogger();
    const closed: string[] = [];
    let calls = 0;
    let late: Promise<void> | undefined;
    await waitForRedis(
      async (attempt) => {
        calls++;
        attempt.own(`connection ${calls}`, (c) => closed.push(c));
        if (calls === 1) {
          // A step still running when the attempt fails opens one more thing afterwards.
          late = new Promise<void>((resolve) =>
            setTimeout(() => {
              expect(() => attempt.own('late queue', (c) => closed.push(c))).toThrow();
              resolve();
            }, 10),
          );
          throw refused();
        }
      },
      { target: 't', logger, initialDelayMs: 30, maxDelayMs: 30 },
    );
    await late;
    expect(closed).toEqual(['connection 1', 'late queue']);
  });
});

describe('isRedisUnavailable', () => {
  it('counts a cluster none of whose nodes answers, and a temporary DNS failure, as unavailable', () => {
    expect(isRedisUnavailable(new Error('None of startup nodes is available'))).toBe(true);
    expect(isRedisUnavailable(Object.assign(new Error('getaddrinfo EAI_AGAIN redis'), { code: 'EAI_AGAIN' }))).toBe(true);
    expect(isRedisUnavailable(new Error('Redis maxmemory-policy is allkeys-lru; it must be noeviction'))).toBe(false);
  });

  it('counts a command whose cluster redirections ran out while a killed master was replaced as unavailable', () => {
    // The message ioredis gives when the slot's master is gone and its replica not yet promoted.
    expect(isRedisUnavailable(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'))).toBe(true);
  });
});
