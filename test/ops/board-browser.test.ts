import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/main.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = join('test-output', 'bull-board.png');
const USER = 'ops';
const PASSWORD = 'browser-secret';

// Outside CI a machine without Chromium skips this file, saying so; in CI a
// missing browser is a failure (.ci/run installs it).
const hasChromium = existsSync(CHROMIUM);
const skip = !hasChromium && !process.env.CI;
if (skip) console.warn(`board-browser tests skipped: ${CHROMIUM} not found (apt-get install chromium). In CI this fails instead.`);

/** Requests the page made, sorted into what a broken board or a leak would show. */
interface Traffic {
  /** Same-origin script and stylesheet requests that failed or answered >= 400. */
  brokenAssets: string[];
  /** Same-origin scripts and stylesheets that loaded. */
  loadedAssets: string[];
  /** Requests to anywhere but the test server; they are aborted before leaving the machine. */
  external: string[];
}

describe.skipIf(skip)('Bull Board in a real browser (headless Chromium against a listening server)', () => {
  let h: Harness;
  let server: ServerType | undefined;
  let worker: RunningWorker | undefined;
  let context: BrowserContext | undefined;
  let profileDir: string | undefined;
  let origin: string;
  let jobId: string;
  let documentId: string;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`${CHROMIUM} is missing: CI must install the chromium package (see .ci/run)`);
    h = await createHarness({ BULL_BOARD_USER: USER, BULL_BOARD_PASSWORD: PASSWORD });
    const info = await new Promise<AddressInfo>((resolve) => {
      server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
    });
    origin = `http://127.0.0.1:${info.port}`;

    // One text source, processed to the end, so the queue holds a completed job.
    const key = await h.key('ws_board_browser');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_texts', JSON.stringify([{ title: 'Board', text: 'Shown on the board.' }])));
    worker = await startTestWorker(h);
    documentId = docs[0]!;
    expect((await waitForDocument(h, key, kbId, documentId)).status).toBe('ready');
    const completed = await waitFor('the job to complete', async () => {
      const jobs = await h.queue.getCompleted();
      return jobs.length === 1 ? jobs : undefined;
    });
    jobId = completed[0]!.id!;

    profileDir = mkdtempSync(join(tmpdir(), 'kb-board-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1280, height: 900 },
    });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await worker?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await h?.close();
  });

  it('shows the completed job on the ingest queue\'s Completed tab, with every script and stylesheet loaded', async () => {
    rmSync(SCREENSHOT, { force: true });
    const page = await context!.newPage();
    const traffic: Traffic = { brokenAssets: [], loadedAssets: [], external: [] };
    const isAsset = (type: string): boolean => type === 'script' || type === 'stylesheet';
    // Everything stays on 127.0.0.1: other hosts (the board's HTML links Google Fonts) are refused in the browser.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      traffic.external.push(url);
      return route.abort('blockedbyclient');
    });
    page.on('requestfailed', (req) => {
      if (req.url().startsWith(`${origin}/`) && isAsset(req.resourceType())) traffic.brokenAssets.push(`${req.url()} (${req.failure()?.errorText})`);
    });
    page.on('response', (res) => {
      const req = res.request();
      if (!res.url().startsWith(`${origin}/`) || !isAsset(req.resourceType())) return;
      (res.status() >= 400 ? traffic.brokenAssets : traffic.loadedAssets).push(`${res.url()} ${res.status()}`);
    });

    const entry = await page.goto(`${origin}/admin/queues`);
    expect(entry?.status()).toBe(200);
    // The overview lists both queues; open the ingest queue, then its Completed tab.
    await page.getByRole('link', { name: 'webhooks', exact: true }).first().waitFor({ state: 'visible' });
    await page.getByRole('link', { name: 'ingest', exact: true }).first().click();
    await page.waitForURL(`${origin}/admin/queues/queue/ingest`);
    await page.getByRole('link', { name: /^\W*completed/i }).first().click();
    await page.waitForURL(`${origin}/admin/queues/queue/ingest?status=completed`);
    // The job card shows the job's id, its name and its data (references only: THREATS G3).
    const card = page.getByText(jobId, { exact: true });
    try {
      await card.waitFor({ state: 'visible', timeout: 15_000 });
    } catch (err) {
      mkdirSync('test-output', { recursive: true });
      await page.screenshot({ path: join('test-output', 'bull-board-failure.png'), fullPage: true });
      writeFileSync(join('test-output', 'bull-board-failure.html'), await page.content());
      throw err;
    }
    expect(await card.count()).toBe(1);
    // Named after what the source is (a text here), never after its content.
    expect(await page.getByText('text', { exact: true }).first().isVisible()).toBe(true);
    expect(await page.getByText('jobType:', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('"text"', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('sizeBytes:', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText(`"${documentId}"`).isVisible()).toBe(true);

    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.close();

    expect(traffic.brokenAssets).toEqual([]);
    expect(traffic.loadedAssets.some((a) => /\/admin\/queues\/static\/.+\.js /.test(a))).toBe(true);
    expect(traffic.loadedAssets.some((a) => /\/admin\/queues\/static\/.+\.css /.test(a))).toBe(true);
    // The only outside resource the board asks for is its web font.
    expect(traffic.external.filter((u) => !/^https:\/\/fonts\.(googleapis|gstatic)\.com\//.test(u))).toEqual([]);
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);
  }, 60_000);

  it('serves the board home /admin/queues/ (where its title links) when the browser loads it directly', async () => {
    const page = await context!.newPage();
    await page.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort('blockedbyclient')));
    await page.goto(`${origin}/admin/queues`);
    const home = page.getByRole('link', { name: 'kb-ingest queues' });
    expect(await home.getAttribute('href')).toBe('/admin/queues/');
    // A reload or a bookmark of that address asks the server for it.
    const res = await page.goto(`${origin}/admin/queues/`);
    expect(res?.status()).toBe(200);
    await page.getByRole('link', { name: 'ingest', exact: true }).first().waitFor({ state: 'visible' });
    await page.close();
  }, 30_000);

  it('answers 401 with a Basic challenge over the socket when no credentials are sent', async () => {
    const res = await fetch(`${origin}/admin/queues`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });
});
