import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobOutcome } from '../../shared/queue/job-metrics.js';
import { queuePrefix } from '../../shared/queue/jobs.js';
import type { RunningWorker } from '../../worker/main.js';
import { eventId } from '../../shared/webhooks/webhook-events.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { readTopology, startRedisCluster, type RedisClusterHandle } from '../helpers/redis-cluster.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorker } from '../helpers/worker-harness.js';

const WS = 'ws_failover';
const KBS = 6;

interface SourceRow {
  documentId: string;
  status: string;
}

/** How the master that holds the queue leaves: asked to (CLUSTER FAILOVER on its replica), or killed outright. */
type Failure = 'planned' | 'sigkill';

const SCENARIOS: { name: string; failure: Failure }[] = [
  { name: 'a master failing over to its replica during a batch', failure: 'planned' },
  // Not planned: the replica is promoted by the cluster once the others find the master gone (cluster-node-timeout).
  { name: 'a master killed with SIGKILL during a batch, its replica promoted by the cluster', failure: 'sigkill' },
];

/**
 * A master leaves while sources are being added and processed. Each scenario
 * has its own cluster (three masters, one replica each), so a failover cannot
 * disturb other tests.
 */
describe.each(SCENARIOS)('$name', ({ failure }) => {
  let cluster: RedisClusterHandle;
  let h: Harness;
  let worker: RunningWorker;
  let key: string;
  let receiver: Receiver;
  const outcomes: JobOutcome[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    // The webhook receiver is on loopback: the private-address rule is lifted for it; nothing leaves 127.0.0.1.
    h = await createHarness({ REDIS_CLUSTER_NODES: cluster.seeds, JOB_BACKOFF_MS: '100', URL_FETCH_ALLOW_PRIVATE: 'true' });
    // A killed master takes the locks of the jobs it held with it: they come back once their lock lapses and the
    // stall check runs, and a job whose enqueue never reached the replica is queued again by the reconciler.
    const recovery = failure === 'sigkill' ? { lockDurationMs: 10_000, stalledIntervalMs: 5_000, reconcileIntervalMs: 5_000 } : {};
    worker = await startTestWorker(h, { onOutcome: (o) => outcomes.push(o), ...recovery });
    key = await h.key(WS);
    receiver = await startReceiver();
    const hook = await h.app.request('/v1/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiver.origin}/events`, events: ['source.ready', 'source.failed'] }),
      headers: { 'X-API-Key': key, 'content-type': 'application/json' },
    });
    expect(hook.status).toBe(201);
    receiver.on('/events', { secret: ((await hook.json()) as { secret: string }).secret, statuses: [200] });
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await receiver?.close();
    await h?.close();
    await cluster?.stop();
  });

  const post = async (path: string, method: string, texts: string[]): Promise<Response> => {
    const form = new FormData();
    form.set('knowledge_base_name', 'failover');
    form.set('knowledge_base_texts', JSON.stringify(texts));
    return h.app.request(path, { method, body: form, headers: { 'X-API-Key': key } });
  };

  /** The knowledge base's sources as the API shows them. */
  const sourcesOf = async (kbId: string): Promise<SourceRow[]> => {
    const res = await h.app.request(`/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { files: SourceRow[] }).files;
  };

  it('ends every accepted source exactly once, ready or failed, none lost and none duplicated, and tells each end to a webhook once', async () => {
    // The master that holds the queue: its failover moves every job, lock and event stream.
    const queueKey = `${queuePrefix(h.prefix)}:ingest:id`;
    const slot = Number(await h.redis.cluster('KEYSLOT', queueKey));
    const probe = new Redis({ host: '127.0.0.1', port: cluster.nodes[0]!.port, maxRetriesPerRequest: 1 });
    const ranges = await probe.cluster('SLOTS');
    probe.disconnect();
    const [, , master, replica0] = ranges.find(([start, end]) => slot >= start && slot <= end)!;
    const oldMaster = master![1];
    const replicaPort = replica0![1];

    const accepted = new Map<string, string>(); // documentId -> kbId
    const kbIds: string[] = [];
    for (let i = 0; i < KBS; i += 1) {
      const res = await post('/v1/knowledge-bases', 'POST', [`kb ${i} first text`]);
      expect(res.status).toBe(201);
      const body = (await res.json()) as { kbId: string; files: SourceRow[] };
      kbIds.push(body.kbId);
      for (const s of body.files) accepted.set(s.documentId, body.kbId);
    }

    let refused = 0;
    const addRound = async (round: number): Promise<void> => {
      await Promise.all(
        kbIds.map(async (kbId, i) => {
          const res = await post(`/v1/knowledge-bases/${kbId}`, 'PATCH', [`kb ${i} round ${round} a`, `kb ${i} round ${round} b`]);
          if (res.status !== 200) {
            // Refused while the slot moved: the client was told so, and may send again.
            expect(res.status).toBe(503);
            refused += 1;
            return;
          }
          for (const s of ((await res.json()) as { files: SourceRow[] }).files) accepted.set(s.documentId, kbId);
        }),
      );
    };

    let rounds = 0;
    await addRound(rounds);
    const replica = new Redis({ host: '127.0.0.1', port: replicaPort, maxRetriesPerRequest: 1 });
    try {
      if (failure === 'planned') {
        expect(await replica.cluster('FAILOVER')).toBe('OK');
      } else {
        // Replication is asynchronous: what the master acknowledged in its last moment may be lost, and the reconciler sees to its sources.
        cluster.servers.find((s) => s.port === oldMaster)!.process.kill('SIGKILL');
      }
      // Sources keep coming while the slots move, until the replica has taken over; read from the replica, which is alive either way.
      await waitFor(
        `port ${replicaPort} to be a master`,
        async () => {
          await addRound(++rounds);
          return (await readTopology(replicaPort)).masters.includes(replicaPort);
        },
        { timeoutMs: 20_000 },
      );
    } finally {
      replica.disconnect();
    }
    for (let i = 0; i < 3; i += 1) await addRound(++rounds);
    expect((await readTopology(replicaPort)).masters).not.toContain(oldMaster);

    let stored: SourceRow[] = [];
    await waitFor(
      'every source to end ready or failed',
      async () => {
        stored = (await Promise.all(kbIds.map(sourcesOf))).flat();
        return stored.every((s) => s.status === 'ready' || s.status === 'failed') && outcomes.length >= stored.length;
      },
      { timeoutMs: 60_000, describe: () => `${stored.filter((s) => s.status === 'ready' || s.status === 'failed').length} of ${stored.length} ended, ${outcomes.length} outcomes` },
    );
    const ids = stored.map((s) => s.documentId);
    expect(new Set(ids).size, 'no source is listed twice').toBe(ids.length);
    for (const id of accepted.keys()) expect(ids, `accepted source ${id} is still there`).toContain(id);
    // One recorded outcome per source: no source ended twice.
    expect(outcomes).toHaveLength(stored.length);
    expect(accepted.size).toBeGreaterThan(KBS * 2);
    expect(refused, 'most requests are accepted').toBeLessThan(KBS * rounds);

    // Every source's end reaches the receiver as one event (its id derived from the run): none lost, none
    // told twice under another id. A delivery may come again under the same id (at least once), never a second event.
    const owner = new Map<string, string>();
    for (const kbId of kbIds) for (const s of await sourcesOf(kbId)) owner.set(s.documentId, kbId);
    const expected = new Set(stored.map((s) => eventId(owner.get(s.documentId)!, s.documentId, 1, s.status === 'ready' ? 'source.ready' : 'source.failed')));
    const seen = () => new Set(receiver.at('/events').map((r) => r.verified?.id));
    await waitFor('every end told to the receiver', () => [...expected].every((id) => seen().has(id)), {
      timeoutMs: 30_000,
      describe: () => `${[...expected].filter((id) => seen().has(id)).length} of ${expected.size} events received`,
    });
    const told = receiver.at('/events').map((r) => r.verified?.id);
    expect([...new Set(told)].sort(), 'one event per source, each with its derived id').toEqual([...expected].sort());
    const perDocument = new Map<string, Set<string>>();
    for (const r of receiver.at('/events')) {
      const doc = String(r.verified?.data.documentId);
      perDocument.set(doc, (perDocument.get(doc) ?? new Set()).add(r.verified!.id));
    }
    expect([...perDocument.values()].every((s) => s.size === 1), 'no source told twice').toBe(true);
    // Its own waits bound each phase (20 s for the failover, 60 s to settle); the test as a whole may take that long.
  }, 120_000);
});
