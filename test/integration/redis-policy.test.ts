import { afterEach, describe, expect, it } from 'vitest';
import { checkExternalRedis } from '../helpers/redis-policy.js';
import { freePort, startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

const started: RedisServerHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

/** A throwaway Redis with these extra arguments (later arguments win over the helper's noeviction). */
async function redisWith(...args: string[]): Promise<RedisServerHandle> {
  const server = await startRedisServer({ args });
  started.push(server);
  return server;
}

const NO_CONFIG = ['--rename-command', 'CONFIG', ''];

/** The error the check throws for `url`; fails the test when it accepts. */
async function refusal(url: string): Promise<Error> {
  const found = await checkExternalRedis(url).then(
    (policy) => policy,
    (err: unknown) => err,
  );
  if (!(found instanceof Error)) expect.fail(`accepted: ${JSON.stringify(found)}`);
  return found;
}

describe('checking the Redis at REDIS_URL before the suite uses it', () => {
  it('accepts a Redis with maxmemory-policy noeviction and no limit, and reports what it read', async () => {
    const server = await redisWith();
    await expect(checkExternalRedis(server.url)).resolves.toEqual({ maxmemory: 0, policy: 'noeviction', source: 'CONFIG GET' });
  });

  it.each(['allkeys-lru', 'volatile-ttl', 'allkeys-random'])('refuses maxmemory-policy %s, naming it and why eviction breaks the tests', async (policy) => {
    const server = await redisWith('--maxmemory-policy', policy, '--maxmemory', '1gb');
    const err = await refusal(server.url);
    expect(err.message).toContain(`maxmemory 1024 MB, maxmemory-policy ${policy}, read with CONFIG GET`);
    expect(err.message).toContain('evict');
    expect(err.message).toContain('noeviction');
  });

  it('refuses a noeviction Redis whose maxmemory is too small for the staged uploads', async () => {
    const server = await redisWith('--maxmemory', '64mb');
    await expect(checkExternalRedis(server.url)).rejects.toThrow(/maxmemory 64 MB, maxmemory-policy noeviction.*at least 256 MB/);
  });

  it('reads the settings from INFO memory where CONFIG is refused, and still refuses an evicting policy', async () => {
    const server = await redisWith(...NO_CONFIG, '--maxmemory-policy', 'allkeys-lru');
    await expect(checkExternalRedis(server.url)).rejects.toThrow('maxmemory-policy allkeys-lru, read with INFO memory');
  });

  it('accepts a noeviction Redis that refuses CONFIG, from what INFO memory says', async () => {
    const server = await redisWith(...NO_CONFIG);
    await expect(checkExternalRedis(server.url)).resolves.toEqual({ maxmemory: 0, policy: 'noeviction', source: 'INFO memory' });
  });

  it('refuses a Redis that answers neither CONFIG nor INFO, saying it cannot check', async () => {
    const server = await redisWith(...NO_CONFIG, '--rename-command', 'INFO', '');
    await expect(checkExternalRedis(server.url)).rejects.toThrow(/cannot read maxmemory and maxmemory-policy.*refuse one they cannot check/);
  });

  it('says it cannot connect, at once, when nothing listens at REDIS_URL', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    await expect(checkExternalRedis(url)).rejects.toThrow(`REDIS_URL=${url}: cannot connect`);
  });

  it('never prints the password of REDIS_URL', async () => {
    const server = await redisWith('--requirepass', 's3cret-pw', '--maxmemory-policy', 'allkeys-lru');
    const url = `redis://:s3cret-pw@127.0.0.1:${server.port}`;
    const err = await refusal(url);
    expect(err.message).toContain('allkeys-lru');
    expect(err.message).toContain(':***@127.0.0.1');
    expect(err.message).not.toContain('s3cret-pw');
  });
});
