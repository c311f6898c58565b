import { describe, expect, it } from 'vitest';
import type { KnowledgeBase, components } from '../../clients/typescript/src/index.js';
import { sourceLine, sourceName } from '../../cli/progress.js';
import { hitLines, PLAIN_MARK, snippet, TTY_MARK } from '../../cli/search.js';
import { BytesSent, countingFetch, unreachableMessage } from '../../cli/transport.js';
import { createUploadProgress, formatBytes } from '../../cli/upload-progress.js';

type Source = KnowledgeBase['files'][number];
const source = (s: Partial<Source>): Source =>
  ({ documentId: 'doc_1', status: 'ready', type: 'file', content: 'x', createdAt: '', updatedAt: '', ...s }) as Source;

describe('what a row calls a source', () => {
  it('names a file by its file name, never by the title read from inside it', () => {
    expect(sourceName(source({ type: 'file', content: 'setup-guide.pdf', title: '10811.exe' }))).toBe('setup-guide.pdf');
    expect(sourceName(source({ type: 'file', content: 'deck.pptx', title: 'Slide 1' }))).toBe('deck.pptx');
    expect(sourceLine(source({ type: 'file', content: 'deck.pptx', title: 'Title' }))).toMatch(/ deck\.pptx$/);
  });

  it('names a URL by its URL, a text by its title or its first words', () => {
    expect(sourceName(source({ type: 'url', content: 'https://example.com/faq', title: 'FAQ' }))).toBe('https://example.com/faq');
    expect(sourceName(source({ type: 'text', content: 'Opening hours are 9 to 5.', title: 'Hours' }))).toBe('Hours');
    expect(sourceName(source({ type: 'text', content: 'Opening hours are nine to five\non weekdays, and ten to two on Saturdays.' }))).toBe(
      'Opening hours are nine to five on weekda…',
    );
  });
});

describe('a search hit', () => {
  const hit: components['schemas']['SearchHit'] = {
    score: 3.14159,
    matchedTerms: ['refund'],
    highlight: 'Fees &amp; <mark>refunds</mark> are paid\n within &lt;30&gt; days',
    chunk: { id: 'chk_1', documentId: 'doc_1', index: 0, charStart: 0, charEnd: 10, tokens: 3, text: '', headings: ['Policies', 'Refunds'], filename: 'terms.pdf', title: 'Untitled', pageStart: 4 },
  };

  it('shows rank, score, the file name, the heading path and the snippet with the match marked', () => {
    expect(hitLines(hit, 1, PLAIN_MARK)).toBe('1. 3.14  terms.pdf (p. 4)\n   Policies > Refunds\n   Fees & **refunds** are paid within <30> days');
  });

  it('marks matched words in bold on a terminal', () => {
    expect(snippet('a <mark>b</mark> c', TTY_MARK)).toBe('a \x1b[1mb\x1b[22m c');
  });

  it('names a URL hit by its URL and a text hit by its title', () => {
    expect(hitLines({ ...hit, chunk: { ...hit.chunk, filename: undefined, url: 'https://example.com/a', pageStart: undefined, headings: [] } } as never, 2, PLAIN_MARK)).toMatch(
      /^2\. 3\.14 {2}https:\/\/example\.com\/a\n/,
    );
    expect(hitLines({ ...hit, chunk: { ...hit.chunk, filename: undefined, title: 'Hours', pageStart: undefined } } as never, 3, PLAIN_MARK)).toMatch(/^3\. 3\.14 {2}Hours\n/);
  });
});

/** A writable that keeps what is written, as a pipe (or a terminal with `isTTY`). */
function sink(isTTY = false) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (s: string) => chunks.push(s) > 0, text: () => chunks.join('') } as unknown as NodeJS.WritableStream & { isTTY: boolean; text(): string };
}

describe('upload progress', () => {
  it('off a terminal, writes a line at the start and then one every interval while bytes go out', () => {
    let t = 0;
    const out = sink();
    const p = createUploadProgress(out, { intervalMs: 2_000, now: () => t });
    p.start('batch 1/2', 3 * 1024 * 1024);
    t = 500;
    p.update(1024 * 1024);
    t = 2_100;
    p.update(2 * 1024 * 1024);
    t = 2_200;
    p.update(2.5 * 1024 * 1024);
    p.done('batch 1/2: 3 files sent');
    expect(out.text()).toBe('batch 1/2: uploading 3.0 MB\nbatch 1/2: 2.0 MB of 3.0 MB sent\nbatch 1/2: 3 files sent\n');
  });

  it('on a terminal, redraws one line with a bar and clears it when the batch is answered', () => {
    let t = 0;
    const out = sink(true);
    const p = createUploadProgress(out, { now: () => t });
    p.start('batch 1/1', 2048);
    t = 200;
    p.update(1024);
    p.done('done');
    expect(out.text()).toBe(`\r\x1b[2K[--------------------] batch 1/1: 0 B of 2.0 KB` + `\r\x1b[2K[##########----------] batch 1/1: 1.0 KB of 2.0 KB\r\x1b[2Kdone\n`);
  });

  it('formats sizes', () => {
    expect([formatBytes(35), formatBytes(1536), formatBytes(90 * 1024 * 1024)]).toEqual(['35 B', '1.5 KB', '90.0 MB']);
  });
});

describe('countingFetch', () => {
  it('counts a multipart body as the connection reads it, and sends it whole with its boundary', async () => {
    const sent = new BytesSent();
    const seen: number[] = [];
    sent.listener = (n) => seen.push(n);
    let received = '';
    let contentType = '';
    const base = (async (url: string, init: RequestInit) => {
      contentType = new Headers(init.headers).get('content-type') ?? '';
      const reader = (init.body as ReadableStream<Uint8Array>).getReader();
      const before = sent.bytes;
      const first = await reader.read();
      // Nothing is counted before the connection reads it.
      expect(before).toBe(0);
      received += Buffer.from(first.value!).toString('latin1');
      for (let r = await reader.read(); !r.done; r = await reader.read()) received += Buffer.from(r.value).toString('latin1');
      return new Response('{}', { status: 200 });
    }) as unknown as typeof fetch;
    const form = new FormData();
    form.append('knowledge_base_files', new Blob([new Uint8Array(200_000).fill(65)]), 'a.txt');
    await countingFetch(sent, base)('http://127.0.0.1:9/v1/x', { method: 'POST', body: form });
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(received).toContain('filename="a.txt"');
    expect(sent.bytes).toBe(Buffer.byteLength(received, 'latin1'));
    expect(sent.bytes).toBeGreaterThan(200_000);
    expect(seen.length).toBeGreaterThan(1);
  });
});

describe('a service that cannot be reached', () => {
  const failed = (cause: unknown) => new TypeError('fetch failed', { cause });

  it('names the address, the code and the reason', () => {
    const err = failed(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), { code: 'ECONNREFUSED' }));
    expect(unreachableMessage(err, 'http://127.0.0.1:3000')).toBe(
      'cannot reach http://127.0.0.1:3000 (ECONNREFUSED: connection refused). Is the service running? Set KB_INGEST_URL to its address if it runs elsewhere.',
    );
  });

  it('reads the code inside an AggregateError (a name with several addresses)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:3000'), { code: 'ECONNREFUSED' });
    expect(unreachableMessage(failed(new AggregateError([refused])), 'http://localhost:3000')).toContain('(ECONNREFUSED: connection refused)');
    expect(unreachableMessage(failed(Object.assign(new Error('getaddrinfo ENOTFOUND kb.invalid'), { code: 'ENOTFOUND' })), 'http://kb.invalid')).toContain('(ENOTFOUND: host not found)');
  });

  it('leaves other errors alone', () => {
    expect(unreachableMessage(new Error('404 not_found: no such knowledge base'), 'http://127.0.0.1:3000')).toBeUndefined();
    expect(unreachableMessage(new TypeError('x is not a function'), 'http://127.0.0.1:3000')).toBeUndefined();
  });
});
