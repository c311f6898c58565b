import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix, WEBHOOK_QUEUE, type DeliverEventJob } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { sourceReadyPublisher } from '../helpers/publish-event.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
let hooks: Queue;

beforeAll(async () => {
  h = await createHarness();
  hooks = new Queue(WEBHOOK_QUEUE, { connection: createRedis(h.config, 'api'), prefix: queuePrefix(h.prefix) });
});
afterAll(async () => {
  await hooks.close();
  await h.close();
});

const now = () => new Date().toISOString();
/** A webhook on loopback (never contacted here: no delivery worker runs). */
const register = (workspaceId: string) => h.store.webhooks.create(workspaceId, { url: 'http://127.0.0.1:9/hook', events: ['source.ready'] }, 20, now());

describe('fair share of webhook deliveries between workspaces', () => {
  it("queues another workspace's delivery ahead of one workspace's backlog of deliveries", async () => {
    const sourceReady = sourceReadyPublisher(h.store.webhooks, hooks);
    await register('ws_busy');
    await register('ws_busy');
    await register('ws_quiet');
    const finish = (workspaceId: string, i: number) => sourceReady(workspaceId, `doc_${i}`);
    for (let i = 0; i < 10; i++) await finish('ws_busy', i);
    await finish('ws_quiet', 0);

    const waiting = await hooks.getJobs(['prioritized', 'wait'], 0, -1);
    expect(waiting).toHaveLength(21);
    // BullMQ hands out the lowest priority first, ties in the order they were added.
    const order = [...waiting].sort((a, b) => a.priority - b.priority || Number(a.timestamp) - Number(b.timestamp));
    const position = order.findIndex((j) => (j.data as DeliverEventJob).workspaceId === 'ws_quiet');
    expect(position).toBeLessThanOrEqual(2);
  });
});
