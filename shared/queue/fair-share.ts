import type { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { runScript, withCommands, type StoreRedis } from '../store/commands.js';
import { KeySpace } from '../store/keys.js';
import { fairPrioritiesScript } from '../store/scripts/fair-share-scripts.js';

/** BullMQ's highest job priority (2^21 - 1). */
export const MAX_PRIORITY = 2_097_151;
const QUEUE_TAG = ':{queue}';

/**
 * Fair share of one queue between workspaces, through BullMQ priorities given
 * at enqueue (lower runs first). Each workspace's jobs are numbered from the
 * round being served (the lowest waiting priority) or from its own last job,
 * whichever is later: a workspace with one job waits for the current round
 * only, not for another workspace's backlog, and one workspace's jobs keep
 * their order. A retry or a job handed back (busy host) keeps its priority,
 * so it keeps its place. One script call per batch of jobs; the ledger lives
 * in the queue's slot, so this works the same on a Redis Cluster.
 */
export class FairShare {
  private readonly keys: KeySpace;
  private readonly redis: StoreRedis;

  /** `queue` must have been built with an ioredis connection (as the service's queues are), which the script runs on. */
  constructor(private readonly queue: Queue) {
    const connection = queue.opts.connection as unknown;
    if (!(connection instanceof Redis || connection instanceof Cluster)) throw new Error('FairShare needs a queue built on an ioredis connection');
    this.redis = withCommands(connection);
    const prefix = queue.opts.prefix ?? '';
    // queuePrefix() appends the queue's hash tag to the store's key prefix.
    this.keys = new KeySpace(prefix.endsWith(QUEUE_TAG) ? prefix.slice(0, -QUEUE_TAG.length) : prefix);
  }

  /** The priorities of `count` new jobs of `workspaceId`, in order. */
  async priorities(workspaceId: string, count: number): Promise<number[]> {
    if (count === 0) return [];
    const { first } = await runScript(this.redis, this.keys, fairPrioritiesScript, {
      queueName: this.queue.name,
      workspaceId,
      count,
      maxPriority: MAX_PRIORITY,
    });
    return Array.from({ length: count }, (_, i) => Math.min(first + i, MAX_PRIORITY));
  }
}
