import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ADDRESS_SPACE_HEADROOM_MB } from '../../worker/sandbox/address-space.js';
import { WARM_UP_PAGES } from '../../worker/extractors/pdf/warm-up-pdf.js';
import { PARENT_DEATH_SIGNAL_ARG } from '../../worker/sandbox/orphan-watch.js';
import { SandboxPool, type SandboxLimits, type SandboxPoolOptions, type SandboxStats, type WarmUpReport } from '../../worker/sandbox/sandbox-pool.js';
import { buildDocx } from '../fixtures/docx.js';
import { buildPdf } from '../fixtures/pdf.js';
import { isAlive } from '../helpers/pids.js';

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

const command = (c: string): Uint8Array => Buffer.from(c);

/** The soft RLIMIT_AS of a process in bytes, from /proc, or 'unlimited'. */
function addressSpaceLimit(pid: number): number | 'unlimited' {
  const soft = /^Max address space\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];
  return soft === 'unlimited' ? soft : Number(soft);
}

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
    // The successor's start-up would count against the next job's one second on a loaded machine.
    await pool.ready();

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
    // Rounded to whole MB: a child killed just past the limit reports 400.
    expect(hog.stats.peakRssMb).toBeGreaterThanOrEqual(400);
    await expect.poll(() => isAlive(hog.stats.pid), { timeout: 10_000 }).toBe(false);
    expect(calm.stats.outcome).toBe('ok');
    expect(isAlive(calm.stats.pid)).toBe(true);
    expect(pool.pids).toContain(calm.stats.pid);
    expect([a.stats.pid, b.stats.pid]).toContain(calm.stats.pid);
  });

  it('replaces a child that crashes, failing only the job it ran, as a failure a retry may get past', async () => {
    const pool = testPool();
    await pool.ready();
    const crashed = await run(pool, command('crash'));
    expect(crashed.error).toMatchObject({ code: 'internal', retryable: true, message: expect.stringContaining('code 3') });
    expect(crashed.stats.outcome).toBe('crashed');
    await expect.poll(() => pool.pids.length, { timeout: 10_000 }).toBe(1);
    expect(pool.pids).not.toContain(crashed.stats.pid);

    const next = await run(pool, command('pid'));
    expect(next.stats.outcome).toBe('ok');
    expect(next.stats.pid).not.toBe(crashed.stats.pid);
  });

  it('fails the job of a child that died while another process holds its channel open, and closes, within seconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-channel-'));
    const holders = join(dir, 'holders');
    try {
      const pool = testPool();
      await pool.ready();
      const started = performance.now();
      // Without its exit counting after a grace period the job would wait for its 20 s limit, and close() for good.
      const died = await run(pool, command(`share-channel:${holders}`));
      expect(died.error).toMatchObject({ code: 'internal', retryable: true, message: expect.stringContaining('code 3') });
      expect(died.stats.outcome).toBe('crashed');
      expect(performance.now() - started).toBeLessThan(10_000);
      await pool.close();
    } finally {
      for (const pid of existsSync(holders) ? readFileSync(holders, 'utf8').split('\n').filter(Boolean) : []) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a child killed by a signal, naming the signal', async () => {
    const pool = testPool();
    await pool.ready();
    const killed = await run(pool, command('signal:SIGSEGV'));
    expect(killed.error).toMatchObject({ code: 'internal', retryable: true, message: expect.stringContaining('SIGSEGV') });
    expect(killed.stats.outcome).toBe('crashed');
    const next = await run(pool, command('pid'));
    expect(next.stats.outcome).toBe('ok');
    expect(next.stats.pid).not.toBe(killed.stats.pid);
  });

  it('starts each child under an address-space limit of memoryMb plus the headroom, or the one given', async () => {
    const pool = testPool();
    await pool.ready();
    expect(addressSpaceLimit(pool.pids[0]!)).toBe((limits.memoryMb + ADDRESS_SPACE_HEADROOM_MB) * 2 ** 20);
    const given = testPool({ limits: { ...limits, addressSpaceMb: 3000 } });
    await given.ready();
    expect(addressSpaceLimit(given.pids[0]!)).toBe(3000 * 2 ** 20);
  });

  it('stops a child that asks for 4 GB in one step at the OS limit, with the RSS watchdog off, and the next job runs', async () => {
    const pool = testPool({ rssPollMs: 0 });
    await pool.ready();
    // Never touched, the buffer costs no RAM: were the limit missing, the job would hang until its timeout.
    const hog = await run(pool, command('reserve:4096'));
    expect(hog.error).toMatchObject({ code: 'too_complex', message: `Extraction needed more than the ${limits.memoryMb} MB memory limit and was stopped.` });
    expect(hog.stats.outcome).toBe('memory');
    await expect.poll(() => isAlive(hog.stats.pid), { timeout: 10_000 }).toBe(false);

    const next = await run(pool, buildPdf({ pages: ['after the refused allocation'] }));
    expect(next.value?.text).toBe('after the refused allocation');
    expect(next.stats.pid).not.toBe(hog.stats.pid);
  });

  it('ends a job as the memory limit when the OS refuses the V8 heap more room, and replaces the child', async () => {
    // A heap cap above the address-space limit: V8 runs out of address space before it reaches its own cap.
    const pool = testPool({ rssPollMs: 0, limits: { ...limits, timeoutMs: 60_000, memoryMb: 4096, addressSpaceMb: 2600 } });
    await pool.ready();
    const hog = await run(pool, command('heap'));
    expect(hog.error).toMatchObject({ code: 'too_complex', message: expect.stringContaining('memory limit') });
    expect(hog.stats.outcome).toBe('memory');
    const next = await run(pool, command('pid'));
    expect(next.stats.outcome).toBe('ok');
    expect(next.stats.pid).not.toBe(hog.stats.pid);
  }, 90_000);

  it('still kills a child whose memory grows slowly past the limit, without the OS limit', async () => {
    const pool = testPool({ limits: { ...limits, memoryMb: 300, addressSpaceMb: 0 }, recycleRssMb: 250 });
    await pool.ready();
    expect(addressSpaceLimit(pool.pids[0]!)).toBe('unlimited');
    const hog = await run(pool, command('grow:1000'));
    expect(hog.error).toMatchObject({ code: 'too_complex', message: expect.stringContaining('300 MB') });
    expect(hog.stats.outcome).toBe('memory');
    expect(hog.stats.peakRssMb).toBeGreaterThan(300);
    expect(hog.stats.peakRssMb).toBeLessThan(1000);
    await expect.poll(() => isAlive(hog.stats.pid), { timeout: 10_000 }).toBe(false);
  });

  it('runs children without the OS limit, warning once, where no way to set it is found', async () => {
    const warnings: string[] = [];
    const pool = testPool({ size: 2, limitCommand: () => undefined, onWarning: (m) => warnings.push(m) });
    await pool.ready();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/address-space limit/);
    for (const pid of pool.pids) expect(addressSpaceLimit(pid)).toBe('unlimited');
    const crashed = await run(pool, command('crash'));
    expect(crashed.stats.outcome).toBe('crashed');
    expect((await run(pool, command('pid'))).stats.outcome).toBe('ok');
    expect(warnings).toHaveLength(1);
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

  it('lets no busy child outlive a parent killed with SIGKILL, though its event loop is blocked in a parse', async () => {
    const parentScript = fileURLToPath(new URL('../helpers/sandbox-pool-parent.ts', import.meta.url));
    const parent = spawn(process.execPath, ['--import', 'tsx', parentScript, 'busy'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const childPid = Number(line.toString().trim());
    expect(isAlive(childPid)).toBe(true);
    // Where setpriv is found the kernel ends the child (a parent-death signal), else its watchdog thread does.
    const args = readFileSync(`/proc/${childPid}/cmdline`, 'utf8').split('\0');
    expect(args.includes(PARENT_DEATH_SIGNAL_ARG)).toBe(existsSync('/usr/bin/setpriv') || existsSync('/bin/setpriv'));
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    // The child spins for 60 s; the 'disconnect' event alone would wait for the spin to end.
    await expect.poll(() => isAlive(childPid), { timeout: 5_000 }).toBe(false);
  });

  it('never runs more jobs at once than it has children', async () => {
    const pool = testPool({ size: 2 });
    await pool.ready();
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
      expect(names.filter((n) => !n.startsWith('NODE_CHANNEL_')).sort()).toEqual(['LANG', 'MIMALLOC_ARENA_RESERVE', 'NODE_ENV', 'TZ']);
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

  it('has each child read the warm-up PDF once ready, and counts the pool ready only after it', async () => {
    const reports: WarmUpReport[] = [];
    const pool = testPool({ childModule: undefined, size: 2, warmUp: true, onWarmUp: (w) => reports.push(w) });
    await pool.ready();
    expect(reports).toHaveLength(2);
    expect(reports.map((r) => r.pid).sort()).toEqual([...pool.pids].sort());
    // Every page unless the machine is so loaded that the warm-up's time budget ran out first.
    for (const r of reports) expect(r).toMatchObject({ pages: expect.any(Number), stopped: false });
    for (const r of reports) expect(r.pages).toBeGreaterThan(0);

    const pdf = await run(pool, buildPdf({ pages: ['after the warm-up'] }));
    expect(pdf.value?.text).toBe('after the warm-up');
    expect(reports).toHaveLength(2);
  });

  it('stops a warm-up when a job comes, runs the job, and still counts the pool ready', async () => {
    const reports: WarmUpReport[] = [];
    const pool = testPool({ childModule: undefined, warmUp: true, onWarmUp: (w) => reports.push(w) });
    // Sent as soon as the child is ready: its warm-up has not read a page yet.
    const pdf = await run(pool, buildPdf({ pages: ['the first job'] }));
    expect(pdf.value?.text).toBe('the first job');
    await pool.ready();
    expect(reports).toEqual([expect.objectContaining({ pid: pdf.stats.pid, stopped: true })]);
    expect(reports[0]!.pages).toBeLessThan(WARM_UP_PAGES);
  });

  it('runs no warm-up unless asked in a pool of TypeScript children, and none in a lazy pool', async () => {
    const reports: WarmUpReport[] = [];
    const pool = testPool({ childModule: undefined, onWarmUp: (w) => reports.push(w) });
    await pool.ready();
    expect(reports).toEqual([expect.objectContaining({ pages: 0, stopped: false })]);
    const lazy = testPool({ childModule: undefined, warm: false, warmUp: true, onWarmUp: (w) => reports.push(w) });
    expect((await run(lazy, buildPdf({ pages: ['on demand'] }))).value?.text).toBe('on demand');
    expect(reports.slice(1)).toEqual([expect.objectContaining({ pages: 0 })]);
  });
});
