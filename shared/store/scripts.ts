import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script run by SHA, loaded on first use or after a Redis restart. */
export class Script {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: (string | Buffer | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('NOSCRIPT')) {
        return redis.eval(this.lua, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}
