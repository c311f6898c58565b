import type { Config } from '../shared/runtime/config.js';
import { configOrExit, isMain } from '../shared/runtime/process.js';
import { createRedis } from '../shared/redis/redis.js';
import { openIngestQueue } from '../shared/runtime/runtime.js';

/** The verdict of one health check. */
export interface WorkerHealth {
  healthy: boolean;
  /** One line saying what was found. */
  detail: string;
}

/** The host part of a Redis client address: `10.0.3.7:41234` → `10.0.3.7`, `[::1]:6379` or `::1:6379` → `::1`. */
export function addressHost(addr: string): string {
  const host = addr.slice(0, addr.lastIndexOf(':'));
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Whether a worker runs on this host: Redis must answer, and BullMQ must list
 * a worker of the ingest queue connected from the address this check connects
 * from (a container has an address of its own, so this finds the worker of
 * the same container). A worker process that lost Redis, or never opened its
 * queue, fails the check.
 */
export async function checkWorkerHealth(config: Config, timeoutMs = 5_000): Promise<WorkerHealth> {
  // The worker role queues commands until the connection is up; the timeout bounds the wait.
  const queue = openIngestQueue(config, 'worker');
  const redis = createRedis(config, 'worker');
  // A refused connection is the verdict, reported once below, not an unhandled event.
  redis.on('error', () => undefined);
  queue.on('error', () => undefined);
  const timer = new Promise<WorkerHealth>((resolve) => setTimeout(() => resolve({ healthy: false, detail: `no answer from Redis within ${timeoutMs} ms` }), timeoutMs).unref());
  const check = (async (): Promise<WorkerHealth> => {
    const info = String(await redis.call('CLIENT', 'INFO'));
    const own = /(?:^|\s)addr=(\S+)/.exec(info)?.[1];
    if (!own) return { healthy: false, detail: 'Redis did not say which address this check connects from' };
    const host = addressHost(own);
    const workers = await queue.getWorkers();
    const here = workers.filter((w) => typeof w.addr === 'string' && addressHost(w.addr) === host);
    return here.length > 0
      ? { healthy: true, detail: `${here.length} worker connection(s) of the ingest queue from ${host}` }
      : { healthy: false, detail: `no worker of the ingest queue is connected from ${host} (${workers.length} from elsewhere)` };
  })().catch((err: unknown) => ({ healthy: false, detail: `Redis check failed: ${err instanceof Error ? err.message : String(err)}` }));
  try {
    return await Promise.race([check, timer]);
  } finally {
    redis.disconnect();
    await queue.abandon().catch(() => undefined);
  }
}

// `node dist/bin/worker-health.js`: the worker container's healthcheck; exit 0 when healthy.
if (isMain(import.meta.url)) {
  const health = await checkWorkerHealth(configOrExit());
  (health.healthy ? process.stdout : process.stderr).write(`${health.detail}\n`);
  process.exit(health.healthy ? 0 : 1);
}
