/**
 * A chaos run: the compiled API and two workers on a redis-server of their
 * own (AOF on), under a mixed PATCH load (texts, URLs to a loopback origin,
 * files), while workers are killed (SIGKILL) and frozen (SIGSTOP/SIGCONT)
 * and Redis is killed and restarted on the same port and data. After the
 * load, everything keeps running until every accepted source is `ready` or
 * `failed`; then the final state is checked: nothing lost, nothing
 * duplicated, nothing left pending, and every source's end told once to a
 * webhook receiver (none lost, none under a second event id). Loopback only.
 *
 *   npm run chaos -- [--duration 60] [--seed N] [--settle 300] [--kbs 3] [--clients 2]
 *                    [--pause-ms 3000] [--fault-every-ms 5000] [--concurrency 1] [--lock-ms 5000]
 *                    [--reconcile-ms 5000] [--no-build]
 *
 * Exits 1 when a source was lost or duplicated, or did not settle in time.
 * The seed is printed first: the same seed repeats the same choices.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { corpusDir, corpusFiles, corpusPresent } from '../test/corpus/corpus-files.js';
import { freePort, startRedisServer } from '../test/helpers/redis-server.js';
import { checkChaosRun, type ChaosVerdict } from './lib/chaos-check.js';
import { createKb, readCounts, readFinalState, waitSettled } from './lib/chaos-observe.js';
import { runLoad, type LoadStats } from './lib/chaos-load.js';
import { startChaosOrigin, type ChaosOrigin } from './lib/chaos-origin.js';
import { spawnNode, Supervised } from './lib/chaos-supervisor.js';
import { SeededRandom } from './lib/seeded-random.js';
import { checkWebhooks, startChaosReceiver, type WebhookVerdict } from './lib/chaos-webhooks.js';

const run = promisify(execFile);
const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a number`);
  return value;
};
const seed = flag('seed', Math.floor(Math.random() * 2 ** 31));
const durationS = flag('duration', 60);
const settleS = flag('settle', 300);
const kbCount = Math.max(1, flag('kbs', 3));
const clients = Math.max(1, flag('clients', 2));
// About as many new sources a second as two workers of concurrency 1 finish, so most are processed while faults happen.
const pauseMs = Math.max(10, flag('pause-ms', 3000));
const concurrency = Math.max(1, flag('concurrency', 1));
const lockMs = flag('lock-ms', 5000);
const faultEveryMs = Math.max(100, flag('fault-every-ms', 5000));
const reconcileMs = flag('reconcile-ms', 5000);
const MAX_CORPUS_BYTES = 1024 * 1024;
const DIST = resolve('dist');

const started = Date.now();
const say = (line: string): void => void process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'kb-chaos-'));
const processes: Supervised[] = [];
let origin: ChaosOrigin | undefined;
const chaos = { workerKills: 0, workerFreezes: 0, redisKills: 0 };

let stopping: Promise<void> | undefined;
/** Stops everything this run started, once, and removes its temp dir. */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (const p of processes) p.hold();
    const [redis, ...services] = processes;
    await Promise.all(services.map((p) => p.stop(10_000)));
    await redis?.stop(10_000);
    await origin?.close();
    rmSync(tmp, { recursive: true, force: true });
  })();
  return stopping;
}
process.on('exit', () => {
  for (const p of processes) p.killNow();
  rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping everything`);
    void stopAll().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  say(`seed ${seed} (repeat with --seed ${seed}); load ${durationS} s, settle at most ${settleS} s`);
  if (!args.includes('--no-build')) {
    say('building dist/');
    await run('npm', ['run', 'build', '--silent']);
  }
  const rng = new SeededRandom(seed);

  const redisDir = join(tmp, 'redis');
  mkdirSync(redisDir);
  const redisPort = await freePort();
  const redis = new Supervised(
    'redis',
    async () => (await startRedisServer({ port: redisPort, dir: redisDir, appendonly: true, args: ['--appendfsync', 'everysec'] })).process,
    say,
  );
  processes.push(redis);
  await redis.start(true);
  origin = await startChaosOrigin();

  const apiPort = await freePort();
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_KEY_PREFIX: 'chaos',
    LOG_LEVEL: 'info',
    // The origin is on loopback.
    URL_FETCH_ALLOW_PRIVATE: 'true',
    // Quick recovery: a dead or frozen worker's job is taken over after about this long.
    WORKER_LOCK_DURATION_MS: String(lockMs),
    WORKER_CONCURRENCY: String(concurrency),
    JOB_BACKOFF_MS: '500',
    SHUTDOWN_GRACE_MS: '5000',
    // The settle polling and final reads would count against the per-key limit.
    RATE_LIMIT_PER_MINUTE: '0',
  };
  let firstStart = true;
  const api = new Supervised(
    'api',
    () => spawnNode([join(DIST, 'api/server.js')], { ...env, PORT: String(apiPort), HOST: '127.0.0.1' }, join(tmp, 'api.log'), '"api listening"'),
    say,
  );
  const workers = [1, 2].map(
    (i) =>
      new Supervised(
        `worker-${i}`,
        // Restarts do not wait for readiness: a worker that cannot start exits, and is restarted again.
        () => spawnNode([join(DIST, 'worker/main.js')], { ...env, RECONCILE_INTERVAL_MS: String(reconcileMs) }, join(tmp, `worker-${i}.log`), firstStart ? '"worker started"' : undefined),
        say,
      ),
  );
  processes.push(api, ...workers);
  await Promise.all([api.start(true), ...workers.map((w) => w.start(true))]);
  firstStart = false;
  const base = `http://127.0.0.1:${apiPort}`;

  const loadKey = await createKey(env, 'chaos-load');
  const readKey = await createKey(env, 'chaos-check');
  const kbIds: string[] = [];
  for (let i = 0; i < kbCount; i++) kbIds.push(await createKb(base, loadKey, `chaos ${i + 1}`));
  const receiver = await startChaosReceiver();
  const hook = await fetch(`${base}/v1/webhooks`, {
    method: 'POST',
    headers: { 'X-API-Key': loadKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['source.ready', 'source.failed'] }),
  });
  if (hook.status !== 201) throw new Error(`could not register the webhook: ${hook.status}`);

  const corpusPaths = corpusInputs();
  say(`redis :${redisPort}, api :${apiPort}, origin :${origin.port}, ${kbIds.length} knowledge bases, ${corpusPaths.length} corpus files`);

  const loadStop = new AbortController();
  const timer = setTimeout(() => loadStop.abort(), durationS * 1000);
  const loadRngs = Array.from({ length: clients }, () => rng.fork());
  const chaosRng = rng.fork();
  const loadStarted = Date.now();
  const [load] = await Promise.all([
    runLoad({ base, apiKey: loadKey, kbIds, origin, corpusPaths, clients, maxPauseMs: pauseMs }, loadRngs, loadStop.signal),
    chaosLoop(chaosRng, redis, workers, loadStop.signal),
  ]);
  clearTimeout(timer);
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  say(`load stopped: ${load.sent} PATCHes, ${load.accepted} accepted; waiting for every source to settle`);

  const settleStarted = Date.now();
  for (const p of processes) await p.waitUp(60_000);
  const settled = await waitSettled(base, readKey, kbIds, settleS * 1000 - (Date.now() - settleStarted), say);
  const settleSeconds = (Date.now() - settleStarted) / 1000;
  const final = await readFinalState(base, readKey, kbIds);
  const counts = await readCounts(base, readKey, kbIds);
  const verdict = checkChaosRun({ accepted: load.acceptedIds, final, counts });
  // The deliveries of the last ends may still be on their way (or waiting for a retry after a fault).
  const webhookDeadline = Date.now() + 90_000;
  let webhooks = checkWebhooks(final, receiver);
  while (webhooks.lost.length > 0 && Date.now() < webhookDeadline) {
    await delay(1000);
    webhooks = checkWebhooks(final, receiver);
  }
  await receiver.close();
  // Failures that a fault rather than the input may have caused, named so a run can be looked into.
  const suspicious = [...final.values()].flatMap((sources) =>
    (sources ?? []).filter((s) => s.errorCode === 'timeout' || s.errorCode === 'internal').map((s) => `${s.documentId} ${s.errorCode} (${s.type} ${s.content.slice(0, 80)})`),
  );
  report({ load, verdict, loadSeconds, settleSeconds, settled, processes, origin, suspicious, webhooks });

  // The final state decides: a source still pending or processing when it is read is unsettled.
  const ok = runOk(verdict, load) && webhooks.lost.length === 0 && webhooks.doubled.length === 0;
  if (!ok) {
    const kept = resolve(`chaos-logs-${seed}`);
    cpSync(tmp, kept, { recursive: true, filter: (src) => !src.startsWith(redisDir) });
    say(`logs of the service processes kept in ${kept}`);
  }
  return ok ? 0 : 1;
}

/**
 * At random moments: SIGKILL a worker (back after a random delay), SIGSTOP one
 * (SIGCONT after a random delay, sometimes longer than its lock), or SIGKILL
 * Redis (restarted on the same port and data after a random delay).
 */
async function chaosLoop(rng: SeededRandom, redis: Supervised, workers: Supervised[], signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await pause(rng.int(Math.floor(faultEveryMs * 0.4), Math.floor(faultEveryMs * 1.6)), signal);
    if (signal.aborted) return;
    const action = rng.weighted([['kill-worker', 4], ['freeze-worker', 3], ['kill-redis', 2]] as const);
    const delayMs = rng.int(500, action === 'freeze-worker' ? 12_000 : 6000);
    const up = workers.filter((w) => w.isUp);
    if (action === 'kill-redis') {
      if (!redis.isUp) continue;
      chaos.redisKills += 1;
      say(`SIGKILL redis (restart in ${(delayMs / 1000).toFixed(1)} s)`);
      void redis.kill(delayMs);
    } else if (up.length > 0) {
      const w = rng.pick(up);
      if (action === 'kill-worker') {
        chaos.workerKills += 1;
        say(`SIGKILL ${w.name} (restart in ${(delayMs / 1000).toFixed(1)} s)`);
        void w.kill(delayMs);
      } else {
        chaos.workerFreezes += 1;
        say(`SIGSTOP ${w.name} (SIGCONT in ${(delayMs / 1000).toFixed(1)} s)`);
        w.freeze(delayMs);
      }
    }
  }
}

function runOk(v: ChaosVerdict, load: LoadStats): boolean {
  return v.ok && load.replayMismatches.length === 0 && load.missingFromAnswer.length === 0;
}

function report(r: {
  load: LoadStats;
  verdict: ChaosVerdict;
  loadSeconds: number;
  settleSeconds: number;
  settled: boolean;
  processes: Supervised[];
  origin: ChaosOrigin;
  suspicious: string[];
  webhooks: WebhookVerdict;
}): void {
  const { load, verdict: v } = r;
  const byKey = (o: Record<string, number>): string =>
    Object.entries(o)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ') || 'none';
  const refused = Object.values(load.refused).reduce((a, b) => a + b, 0);
  const lines = [
    `chaos run, seed ${seed}`,
    `duration: load ${r.loadSeconds.toFixed(1)} s, settle ${r.settled ? `${r.settleSeconds.toFixed(1)} s` : `not within ${settleS} s`}`,
    `PATCHes: sent ${load.sent}, accepted ${load.accepted}, refused ${refused} (${byKey(load.refused)}); resent with their Idempotency-Key ${load.retried}; replays ${load.replays}, answers that differed ${load.replayMismatches.length}`,
    `sources: accepted ${v.accepted} (items: text ${load.acceptedItems.text}, url ${load.acceptedItems.url}, file ${load.acceptedItems.file}), ready ${v.ready}, failed ${v.failed} (${byKey(v.failedByCode)})`,
    `checks: lost ${v.lost.length}, duplicated ${v.duplicated.length + v.duplicatedContent.length}, unsettled ${v.unsettled.length}, failed without a code ${v.failedWithoutCode.length}, ready without text ${v.readyWithoutText.length}, ready without all its chunks ${v.readyWithoutChunks.length}, knowledge bases miscounting their sources ${v.countsDisagree.length}, accepted items missing from their answer ${load.missingFromAnswer.length}, present but never acknowledged ${v.unacknowledged}`,
    `restarts: worker kills ${chaos.workerKills}, worker freezes ${chaos.workerFreezes}, Redis kills ${chaos.redisKills}, self-exits ${r.processes.reduce((n, p) => n + p.selfExits, 0)} (${r.processes.map((p) => `${p.name} ${p.selfExits}`).join(', ')}), failed starts ${r.processes.reduce((n, p) => n + p.failedStarts, 0)}`,
    `origin answers: ${byKey(r.origin.answered)}`,
    `webhook events: ends told ${v.ready + v.failed - r.webhooks.lost.length} of ${v.ready + v.failed}, lost ${r.webhooks.lost.length}, doubled (a second event id for one end) ${r.webhooks.doubled.length}, deliveries repeated under the same id ${r.webhooks.redeliveries}`,
  ];
  const problems: Array<[string, string[]]> = [
    ['lost', v.lost],
    ['duplicated', [...v.duplicated, ...v.duplicatedContent]],
    ['unsettled', v.unsettled],
    ['failed without a code', v.failedWithoutCode],
    ['ready without text', v.readyWithoutText],
    ['ready without all its chunks', v.readyWithoutChunks],
    ['knowledge bases miscounting their sources (reported != listed, pending/processing/ready/failed)', v.countsDisagree],
    ['replayed answers that differed', load.replayMismatches],
    ['accepted items missing from their answer', load.missingFromAnswer],
    ['failed with timeout or internal (not counted against the run)', r.suspicious],
    ['ends whose webhook event was lost', r.webhooks.lost],
    ['ends told under two event ids', r.webhooks.doubled],
  ];
  for (const [what, ids] of problems) if (ids.length) lines.push(`${what}: ${ids.slice(0, 20).join('; ')}${ids.length > 20 ? ` and ${ids.length - 20} more` : ''}`);
  lines.push(runOk(v, load) && r.webhooks.lost.length === 0 && r.webhooks.doubled.length === 0 ? 'result: OK' : 'result: FAILED');
  console.log(lines.join('\n'));
}

async function createKey(env: Record<string, string>, name: string): Promise<string> {
  const { stdout } = await run(process.execPath, [join(DIST, 'bin/admin.js'), 'create-key', '--workspace', 'ws_chaos', '--name', name], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', REDIS_URL: env.REDIS_URL!, REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX! },
  });
  const key = stdout.trim().split('\n').at(-1);
  if (!key) throw new Error('create-key printed no key');
  return key;
}

/** Corpus files of at most 1 MB (a modest load on two cores), or none when the corpus is absent. */
function corpusInputs(): string[] {
  const root = corpusDir();
  if (!corpusPresent(root)) {
    say(`no corpus at ${root} (set CORPUS_DIR): uploading generated files only`);
    return [];
  }
  return corpusFiles(root)
    .map((f) => f.path)
    .filter((p) => statSync(p).size <= MAX_CORPUS_BYTES);
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

main()
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    console.error(err);
    await stopAll().catch(() => undefined);
    process.exit(1);
  });
