import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressHost, checkWorkerHealth } from '../../bin/worker-health.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { startWorker } from '../../worker/main.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { freePort } from '../helpers/redis-server.js';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('the worker healthcheck (node dist/bin/worker-health.js)', () => {
  it('is unhealthy while no worker of the ingest queue is connected, healthy while one is, and unhealthy after it stopped', async () => {
    const before = await checkWorkerHealth(h.config);
    expect(before).toMatchObject({ healthy: false, detail: expect.stringMatching(/no worker of the ingest queue/) });

    const worker = await startWorker(h.config, createLogger('silent'), { reconcileIntervalMs: 3_600_000 });
    try {
      expect(await checkWorkerHealth(h.config)).toMatchObject({ healthy: true, detail: expect.stringMatching(/worker connection\(s\) of the ingest queue from /) });
    } finally {
      await worker.close();
    }
    expect((await checkWorkerHealth(h.config)).healthy).toBe(false);
    // A worker's start and graceful close take seconds on a loaded machine.
  }, 120_000);

  it('is unhealthy, within its timeout, when Redis does not answer', async () => {
    const config = loadConfig({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_KEY_PREFIX: h.prefix });
    const started = Date.now();
    const health = await checkWorkerHealth(config, 1_500);
    expect(health.healthy).toBe(false);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('reads the host of IPv4 and IPv6 client addresses', () => {
    expect(addressHost('10.0.3.7:41234')).toBe('10.0.3.7');
    expect(addressHost('[::1]:6379')).toBe('::1');
    expect(addressHost('::1:6379')).toBe('::1');
  });
});
