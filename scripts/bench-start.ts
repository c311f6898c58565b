/**
 * Times `npm start` from the command to the first 200 from /readyz, against a
 * throwaway redis-server, and prints each run, the median and the load average.
 * The first run may build; later runs show what a restart costs.
 *
 *   npx tsx scripts/bench-start.ts [--runs 3] [--touch api/app.ts] [--direct]
 *
 * `--touch FILE` sets FILE's mtime to now before each run, so every run
 * rebuilds (what a restart after an edit costs). `--direct` runs
 * `node dist/bin/start.js` instead: the service's own start, without npm and
 * the build step.
 */
import { spawn } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer } from '../test/helpers/redis-server.js';
import { median } from './lib/bench-util.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Number(option('--runs') ?? 3);
const TOUCH = option('--touch');
const DIRECT = args.includes('--direct');
const [COMMAND, ...ARGS] = DIRECT ? [process.execPath, 'dist/bin/start.js'] : ['npm', 'start', '--silent'];

async function once(redisUrl: string): Promise<number> {
  const port = await freePort();
  if (TOUCH) utimesSync(`${root}/${TOUCH}`, new Date(), new Date());
  const started = performance.now();
  const child = spawn(COMMAND!, ARGS, {
    cwd: root,
    env: { ...process.env, REDIS_URL: redisUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_KEY_PREFIX: 'benchstart' },
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${[COMMAND, ...ARGS].join(' ')} exited with ${child.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
      if (ready) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

const redis = await startRedisServer();
try {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const ms = await once(redis.url);
    times.push(ms);
    console.log(`run ${i + 1}: ${(ms / 1000).toFixed(2)} s to /readyz (load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  }
  console.log(`${DIRECT ? 'node dist/bin/start.js' : 'npm start'}, median of ${RUNS}: ${(median(times) / 1000).toFixed(2)} s${TOUCH ? ` (touching ${TOUCH} before each)` : ''}`);
} finally {
  await redis.stop();
}
