import { randomUUID } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_QUEUE, queuePrefix } from '../../shared/queue/jobs.js';
import { createRedis } from '../../shared/redis/redis.js';
import { call, createKb, expectErrorBody } from '../api/support.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, textsField, urlsField } from '../helpers/multipart-body.js';

const USER = 'ops';
const PASSWORD = 'secret';
const RETRY_FAILED = '/admin/queues/api/queues/ingest/retry/failed';

/** The board's page and JSON routes, with the method each is called with. */
const BOARD_ROUTES: [method: string, path: string][] = [
  ['GET', '/admin/queues'],
  ['GET', '/admin/queues/'],
  ['GET', '/admin/queues/api/queues'],
  ['PUT', RETRY_FAILED],
];

const basic = (user: string, password: string): Record<string, string> => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
const operator = basic(USER, PASSWORD);

/** Script and stylesheet URLs of the board's HTML, resolved against its `<base href>`. */
function assetUrls(html: string, pageUrl: string): URL[] {
  const base = new URL(/<base\s+href="([^"]+)"/i.exec(html)?.[1] ?? pageUrl, pageUrl);
  const refs = [
    ...[...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/gi)].map((m) => m[1]!),
    ...[...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"[^>]*>/gi)].filter((m) => /rel="(?:stylesheet|icon|alternate icon)"/i.test(m[0])).map((m) => m[1]!),
  ];
  return refs.map((ref) => new URL(ref, base));
}

describe('Bull Board with operator credentials configured', () => {
  let h: Harness;
  // A worker without a processor, driven by hand (BullMQ's "manual processing"),
  // so a test can put a job in the failed state without running any extraction.
  let manual: Worker;
  beforeAll(async () => {
    h = await createHarness({ BULL_BOARD_USER: USER, BULL_BOARD_PASSWORD: PASSWORD });
    manual = new Worker(INGEST_QUEUE, null, { connection: createRedis(h.config.redisUrl, 'worker'), prefix: queuePrefix(h.prefix) });
  });
  afterEach(async () => {
    // Each test starts from an empty queue, whatever the previous one left.
    await h.queue.obliterate({ force: true });
  });
  afterAll(async () => {
    await manual.close();
    await h.close();
  });

  /** Adds a job and moves it to `failed`; the queue has no other job when it returns. */
  async function failedJob(): Promise<Job> {
    await h.queue.add('probe', { probe: true });
    const token = randomUUID();
    const job = (await manual.getNextJob(token)) as Job | undefined;
    if (!job) throw new Error('the probe job was not handed out');
    await job.moveToFailed(new Error('probe'), token, false);
    expect(await h.queue.getJobState(job.id!)).toBe('failed');
    return job;
  }

  const refusals: [label: string, headers: Record<string, string>][] = [
    ['without credentials', {}],
    ['with a wrong user', basic('intruder', PASSWORD)],
    ['with a wrong password', basic(USER, 'secreT')],
    ['with an empty password', basic(USER, '')],
    ['with a tenant API key instead of Basic auth', { 'X-API-Key': 'kb_not_an_operator' }],
  ];
  for (const [label, headers] of refusals) {
    for (const [method, path] of BOARD_ROUTES) {
      it(`returns 401 with WWW-Authenticate for ${method} ${path} ${label}`, async () => {
        const res = await call(h.app, method, path, { headers });
        expect(res.status, res.text).toBe(401);
        expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Basic realm="[^"]+"/);
        // Nothing of the board leaks on a refusal.
        expect(res.text).not.toContain('ingest');
      });
    }
  }

  it('refuses a failed-job retry without credentials and leaves the failed job in place', async () => {
    const job = await failedJob();
    expect(await h.queue.getFailedCount()).toBe(1);
    const res = await call(h.app, 'PUT', RETRY_FAILED);
    expect(res.status).toBe(401);
    expect(await h.queue.getFailedCount()).toBe(1);
  });

  it('serves the board page at /admin/queues with the right credentials', async () => {
    const res = await call(h.app, 'GET', '/admin/queues', { headers: operator });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/);
    expect(res.text).toContain('<div id="root">');
    expect(res.text).toContain('<base href="/admin/queues/"');
  });

  it('serves the board page at /admin/queues/ (its own <base href>) with the right credentials', async () => {
    let res = await call(h.app, 'GET', '/admin/queues/', { headers: operator });
    // A redirect to the page without the slash is as good as serving it.
    if (res.status >= 300 && res.status < 400) {
      expect(new URL(res.headers.get('location') ?? '', 'http://localhost/admin/queues/').pathname).toBe('/admin/queues');
      res = await call(h.app, 'GET', '/admin/queues', { headers: operator });
    }
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/);
  });

  it('lists the ingest and webhook queues in the board API with the right credentials', async () => {
    const res = await call(h.app, 'GET', '/admin/queues/api/queues', { headers: operator });
    expect(res.status, res.text).toBe(200);
    const queues = (res.body as { queues: { name: string; counts: Record<string, number> }[] }).queues;
    expect(queues.map((q) => q.name)).toEqual(['ingest', 'webhooks']);
    expect(queues[0]!.counts).toHaveProperty('waiting');
  });

  it('shows operators job data with ids only: no text, URL, file name, file bytes or API key', async () => {
    const marker = `tenant-secret-${randomUUID()}`;
    const key = await h.key('ws_board');
    const kb = (await createKb(h, key, 'Board data', [
      textsField([{ title: `${marker}-title`, text: `${marker} in a text` }]),
      urlsField([`https://example.com/${marker}`]),
      filePart(`${marker}.txt`, `${marker} in a file`),
    ])) as { id: string; files: { documentId: string }[] };
    expect(kb.files).toHaveLength(3);

    const list = await call(h.app, 'GET', '/admin/queues/api/queues?activeQueue=ingest&status=prioritized&page=1&jobsPerPage=50', {
      headers: operator,
    });
    expect(list.status, list.text).toBe(200);
    const ingest = (list.body as { queues: { name: string; jobs: { id: string; data: unknown }[] }[] }).queues.find((q) => q.name === 'ingest');
    // The board does list the jobs (so the checks below look at real data)...
    expect(ingest?.jobs.map((j) => j.data)).toHaveLength(3);
    for (const file of kb.files) expect(list.text).toContain(file.documentId);
    // ...and nothing a tenant sent shows in them, nor the key.
    expect(list.text).not.toContain(marker);
    expect(list.text).not.toContain(key);
    for (const job of ingest!.jobs) {
      const one = await call(h.app, 'GET', `/admin/queues/api/queues/ingest/${encodeURIComponent(job.id)}`, { headers: operator });
      if (one.status === 200) expect(one.text).not.toContain(marker);
    }
  });

  // A board retry would move the job but leave its source failed: the API's retry is the one that works.
  it('refuses a same-origin retry of the ingest queue with the right credentials, saying what to do instead', async () => {
    const job = await failedJob();
    const res = await call(h.app, 'PUT', RETRY_FAILED, {
      headers: { ...operator, Host: 'localhost', Origin: 'http://localhost', 'Sec-Fetch-Site': 'same-origin' },
    });
    expectErrorBody(res, 409, '/admin/queues', { message: 'any' });
    expect(res.body.message).toContain('/documents/{documentId}/retry');
    expect(await h.queue.getFailedCount()).toBe(1);
    expect(await h.queue.getJobState(job.id!)).toBe('failed');
  });

  // A browser always sends Host; it is set here as a browser on another site would send it.
  const crossOrigin: [label: string, headers: Record<string, string>][] = [
    ['Origin http://evil.example', { Host: 'localhost', Origin: 'http://evil.example' }],
    ['Origin from another port of the same host', { Host: '127.0.0.1:3000', Origin: 'http://127.0.0.1:8080' }],
    ['Sec-Fetch-Site cross-site', { Host: 'localhost', 'Sec-Fetch-Site': 'cross-site' }],
  ];
  for (const [label, headers] of crossOrigin) {
    it(`returns 403 for a cross-origin PUT (${label}) with valid credentials and retries nothing`, async () => {
      const job = await failedJob();
      const res = await call(h.app, 'PUT', RETRY_FAILED, { headers: { ...operator, ...headers } });
      expect(res.status, res.text).toBe(403);
      expect(await h.queue.getJobState(job.id!)).toBe('failed');
    });
  }

  it('returns 403 for a cross-origin PUT with valid credentials even when the request has no Host header', async () => {
    const job = await failedJob();
    const res = await call(h.app, 'PUT', RETRY_FAILED, { headers: { ...operator, Origin: 'http://evil.example' } });
    expect(res.status, res.text).toBe(403);
    expect(await h.queue.getJobState(job.id!)).toBe('failed');
  });

  it('returns 403 (not 500) for a PUT with Origin: null (sandboxed frame) and valid credentials', async () => {
    const job = await failedJob();
    const res = await call(h.app, 'PUT', RETRY_FAILED, { headers: { ...operator, Host: 'localhost', Origin: 'null' } });
    expect(res.status, res.text).toBe(403);
    expect(await h.queue.getJobState(job.id!)).toBe('failed');
  });

  it('refuses a cross-site text/plain form POST that would add a job (CSRF without a preflight)', async () => {
    // `<form enctype="text/plain">` can send a JSON-looking body with no CORS preflight.
    const body = JSON.stringify({ name: 'extract-source', data: { workspaceId: 'ws_forged', url: 'http://169.254.169.254/' } });
    const res = await call(h.app, 'POST', '/admin/queues/api/queues/ingest/add', {
      headers: { ...operator, Host: 'localhost', Origin: 'http://evil.example', 'Content-Type': 'text/plain' },
      body,
    });
    expect(res.status, res.text).toBe(403);
    expect(await h.queue.count()).toBe(0);
  });

  it('serves every script, stylesheet and icon the board page references', async () => {
    const page = await call(h.app, 'GET', '/admin/queues', { headers: operator });
    expect(page.status).toBe(200);
    const urls = assetUrls(page.text, 'http://localhost/admin/queues');
    const local = urls.filter((u) => u.origin === 'http://localhost');
    expect(local.some((u) => u.pathname.endsWith('.js'))).toBe(true);
    expect(local.some((u) => u.pathname.endsWith('.css'))).toBe(true);
    for (const u of local) {
      expect(u.pathname.startsWith('/admin/queues/static/'), u.pathname).toBe(true);
      const res = await h.app.request(u.pathname, { headers: operator });
      const body = await res.arrayBuffer();
      expect(res.status, u.pathname).toBe(200);
      expect(body.byteLength, u.pathname).toBeGreaterThan(0);
      const type = res.headers.get('content-type') ?? '';
      if (u.pathname.endsWith('.js')) expect(type).toMatch(/javascript/);
      if (u.pathname.endsWith('.css')) expect(type).toMatch(/^text\/css/);
    }
  });

  it('returns 401 for the board static assets without credentials', async () => {
    const page = await call(h.app, 'GET', '/admin/queues', { headers: operator });
    const script = assetUrls(page.text, 'http://localhost/admin/queues').find((u) => u.pathname.endsWith('.js'));
    expect(script).toBeDefined();
    const res = await call(h.app, 'GET', script!.pathname);
    expect(res.status).toBe(401);
  });
});

describe('Bull Board without operator credentials configured', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  for (const [method, path] of [...BOARD_ROUTES, ['GET', '/admin/queues/static/js/main.js'] as [string, string]]) {
    it(`does not serve the board: 404 with the error body for ${method} ${path}`, async () => {
      const res = await call(h.app, method, path, { headers: operator });
      expectErrorBody(res, 404, path);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });
  }
});

describe('Bull Board for operators: what it shows and what it refuses', () => {
  let h: Harness;
  let manual: Worker;
  beforeAll(async () => {
    h = await createHarness({ BULL_BOARD_USER: USER, BULL_BOARD_PASSWORD: PASSWORD });
    manual = new Worker(INGEST_QUEUE, null, { connection: createRedis(h.config.redisUrl, 'worker'), prefix: queuePrefix(h.prefix) });
  });
  afterAll(async () => {
    await h.queue.obliterate({ force: true });
    await manual.close();
    await h.close();
  });

  it('lists the ingest and the webhook queues', async () => {
    const res = await call(h.app, 'GET', '/admin/queues/api/queues', { headers: operator });
    expect(res.status, res.text).toBe(200);
    expect(res.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(['ingest', 'webhooks']);
    const ingest = res.body.queues.find((q: { name: string }) => q.name === 'ingest');
    expect(ingest.allowRetries).toBe(false);
  });

  it('refuses a retry of the ingest queue with the reason, and the failed job stays failed', async () => {
    await h.queue.add('probe', { probe: true });
    const token = randomUUID();
    const job = (await manual.getNextJob(token)) as Job;
    await job.moveToFailed(new Error('probe'), token, false);
    const all = await call(h.app, 'PUT', RETRY_FAILED, { headers: operator });
    expectErrorBody(all, 409, '/admin/queues', { message: 'any' });
    expect(all.body.message).toContain('/retry');
    const one = await call(h.app, 'PUT', `/admin/queues/api/queues/ingest/${job.id}/retry/failed`, { headers: operator });
    expect([409, 404]).toContain(one.status);
    const byId = await call(h.app, 'PUT', `/admin/queues/api/queues/ingest/${job.id}/retry`, { headers: operator });
    expectErrorBody(byId, 409, '/admin/queues', { message: 'any' });
    expect(await h.queue.getJobState(job.id!)).toBe('failed');
  });

  it.each(['/admin/queues', '/admin/queues/queue/ingest?status=failed', '/admin/queues/queue/webhooks'])(
    'serves %s without links to web fonts on another origin',
    async (path) => {
      const res = await call(h.app, 'GET', path, { headers: operator });
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/fonts\.googleapis|fonts\.gstatic/);
      expect(res.text).toContain('static/css/');
    },
  );
});
