/**
 * Measures the API's memory while it streams uploads: RSS of a real API
 * process (sampled from /proc every 20 ms) while it refuses eight concurrent
 * 100 MB uploads (413), accepts eight concurrent 20 MB ones (200; one key, so
 * past its slots some get 429), and takes twenty concurrent requests of three
 * 25 MB files each from five keys (the process's upload slots admit
 * MAX_UPLOAD_CONCURRENCY of them, the rest get 503; four would pass the
 * 100 MB MAX_REQUEST_BYTES).
 * Prints the figures; it asserts nothing. Needs redis-server on PATH.
 *
 *   npm run bench:upload-memory
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createStore } from '../shared/store/index.js';
import { freePort, startRedisServer } from '../test/helpers/redis-server.js';
import { streamUpload } from './lib/multipart-upload.js';

const MB = 1024 * 1024;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function main(): Promise<void> {
  const redisServer = await startRedisServer();
  const port = await freePort();
  const prefix = 'bench';
  const api = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/readyz`);
    const redis = new Redis(redisServer.url);
    const store = createStore(redis, { prefix, blobTtlSeconds: 3600 });
    const { key } = await store.apiKeys.create('bench', 'bench', false);
    const form = new FormData();
    form.set('knowledge_base_name', 'bench');
    const created = (await (await fetch(`${base}/v1/knowledge-bases`, { method: 'POST', body: form, headers: { 'X-API-Key': key } })).json()) as { kbId: string };
    const kbUrl = `${base}/v1/knowledge-bases/${created.kbId}`;

    // Warm up the code paths once so the baseline includes them.
    await streamUpload(kbUrl, key, 1 * MB);
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const baseline = rssMb(api.pid!);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(api.pid!))), 20);

    const phase = async (label: string, size: number): Promise<void> => {
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: 8 }, () => streamUpload(kbUrl, key, size)));
      const secs = (performance.now() - started) / 1000;
      const statuses = results.map((r) => r.status ?? r.error).join(',');
      const medianMs = results.map((r) => r.ms).sort((a, b) => a - b)[4];
      console.log(`${label}: 8 x ${size / MB} MB -> statuses [${statuses}], median ${medianMs} ms, wall ${secs.toFixed(2)} s, peak RSS so far ${peak.toFixed(1)} MB`);
    };
    await phase('refuse', 100 * MB);
    await phase('accept', 20 * MB);

    // Twenty requests of 3 x 25 MB at once, from five workspaces.
    const tenants = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const { key: tenantKey } = await store.apiKeys.create(`bench-${i}`, `bench ${i}`, false);
        const f = new FormData();
        f.set('knowledge_base_name', `bench ${i}`);
        const res = await fetch(`${base}/v1/knowledge-bases`, { method: 'POST', body: f, headers: { 'X-API-Key': tenantKey } });
        return { key: tenantKey, url: `${base}/v1/knowledge-bases/${((await res.json()) as { kbId: string }).kbId}` };
      }),
    );
    const started = performance.now();
    const many = await Promise.all(tenants.flatMap((t) => Array.from({ length: 4 }, () => streamUpload(t.url, t.key, 25 * MB, 'part.txt', 3))));
    const counts = new Map<string, number>();
    for (const r of many) counts.set(String(r.status ?? r.error), (counts.get(String(r.status ?? r.error)) ?? 0) + 1);
    const medianMs = many.map((r) => r.ms).sort((a, b) => a - b)[10];
    console.log(
      `many: 20 x (3 x 25 MB) from 5 keys -> ${[...counts].map(([s, n]) => `${n} x ${s}`).join(', ')}, median ${medianMs} ms, wall ${((performance.now() - started) / 1000).toFixed(2)} s, peak RSS so far ${peak.toFixed(1)} MB`,
    );
    clearInterval(sampler);

    const redisMem = (await redis.info('memory')).match(/used_memory_human:(\S+)/)?.[1];
    console.log(`API RSS baseline ${baseline.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, growth ${(peak - baseline).toFixed(1)} MB (goal: < 100 MB)`);
    console.log(`Redis used_memory after the run: ${redisMem} (the accepted files are staged there)`);
    await redis.quit();
  } finally {
    api.kill('SIGTERM');
    await redisServer.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
