import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createStore, type Store } from '../../shared/store/index.js';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';

/** A store and a source queue on a throwaway redis-server whose SLOWLOG keeps every command (the arguments and time of each script). */
export interface SlowlogStore {
  server: RedisServerHandle;
  redis: Redis;
  store: Store;
  queue: Queue;
  close(): Promise<void>;
}

export async function openSlowlogStore(prefix: string, slowlogMaxLen: number): Promise<SlowlogStore> {
  const server = await startRedisServer({ args: ['--slowlog-log-slower-than', '0', '--slowlog-max-len', String(slowlogMaxLen)] });
  const redis = new Redis(server.url);
  const queueRedis = new Redis(server.url, { maxRetriesPerRequest: null });
  const queue = new Queue(`${prefix}-sources`, { connection: queueRedis });
  return {
    server,
    redis,
    store: createStore(redis, { prefix, blobTtlSeconds: 3600 }),
    queue,
    async close() {
      await queue.close();
      // A Queue leaves a connection it was given open: closed here, it does not go on reconnecting to
      // the stopped server in the fork that runs the next file.
      queueRedis.disconnect();
      redis.disconnect();
      await server.stop();
    },
  };
}
