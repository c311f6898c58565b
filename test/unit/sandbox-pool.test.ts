import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxPool, type SandboxLimits, type SandboxPoolOptions, type SandboxStats } from '../../worker/sandbox-pool.js';
import { buildDocx } from '../fixtures/docx.js';
import { buildPdf } from '../fixtures/pdf.js';

// Children run as TypeScript through tsx here, which costs start-up time and ~100 MB of RSS.
const limits: SandboxLimits = { timeoutMs: 20_000, memoryMb: 512, maxTextChars: 100_000, maxPdfPages: 10 };
const TEST_CHILD = fileURLToPath(new URL('../helpers/sandbox-test-child.ts', import.meta.url));

const pools: SandboxPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function testPool(opts: Partial<SandboxPoolOptions> = {}): SandboxPool {
  const pool = new SandboxPool({ size: 1, limits, childModule: TEST_CHILD, recycleRssMb: 450, ...opts });
  pools.push(pool);
  return pool;
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const command = (c: string): Uint8Array => Buffer.from(c);

async function run(pool: SandboxPool, bytes: Uint8Array) {
  let stats: SandboxStats | undefined;
  const outcome = await pool.extract(bytes, {}, (s) => (stats = s)).then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  return { ...outcome, stats: stats as SandboxStats };
}

describe('SandboxPool', () => {
  it('starts its children before the first job and reuses the same child across jobs', async () => {
    const pool = testPool({ childModule: undefined });
    await pool.ready();
    const [warmPid] = pool.pids;
    expect(warmPid).toBeDefined();

    const pdf = await run(pool, buildPdf({ pages: ['first document'] }));
    const docx = await run(pool, buildDocx([{ para: 'second document' }]));
    expect(pdf.value?.text).toBe('first document');
    expect(docx.value?.text).toBe('second document');
    expect(pdf.stats.pid).toBe(warmPid);
    expect(docx.stats.pid).toBe(warmPid);
    expect(isAlive(warmPid)).toBe(true);
  });

  it('kills a child at the wall-clock limit and runs the next job on a fresh child', async () => {
    const pool = testPool({ limits: { ...limits, timeoutMs: 1_000 } });
    await pool.ready();
    const hung = await run(pool, command('hang'));
    expect(hung.error).toMatchObject({ code: 'timeout', message: expect.stringContaining('1000 ms') });
    expect(hung.stats.outcome).toBe('timeout');
    await expect.poll(() => isAlive(hung.stats.pid), { timeout: 10_000 }).toBe(false);

    const next = await run(pool, command('pid'));
    expect(next.stats.outcome).toBe('ok');
    expect(next.value?.text).toBe(String(next.stats.pid));
    expect(next.stats.pid).not.toBe(hung.stats.pid);
  });

  it('kills only the child whose memory outgrows the limit; the other child keeps its place', async () => {
    const pool = testPool({ size: 2, limits: { ...limits, memoryMb: 400 }, recycleRssMb: 350 });
    await pool.ready();
    const [a, b] = await Promise.all([run(pool, command('sleep:300')), run(pool, command('sleep:300'))]);
    expect(new Set([a.stats.pid, b.stats.pid]).size).toBe(2);

    const [hog, calm] = await Promise.all([run(pool, command('alloc:700')), run(pool, command('sleep:300'))]);
    expect(hog.error).toMatchObject({ code: 'too_complex', message: expect.stringContaining('400 MB') });
    expect(hog.stats.outcome).toBe('memory');
    expect(hog.stats.peakRssMb).toBeGreaterThan(400);
    await expect.poll(() => isAlive(hog.stats.pid), { timeout: 10_000 }).toBe(false);
    expect(calm.stats.outcome).toBe('ok');
    expect(isAlive(calm.stats.pid)).toBe(true);
    expect(pool.pids).toContain(calm.stats.pid);
    expect([a.stats.pid, b.stats.pid]).toContain(calm.stats.pid);
  });

  it('replaces a child that crashes, failing only the job it ran', async () => {
    const pool = testPool();
    await pool.ready();
    const crashed = await run(pool, command('crash'));
    expect(crashed.error).toMatchObject({ code: 'internal', message: expect.stringContaining('code 3') });
    expect(crashed.stats.outcome).toBe('crashed');
    await expect.poll(() => pool.pids.length, { timeout: 10_000 }).toBe(1);
    expect(pool.pids).not.toContain(crashed.stats.pid);

    const next = await run(pool, command('pid'));
    expect(next.stats.outcome).toBe('ok');
    expect(next.stats.pid).not.toBe(crashed.stats.pid);
  });

  it('recycles a child after maxJobs jobs', async () => {
    const pool = testPool({ maxJobs: 3 });
    const pids: (number | undefined)[] = [];
    for (let i = 0; i < 7; i++) pids.push((await run(pool, command('pid'))).stats.pid);
    expect(new Set(pids.slice(0, 3)).size).toBe(1);
    expect(new Set(pids.slice(3, 6)).size).toBe(1);
    expect(pids[3]).not.toBe(pids[0]);
    expect(pids[6]).not.toBe(pids[3]);
    await expect.poll(() => isAlive(pids[0]), { timeout: 10_000 }).toBe(false);
  });

  it('recycles a child whose memory stays high after a job', async () => {
    const pool = testPool({ recycleRssMb: 300 });
    const kept = await run(pool, command('retain:1'));
    const hog = await run(pool, command('retain:400'));
    const after = await run(pool, command('pid'));
    expect(hog.stats.pid).toBe(kept.stats.pid);
    expect(hog.stats.outcome).toBe('ok');
    expect(after.stats.pid).not.toBe(hog.stats.pid);
    await expect.poll(() => isAlive(hog.stats.pid), { timeout: 10_000 }).toBe(false);
  });

  it('leaves no child behind after close, and fails a job still running as retryable', async () => {
    const pool = testPool({ size: 2 });
    await pool.ready();
    const pids = pool.pids;
    expect(pids).toHaveLength(2);
    const running = run(pool, command('hang'));
    await pool.close();
    expect((await running).error).toMatchObject({ code: 'internal', retryable: true });
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    await expect(pool.extract(command('pid'), {})).rejects.toMatchObject({ code: 'internal', retryable: true });
  });

  it('lets no child outlive a parent that is killed with SIGKILL', async () => {
    const parentScript = fileURLToPath(new URL('../helpers/sandbox-pool-parent.ts', import.meta.url));
    const parent = spawn(process.execPath, ['--import', 'tsx', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const childPid = Number(line.toString().trim());
    expect(isAlive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    await expect.poll(() => isAlive(childPid), { timeout: 10_000 }).toBe(false);
  });

  it('never runs more jobs at once than it has children', async () => {
    const pool = testPool({ size: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => run(pool, command('sleep:150'))));
    const spans = results.map((r) => JSON.parse(r.value!.text) as { pid: number; start: number; end: number });
    // The most jobs at once is reached at some job's start: count the jobs running at each start.
    const peak = Math.max(...spans.map((s) => spans.filter((o) => o.start <= s.start && s.start < o.end).length));
    expect(peak).toBe(2);
    expect(new Set(spans.map((s) => s.pid)).size).toBe(2);
  });

  it('starts children with a minimal environment that carries none of the parent\'s variables', async () => {
    process.env.KB_TEST_SECRET_TOKEN = 'do-not-leak-3c1e';
    try {
      const pool = testPool({ childModule: undefined });
      await pool.ready();
      const [pid] = pool.pids;
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      const names = environ.map((e) => e.slice(0, e.indexOf('=')));
      expect(environ.join('\n')).not.toContain('do-not-leak-3c1e');
      // fork() itself adds the two NODE_CHANNEL_* variables that name the IPC channel.
      expect(names.filter((n) => !n.startsWith('NODE_CHANNEL_')).sort()).toEqual(['LANG', 'NODE_ENV', 'TZ']);
      expect(names).not.toContain('REDIS_URL');
      expect(names).not.toContain('PATH');
    } finally {
      delete process.env.KB_TEST_SECRET_TOKEN;
    }
  });

  it("forwards a child's progress reports to the job that is running", async () => {
    const pool = testPool();
    await pool.ready();
    const seen: unknown[] = [];
    const result = await pool.extract(command('progress:3'), {}, undefined, (p) => seen.push(p));
    expect(result.text).toBe('done');
    expect(seen).toEqual([
      { pagesDone: 1, pagesTotal: 3 },
      { pagesDone: 2, pagesTotal: 3 },
      { pagesDone: 3, pagesTotal: 3 },
    ]);
  });
});
