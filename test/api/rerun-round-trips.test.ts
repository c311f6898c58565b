import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rerunSource, type KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { refreshSite } from '../../shared/verbs/sites.js';
import { TooManyRequestsError } from '../../shared/errors.js';
import { bullSourceQueue, type SourceQueue } from '../../shared/queue/jobs.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { urlsField } from '../helpers/multipart-body.js';
import { call, createKb, failSource, readySource } from './support.js';

/**
 * How many times a retry or refresh waits on Redis: the store's commands are
 * counted through the client's sendCommand, and a command sent while none is
 * awaiting its answer starts a new round trip; each enqueue is one more.
 */
interface Tally {
  commands: string[];
  roundTrips: number;
  enqueues: number;
}

let h: Harness;
let key: string;
let tally: Tally;
let deps: KbDeps;
let restore: () => void;

beforeAll(async () => {
  h = await createHarness({ REFRESH_COOLDOWN_SECONDS: '60' });
  key = await h.key('ws-round-trips');
  tally = { commands: [], roundTrips: 0, enqueues: 0 };
  const client = h.redis as unknown as { sendCommand: (command: { name: string; promise: Promise<unknown> }) => unknown };
  const send = client.sendCommand;
  let inFlight = 0;
  client.sendCommand = function (this: unknown, command) {
    if (inFlight === 0) tally.roundTrips += 1;
    inFlight += 1;
    tally.commands.push(command.name);
    const sent = send.call(this, command);
    void command.promise.then(
      () => (inFlight -= 1),
      () => (inFlight -= 1),
    );
    return sent;
  };
  restore = () => (client.sendCommand = send);
  const queue = bullSourceQueue(h.queue, h.config.JOB_ATTEMPTS, h.config.JOB_BACKOFF_MS);
  const counted: SourceQueue = {
    ...queue,
    enqueue: (jobs) => {
      tally.enqueues += 1;
      return queue.enqueue(jobs);
    },
  };
  deps = { kbs: h.store.kbs, queue: counted, logger: createLogger('silent'), chunkDefaults: { maxTokens: 512, overlapTokens: 64 }, refreshCooldownMs: 60_000 };
});
afterAll(async () => {
  restore();
  await h.close();
});

/** Counts what `run` sends; the counting starts from nothing. */
async function counting<T>(run: () => Promise<T>): Promise<{ result: T | Error; tally: Tally }> {
  tally.commands = [];
  tally.roundTrips = 0;
  tally.enqueues = 0;
  const result = await run().catch((err: Error) => err);
  return { result, tally: { ...tally, commands: [...tally.commands] } };
}

// On one connection the active mark and the script leave together; a cluster's nodes wait for the mark first.
const storeTrips = () => ((h.redis as { isCluster?: boolean }).isCluster ? 2 : 1);

describe('a retry or refresh waits on Redis twice: the script and the enqueue', () => {
  it('retries a failed source with one store round trip (mark and script) and one enqueue', async () => {
    const kb = await createKb(h, key, 'Retry', [urlsField(['https://example.com/retry'])]);
    const documentId = kb.files[0].documentId;
    await failSource(h, kb.kbId, documentId);
    const { result, tally: t } = await counting(() => rerunSource(deps, { workspaceId: 'ws-round-trips', kbId: kb.kbId, documentId }, 'retry'));
    expect(result).toMatchObject({ documentId, status: 'pending' });
    expect(t.commands.map((c) => c.toLowerCase())).toEqual(['zadd', 'evalsha']);
    expect(t.roundTrips + t.enqueues).toBe(storeTrips() + 1);
    expect(t.enqueues).toBe(1);
    expect(await h.store.kbs.getSource(kb.kbId, documentId)).toMatchObject({ status: 'pending', run: 2 });
  });

  it('refreshes a ready URL source past its cooldown the same way, the cooldown checked by the script', async () => {
    const kb = await createKb(h, key, 'Refresh', [urlsField(['https://example.com/refresh'])]);
    const documentId = kb.files[0].documentId;
    const long = new Date(Date.now() - 120_000).toISOString();
    expect(await h.store.kbs.startSourceReport({ kbId: kb.kbId, documentId, run: 1 }, { now: long })).toMatchObject({ result: 'ok' });
    expect(await h.store.kbs.finishSourceReport({ kbId: kb.kbId, documentId, run: 1 }, { status: 'ready', text: 't', truncated: false, checkedAt: long }, { now: long })).toMatchObject({ result: 'ok' });
    const { result, tally: t } = await counting(() => rerunSource(deps, { workspaceId: 'ws-round-trips', kbId: kb.kbId, documentId }, 'refresh'));
    expect(result).toMatchObject({ documentId, status: 'pending' });
    expect(t.commands.map((c) => c.toLowerCase())).toEqual(['zadd', 'evalsha']);
    expect(t.roundTrips + t.enqueues).toBe(storeTrips() + 1);
  });

  it('refuses a refresh within the cooldown in the script: 429, nothing enqueued, the source as it was', async () => {
    const kb = await createKb(h, key, 'Cooling', [urlsField(['https://example.com/cooling'])]);
    const documentId = kb.files[0].documentId;
    await readySource(h, kb.kbId, documentId, 'just fetched');
    const { result, tally: t } = await counting(() => rerunSource(deps, { workspaceId: 'ws-round-trips', kbId: kb.kbId, documentId }, 'refresh'));
    expect(result).toBeInstanceOf(TooManyRequestsError);
    expect((result as TooManyRequestsError).retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(t.commands.map((c) => c.toLowerCase())).toEqual(['zadd', 'evalsha']);
    expect(t.enqueues).toBe(0);
    expect(t.roundTrips).toBe(storeTrips());
    expect(await h.store.kbs.getSource(kb.kbId, documentId)).toMatchObject({ status: 'ready', run: 1 });
  });

  it('refreshes a site the same way: the restart script answers with the site, then the discovery is enqueued', async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'Site');
    form.set('knowledge_base_sites', JSON.stringify([{ url: 'https://example.com/' }]));
    const created = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: form });
    expect(created.status, created.text).toBe(201);
    const kbId = created.body.kbId as string;
    const siteId = (created.body.sites as { siteId: string }[])[0]!.siteId;
    const outcome = { state: 'done' as const, pagesFound: 0, pagesAdded: 0, truncated: false };
    expect((await h.store.sites.finish(kbId, siteId, 1, outcome, new Date().toISOString())).kind).toBe('ok');
    const discover = deps.queue.discover;
    let discovers = 0;
    const sites = { ...deps, sites: h.store.sites, queue: { ...deps.queue, discover: (jobs: Parameters<SourceQueue['discover']>[0]) => ((discovers += 1), discover(jobs)) } };
    const target = { workspaceId: 'ws-round-trips', kbId, siteId };
    const { result, tally: t } = await counting(() => refreshSite(sites, target));
    expect(result).toMatchObject({ siteId, status: 'discovering' });
    expect(t.commands.map((c) => c.toLowerCase())).toEqual(['zadd', 'evalsha']);
    expect(t.roundTrips).toBe(storeTrips());
    expect(discovers).toBe(1);
    // While that discovery runs, a refresh queues its job again and answers the site as it is.
    const again = await counting(() => refreshSite(sites, target));
    expect(again.result).toMatchObject({ siteId, status: 'discovering' });
    expect(again.tally.roundTrips).toBe(storeTrips());
    expect((await h.store.sites.get(kbId, siteId))?.run).toBe(2);
  });
});
