import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebhookQueue } from '../../shared/runtime/runtime.js';
import type { RunningWorker } from '../../worker/main.js';
import { loadConfig } from '../../shared/runtime/config.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  /** Metric family name to its `# TYPE`. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] };

/**
 * Parses the Prometheus text exposition format (0.0.4), strictly: every line
 * is a comment, a HELP or TYPE line, or a well-formed sample of a family whose
 * TYPE came before it; a family is typed once and a series appears once.
 */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${line}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
      if (meta?.[1] === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(meta[3]!)) fail('unknown type');
        if (types.has(meta[2]!)) fail('family typed twice');
        types.set(meta[2]!, meta[3]!);
      }
      return;
    }
    const name = NAME.exec(line)?.[0] ?? fail('no metric name');
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      rest = rest.slice(1);
      while (!rest.startsWith('}')) {
        const label = LABEL_NAME.exec(rest)?.[0] ?? fail('bad label name');
        rest = rest.slice(label.length);
        if (!rest.startsWith('="')) fail('label without ="');
        rest = rest.slice(2);
        let value = '';
        for (;;) {
          const ch = rest[0] ?? fail('unterminated label value');
          rest = rest.slice(1);
          if (ch === '"') break;
          if (ch === '\\') {
            const esc = rest[0] ?? fail('dangling escape');
            rest = rest.slice(1);
            value += esc === 'n' ? '\n' : esc === '\\' || esc === '"' ? esc : fail('bad escape');
          } else value += ch;
        }
        if (label in labels) fail('label repeated');
        labels[label] = value;
        if (rest.startsWith(',')) rest = rest.slice(1);
        else if (!rest.startsWith('}')) fail('labels not separated by a comma');
      }
      rest = rest.slice(1);
    }
    const parts = /^ (\S+)(?: (-?\d+))?$/.exec(rest) ?? fail('no value');
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes `Nan`).
    const raw = parts[1]!.toLowerCase();
    const specials: Record<string, number> = { nan: NaN, inf: Infinity, '+inf': Infinity, '-inf': -Infinity };
    const value = raw in specials ? specials[raw]! : Number(raw);
    if (Number.isNaN(value) && raw !== 'nan') fail('value is not a number');
    const family = types.has(name)
      ? name
      : [...types.keys()].find((f) => (SUFFIXES[types.get(f)!] ?? []).some((s) => name === f + s));
    if (!family) fail('sample of a family with no TYPE before it');
    const id = `${name}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (seen.has(id)) fail('series repeated');
    seen.add(id);
    samples.push({ name, labels, value });
  });
  return { types, samples };
}

/** The value of the series with exactly these labels; undefined when it is absent. */
function sample(exp: Exposition, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).sort();
  const found = exp.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(want));
  return found?.value;
}

/** The scrape token the harnesses below are configured with (a closed /metrics is the default). */
const TOKEN = 'metrics-token-0123456789abcdef';
const SCRAPER = { Authorization: `Bearer ${TOKEN}` };

async function scrape(h: Harness): Promise<Exposition> {
  const res = await h.app.request('/metrics', { headers: SCRAPER });
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** Scrapes until `done` holds (the workers' figures land in Redis just after the source does); fails past the timeout. */
async function scrapeUntil(h: Harness, done: (exp: Exposition) => boolean, timeoutMs = 10_000): Promise<Exposition> {
  return waitFor('the metrics to show the finished jobs', async () => {
    const exp = await scrape(h);
    return done(exp) ? exp : undefined;
  }, { timeoutMs });
}

describe('GET /metrics from the API', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ METRICS_TOKEN: TOKEN });
    key = await h.key('ws_metrics');
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers Prometheus text with its content type, every series typed and unique', async () => {
    const res = await h.app.request('/metrics', { headers: SCRAPER });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4(; charset=utf-8)?$/i);
    const exp = parseExposition(await res.text());
    expect(exp.types.get('kb_http_requests_total')).toBe('counter');
    expect(exp.types.get('kb_http_request_duration_seconds')).toBe('histogram');
    expect(exp.types.get('kb_queue_jobs')).toBe('gauge');
    expect(exp.types.get('kb_webhook_queue_jobs')).toBe('gauge');
    expect(exp.types.get('kb_jobs_finished_total')).toBe('counter');
    expect(exp.types.get('kb_extract_duration_seconds')).toBe('histogram');
    expect(exp.types.get('kb_extract_bytes_total')).toBe('counter');
  });

  it('counts a request made before in kb_http_requests_total by method, route and status', async () => {
    const labels = { method: 'GET', route: '/v1/agents', status: '200' };
    const before = sample(await scrape(h), 'kb_http_requests_total', labels) ?? 0;
    const res = await h.app.request('/v1/agents', { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    const after = await scrape(h);
    expect(sample(after, 'kb_http_requests_total', labels)).toBe(before + 1);
    expect(sample(after, 'kb_http_request_duration_seconds_count', labels)).toBe(before + 1);
  });

  it('labels kb_http_request_duration_seconds by method, route pattern and status', async () => {
    const ok = { method: 'GET', route: '/v1/agents', status: '200' };
    const refused = { ...ok, status: '401' };
    const before = await scrape(h);
    const count = (exp: Exposition, labels: Record<string, string>) => sample(exp, 'kb_http_request_duration_seconds_count', labels) ?? 0;
    expect((await h.app.request('/v1/agents', { headers: { 'X-API-Key': key } })).status).toBe(200);
    expect((await h.app.request('/v1/agents')).status).toBe(401);
    const unknownKb = `kb_${Date.now().toString(36)}nosuch`;
    await h.app.request(`/v1/knowledge-bases/${unknownKb}`, { headers: { 'X-API-Key': key } });
    const after = await scrape(h);
    expect(count(after, ok)).toBe(count(before, ok) + 1);
    expect(count(after, refused)).toBe(count(before, refused) + 1);
    const series = after.samples.filter((s) => s.name.startsWith('kb_http_request_duration_seconds'));
    expect(series.length).toBeGreaterThan(0);
    for (const s of series) expect(Object.keys(s.labels)).toEqual(expect.arrayContaining(['method', 'route', 'status']));
    // The route label is the matched pattern: an id in the path never becomes a label value.
    expect(series.some((s) => s.labels.route?.includes(unknownKb))).toBe(false);
    expect(series.some((s) => s.labels.route === '/v1/knowledge-bases/:kbId')).toBe(true);
  });

  it('counts a request refused by the key check (401) under the route it was for', async () => {
    const labels = { method: 'GET', route: '/v1/agents', status: '401' };
    const before = sample(await scrape(h), 'kb_http_requests_total', labels) ?? 0;
    expect((await h.app.request('/v1/agents')).status).toBe(401);
    expect(sample(await scrape(h), 'kb_http_requests_total', labels)).toBe(before + 1);
  });

  it('counts unknown paths under one "unmatched" route label, never the raw path', async () => {
    const labels = { method: 'GET', route: 'unmatched', status: '404' };
    const before = sample(await scrape(h), 'kb_http_requests_total', labels) ?? 0;
    expect((await h.app.request('/no/such/path/123')).status).toBe(404);
    const exp = await scrape(h);
    expect(sample(exp, 'kb_http_requests_total', labels)).toBe(before + 1);
    // Raw paths as labels would let any client grow the series without bound.
    expect(exp.samples.some((s) => s.labels.route?.includes('/no/such'))).toBe(false);
  });

  it('reports kb_queue_jobs{state="waiting"} equal to the queue\'s waiting count after a PATCH adds sources', async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'metrics');
    const created = await h.app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': key } });
    expect(created.status).toBe(201);
    const { kbId } = (await created.json()) as { kbId: string };
    const before = await scrape(h);
    expect(sample(before, 'kb_queue_jobs', { state: 'prioritized' })).toBe(0);

    const patch = new FormData();
    patch.set('knowledge_base_texts', JSON.stringify(['one', 'two', { title: 'three', text: 'three' }]));
    const res = await h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'PATCH', body: patch, headers: { 'X-API-Key': key } });
    expect(res.status, await res.text()).toBe(200);

    // Extraction jobs wait with a fair-share priority: BullMQ counts them as prioritized.
    // The three texts of the request wait as one batch job.
    const waiting = await h.queue.getPrioritizedCount();
    expect(waiting).toBe(1);
    const after = await scrape(h);
    expect(sample(after, 'kb_queue_jobs', { state: 'prioritized' })).toBe(waiting);
    expect(sample(after, 'kb_queue_jobs', { state: 'active' })).toBe(0);
    expect(sample(after, 'kb_queue_jobs', { state: 'completed' })).toBe(0);
  });
});

describe('GET /metrics after a worker finishes sources', () => {
  let h: Harness;
  let key: string;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    // URL_FETCH_ALLOW_PRIVATE is left unset: a loopback URL is refused before any connection.
    h = await createHarness({ JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50', METRICS_TOKEN: TOKEN });
    key = await h.key('ws_metrics_worker');
  });
  afterAll(async () => {
    await worker?.close();
    await h.close();
  });

  it('moves the job and extraction figures by exactly one ready text and one fetch_blocked URL', async () => {
    const readyText = { type: 'text', status: 'ready', code: '' };
    const blockedUrl = { type: 'url', status: 'failed', code: 'fetch_blocked' };
    const before = await scrape(h);
    const jobsBefore = before.samples.filter((s) => s.name === 'kb_jobs_finished_total');
    const txtCountBefore = sample(before, 'kb_extract_duration_seconds_count', { format: 'txt' }) ?? 0;
    const txtBytesBefore = sample(before, 'kb_extract_bytes_total', { format: 'txt' }) ?? 0;

    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify(['Opening hours are nine to five.']));
      f.set('knowledge_base_urls', JSON.stringify(['http://127.0.0.1:1/']));
    });
    worker = await startTestWorker(h);
    const text = await waitForDocument(h, key, kbId, docs[0]!);
    const url = await waitForDocument(h, key, kbId, docs[1]!);
    expect(text.status).toBe('ready');
    expect(url.status).toBe('failed');
    expect(url.error?.code).toBe('fetch_blocked');

    const want = (exp: Exposition): boolean =>
      (sample(exp, 'kb_jobs_finished_total', readyText) ?? 0) >= (sample(before, 'kb_jobs_finished_total', readyText) ?? 0) + 1 &&
      (sample(exp, 'kb_jobs_finished_total', blockedUrl) ?? 0) >= (sample(before, 'kb_jobs_finished_total', blockedUrl) ?? 0) + 1;
    const after = await scrapeUntil(h, want);

    expect(sample(after, 'kb_jobs_finished_total', readyText)).toBe((sample(before, 'kb_jobs_finished_total', readyText) ?? 0) + 1);
    expect(sample(after, 'kb_jobs_finished_total', blockedUrl)).toBe((sample(before, 'kb_jobs_finished_total', blockedUrl) ?? 0) + 1);
    // Nothing else was counted: two sources, two outcomes.
    const jobsAfter = after.samples.filter((s) => s.name === 'kb_jobs_finished_total');
    const total = (list: Sample[]): number => list.reduce((n, s) => n + s.value, 0);
    expect(total(jobsAfter) - total(jobsBefore)).toBe(2);

    expect(sample(after, 'kb_extract_duration_seconds_count', { format: 'txt' })).toBe(txtCountBefore + 1);
    expect(sample(after, 'kb_extract_duration_seconds_bucket', { format: 'txt', le: '+Inf' })).toBe(txtCountBefore + 1);
    expect(sample(after, 'kb_extract_bytes_total', { format: 'txt' })).toBeGreaterThan(txtBytesBefore);
    // A refused URL extracted nothing, so no format other than txt moved.
    const otherFormats = after.samples.filter((s) => s.name === 'kb_extract_duration_seconds_count' && s.labels.format !== 'txt');
    expect(otherFormats.map((s) => s.value)).toEqual(
      otherFormats.map((s) => sample(before, 'kb_extract_duration_seconds_count', s.labels) ?? 0),
    );

    const counts = await h.queue.getJobCounts('completed', 'failed', 'waiting', 'active');
    expect(sample(after, 'kb_queue_jobs', { state: 'waiting' })).toBe(counts.waiting);
    expect(sample(after, 'kb_queue_jobs', { state: 'completed' })).toBe(counts.completed);
    expect(sample(after, 'kb_queue_jobs', { state: 'failed' })).toBe(counts.failed);
  });
});

describe('GET /metrics: the webhook delivery queue', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => h.close());

  it('reports kb_webhook_queue_jobs by state, equal to the delivery queue\'s own counts', async () => {
    const queue = openWebhookQueue(h.config, 'api');
    try {
      // Jobs no worker takes: one waiting, two delayed (as a retry waits).
      await queue.add('deliver', { probe: 1 });
      await queue.add('deliver', { probe: 2 }, { delay: 3_600_000 });
      await queue.add('deliver', { probe: 3 }, { delay: 3_600_000 });
      const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'failed');
      expect(counts).toMatchObject({ waiting: 1, delayed: 2, active: 0 });
      const exp = await scrape(h);
      for (const state of ['waiting', 'delayed', 'active', 'failed', 'completed', 'prioritized'] as const) {
        const want = (await queue.getJobCounts(state))[state];
        expect(sample(exp, 'kb_webhook_queue_jobs', { state }), state).toBe(want);
      }
      expect(sample(exp, 'kb_webhook_queue_jobs', { state: 'delayed' })).toBe(2);
      // The ingest queue's gauge counts only its own jobs.
      expect(sample(exp, 'kb_queue_jobs', { state: 'delayed' })).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});

describe('GET /metrics is closed by default', () => {
  let h: Harness;
  let open: Harness;
  const operator = { Authorization: `Basic ${Buffer.from('ops:metrics-secret').toString('base64')}` };
  beforeAll(async () => {
    // METRICS_REQUIRE_AUTH is not set: its default holds.
    h = await createHarness({ METRICS_TOKEN: TOKEN, BULL_BOARD_USER: 'ops', BULL_BOARD_PASSWORD: 'metrics-secret' });
    open = await createHarness({ METRICS_REQUIRE_AUTH: 'false' });
  });
  afterAll(async () => {
    await h.close();
    await open.close();
  });

  it('defaults METRICS_REQUIRE_AUTH to true', () => {
    expect(loadConfig({}).METRICS_REQUIRE_AUTH).toBe(true);
  });

  it('answers 401 without credentials, with challenges for both schemes and nothing of the figures', async () => {
    const res = await h.app.request('/metrics');
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/\bBearer realm=/);
    expect(challenge).toMatch(/\bBasic realm=/);
    const body = await res.text();
    expect(body).not.toContain('kb_http_requests_total');
    expect(JSON.parse(body)).toMatchObject({ status: 401, error: 'Unauthorized', path: '/metrics' });
  });

  it('answers 401 to a wrong token, a token with a character more or less, and wrong Basic credentials', async () => {
    const wrong = [
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { Authorization: 'Bearer ' },
      { Authorization: TOKEN },
      { Authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` },
      { Authorization: `Basic ${Buffer.from('ops:metrics-secreT').toString('base64')}` },
    ];
    for (const headers of wrong) expect((await h.app.request('/metrics', { headers })).status, headers.Authorization).toBe(401);
  });

  it('answers the figures to the metrics token as a bearer token', async () => {
    const res = await h.app.request('/metrics', { headers: SCRAPER });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kb_http_requests_total');
  });

  it('answers the figures to the Bull Board credentials as HTTP Basic', async () => {
    const res = await h.app.request('/metrics', { headers: operator });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kb_http_requests_total');
  });

  it('answers 401 to everyone when no credential is configured, saying which settings open it', async () => {
    const closed = await createHarness();
    try {
      const res = await closed.app.request('/metrics', { headers: SCRAPER });
      expect(res.status).toBe(401);
      expect(await res.text()).toMatch(/METRICS_TOKEN.*METRICS_REQUIRE_AUTH=false/);
    } finally {
      await closed.close();
    }
  });

  it('answers anyone with METRICS_REQUIRE_AUTH=false, the opt-out for a private network', async () => {
    const res = await open.app.request('/metrics');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kb_http_requests_total');
  });

  it('refuses a metrics token shorter than 16 characters at start-up', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});
