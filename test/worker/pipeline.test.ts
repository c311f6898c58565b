import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractSourceJobId } from '../../shared/queue/jobs.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { guardStubs, startCanary, tinyPng, type Canary, type GuardStubs } from '../helpers/canary-server.js';
import { createKbWith, finishedJob, startTestWorker, waitForDocument } from '../helpers/worker-harness.js';
import type { RunningWorker } from '../../worker/main.js';

let h: Harness;
let key: string;
let canary: Canary;
let stubs: GuardStubs;
let worker: RunningWorker;

beforeAll(async () => {
  h = await createHarness({ JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '50', URL_FETCH_TIMEOUT_MS: '1500', MAX_FILE_BYTES: String(5 * 1024 * 1024) });
  key = await h.key('ws_worker');
  canary = await startCanary();
  stubs = guardStubs(canary);
  worker = await startTestWorker(h, { fetchOverrides: { lookup: stubs.opts().lookup!, connect: stubs.opts().connect! } });
});
afterEach(() => {
  // A broken address guard shows up here, never as traffic.
  expect(stubs.violations).toEqual([]);
});
afterAll(async () => {
  await worker.close();
  await canary.close();
  await h.close();
});

describe('extraction end to end (PATCH or POST, worker, GET document)', () => {
  it('makes a text source ready with its normalized text and given title', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) =>
      f.set('knowledge_base_texts', JSON.stringify([{ title: 'Hours', text: '  Open   9 to 5.\r\n\r\n\r\nClosed Sundays.  ' }])),
    );
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc).toMatchObject({ status: 'ready', title: 'Hours', text: 'Open   9 to 5.\n\nClosed Sundays.' });
    expect(doc.charCount).toBe(doc.text!.length);
  });

  it('extracts a Markdown file to words without markup', async () => {
    const md = '# Returns\n\nItems may be returned **within 30 days**. See [the policy](https://example.com/p).\n\n| Item | Days |\n|---|---|\n| Bike | 30 |\n';
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([md]), 'returns.md'));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc.status).toBe('ready');
    expect(doc.mimeType).toBe('text/markdown');
    expect(doc.text).toContain('Returns');
    expect(doc.text).toContain('within 30 days');
    expect(doc.text).toContain('the policy');
    expect(doc.text).toContain('Bike');
    expect(doc.text).not.toMatch(/\*\*|\]\(|\|---|^#/m);
  });

  it('extracts an HTML file, keeping the title and dropping scripts and navigation', async () => {
    const html =
      '<!doctype html><html><head><title>Shop FAQ</title><style>p{}</style></head><body><nav>Home | Shop</nav>' +
      '<main><h1>Delivery</h1><p>We deliver in 2 days.</p><script>alert(1)</script></main><footer>© Shop</footer></body></html>';
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([html]), 'faq.html'));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc).toMatchObject({ status: 'ready', title: 'Shop FAQ', mimeType: 'text/html' });
    expect(doc.text).toContain('We deliver in 2 days.');
    expect(doc.text).not.toContain('alert(1)');
    expect(doc.text).not.toContain('Home | Shop');
  });

  it('decodes a Latin-1 TXT file without replacement characters', async () => {
    const latin1 = Buffer.from('Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade. '.repeat(20), 'latin1');
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob([latin1]), 'menu.txt'));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc.status).toBe('ready');
    expect(doc.text).toContain('Café crème brûlée');
    expect(doc.text).not.toContain('\ufffd');
  });

  it('fetches a URL source and extracts the page', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify(['http://public.test/ok'])));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc).toMatchObject({ status: 'ready', title: 'Canary', text: 'Canary\n\nhello', mimeType: 'text/html' });
  });
});

describe('failures end with a code and a message', () => {
  const urlCases: [string, string, string][] = [
    ['refuses a loopback address without a packet', 'http://127.0.0.1:1/', 'fetch_blocked'],
    ['refuses a name that resolves to the metadata address', 'http://evil.test/latest/meta-data/', 'fetch_blocked'],
    ['refuses a redirect into a private address', 'http://public.test/redirect?to=http%3A%2F%2F10.0.0.1%2F', 'fetch_blocked'],
    ['reports a 404 from the origin', 'http://public.test/missing', 'http_status'],
    ['reports a name that does not resolve', 'http://no-such-host.test/', 'fetch_failed'],
    ['refuses a PNG behind a URL', 'http://public.test/png', 'unsupported_media_type'],
    ['refuses a 40 MB body', 'http://public.test/big', 'file_too_large'],
    ['gives up on an origin that trickles past the deadline', 'http://public.test/trickle', 'timeout'],
  ];
  for (const [name, url, code] of urlCases) {
    it(`${name} (${code})`, async () => {
      const before = canary.connections();
      const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url])));
      const doc = await waitForDocument(h, key, kbId, docs[0]!);
      expect(doc.status).toBe('failed');
      expect(doc.error?.code).toBe(code);
      expect(doc.error?.message.length).toBeGreaterThan(10);
      expect(doc.text).toBeNull();
      if (code === 'fetch_blocked' && !url.includes('redirect')) expect(canary.connections()).toBe(before);
    });
  }

  it('retries a 503 and ends ready when the origin recovers', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify(['http://public.test/flaky'])));
    const doc = await waitForDocument(h, key, kbId, docs[0]!);
    expect(doc).toMatchObject({ status: 'ready', text: 'recovered' });
    expect(canary.requests.filter((r) => r.path === '/flaky').length).toBe(2);
  });

  describe('retry policy', () => {
    const attemptsOf = async (kbId: string, documentId: string): Promise<number> =>
      (await finishedJob(h, extractSourceJobId({ workspaceId: 'ws_worker', kbId, documentId, run: 1 }))).attemptsMade;

    it('retries 503, 503 and ends ready on the third attempt (JOB_ATTEMPTS 3)', async () => {
      const path = '/fails/2/twice';
      const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([`http://public.test${path}`])));
      const doc = await waitForDocument(h, key, kbId, docs[0]!);
      expect(doc).toMatchObject({ status: 'ready', text: 'recovered' });
      expect(canary.requests.filter((r) => r.path === path)).toHaveLength(3);
      expect(await attemptsOf(kbId, docs[0]!)).toBe(3);
    });

    it('fails a source whose origin answers 503 past JOB_ATTEMPTS as http_status after exactly 3 attempts', async () => {
      const path = '/fails/9/always';
      const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([`http://public.test${path}`])));
      const doc = await waitForDocument(h, key, kbId, docs[0]!);
      expect(doc).toMatchObject({ status: 'failed', error: { code: 'http_status' } });
      expect(await attemptsOf(kbId, docs[0]!)).toBe(3);
      expect(canary.requests.filter((r) => r.path === path)).toHaveLength(3);
    });

    const permanent: [string, string, string][] = [
      ['a 404', 'http://public.test/status/404', 'http_status'],
      ['a blocked address', 'http://10.0.0.1/', 'fetch_blocked'],
      ['a PNG', 'http://public.test/png', 'unsupported_media_type'],
    ];
    for (const [label, url, code] of permanent) {
      it(`fails ${label} (${code}) after one attempt, without a retry`, async () => {
        const path = new URL(url).pathname;
        const before = canary.requests.filter((r) => r.path === path).length;
        const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify([url])));
        const doc = await waitForDocument(h, key, kbId, docs[0]!);
        expect(doc).toMatchObject({ status: 'failed', error: { code } });
        expect(await attemptsOf(kbId, docs[0]!)).toBe(1);
        if (url.includes('public.test')) expect(canary.requests.filter((r) => r.path === path).length - before).toBe(1);
      });
    }
  });

  it('lets a failed source be retried and records the new outcome', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.set('knowledge_base_urls', JSON.stringify(['http://public.test/missing'])));
    expect((await waitForDocument(h, key, kbId, docs[0]!)).status).toBe('failed');
    const res = await h.app.request(`/v1/knowledge-bases/${kbId}/documents/${docs[0]}/retry`, { method: 'POST', headers: { 'X-API-Key': key } });
    expect(res.status).toBe(202);
    const again = await waitForDocument(h, key, kbId, docs[0]!);
    expect(again.error?.code).toBe('http_status');
    expect(canary.requests.filter((r) => r.path === '/missing').length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the knowledge base status and counts in step with its sources', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => {
      f.set('knowledge_base_texts', JSON.stringify(['fine']));
      f.set('knowledge_base_urls', JSON.stringify(['http://public.test/png']));
    });
    for (const d of docs) await waitForDocument(h, key, kbId, d);
    const kb = (await (await h.app.request(`/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': key } })).json()) as Record<string, unknown>;
    expect(kb.status).toBe('partial');
    expect(kb.sourceCounts).toEqual({ pending: 0, processing: 0, ready: 1, failed: 1 });
  });

  it('deletes the staged bytes once a file source is ready', async () => {
    const { kbId, docs } = await createKbWith(h, key, (f) => f.append('knowledge_base_files', new Blob(['plain words']), 'a.txt'));
    await waitForDocument(h, key, kbId, docs[0]!);
    expect(await h.redis.exists(h.store.keys.blob(kbId, docs[0]!))).toBe(0);
  });

  it('refuses a PNG uploaded as a file before it is queued', async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'x');
    form.append('knowledge_base_files', new Blob([tinyPng()]), 'a.pdf');
    const res = await h.app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': key } });
    expect(res.status).toBe(415);
  });
});
