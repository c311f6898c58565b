import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { LARGE_TEXT_BYTES } from '../../api/http/multipart.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { filePart, multipartForm, nameField, textBytes, textsField, urlsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, kbKeys, patchKb, withDeadline, type ApiResponse } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const ANSWER_MS = 10_000;
const BOUNDARY = 'limits-boundary';

/**
 * A request body the test feeds by hand: `send` pushes bytes, `end` finishes
 * it, `abort` fails it. The API reads it as it would a slow client's socket.
 */
function handFedBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    send: (data: string | Uint8Array) => controller.enqueue(typeof data === 'string' ? new TextEncoder().encode(data) : data),
    end: () => controller.close(),
    abort: () => controller.error(new Error('client went away')),
  };
}

const fieldHead = (name: string): string => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`;
const fileHead = (filename: string): string =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
const closing = `\r\n--${BOUNDARY}--\r\n`;

async function sendHandFed(h: Harness, key: string, kbId: string, body: ReadableStream<Uint8Array>): Promise<ApiResponse> {
  const init = {
    method: 'PATCH',
    headers: { 'X-API-Key': key, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    duplex: 'half',
  } as RequestInit;
  const res = await h.app.request(`${KB_PATH}/${kbId}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

describe('JSON-array fields', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws-arrays');
  });
  afterAll(async () => h.close());

  it('refuses a texts array longer than MAX_SOURCES_PER_REQUEST without looking at its elements', async () => {
    const kb = await createKb(h, key, 'Arrays');
    // 1,000,000 invalid elements: checking each would answer with a million messages.
    const field = { name: 'knowledge_base_texts', value: `[${Array(1_000_000).fill('1').join(',')}]` };
    const res = await withDeadline(patchKb(h, key, kb.kbId, [field]), ANSWER_MS, 'huge texts array');
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_texts'] });
    expect(res.body.validationErrors.knowledge_base_texts).toMatch(/1000000 elements; at most 100/);
    expect(Object.keys(res.body.validationErrors)).toHaveLength(1);
    expect(res.text.length).toBeLessThan(2_000);
  });

  it('refuses a URL array longer than MAX_SOURCES_PER_REQUEST the same way', async () => {
    const kb = await createKb(h, key, 'Urls');
    const res = await patchKb(h, key, kb.kbId, [urlsField(Array(101).fill('https://example.com/'))]);
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_urls'] });
  });

  it('lists at most 20 field errors and counts the rest', async () => {
    const kb = await createKb(h, key, 'Many errors');
    const res = await patchKb(h, key, kb.kbId, [urlsField(Array(50).fill('ftp://example.com/'))]);
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_urls[0]', 'knowledge_base_urls[19]', 'more'] });
    expect(Object.keys(res.body.validationErrors)).toHaveLength(21);
    expect(res.body.validationErrors.more).toBe('30 more field errors not listed');
  });
});

describe('text that is not well-formed Unicode', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws-unicode');
  });
  afterAll(async () => h.close());

  it.each([
    ['a text', '["lone \\ud800 surrogate"]', 'knowledge_base_texts[0]'],
    ['a title', '[{"title":"bad \\udc00","text":"fine"}]', 'knowledge_base_texts[0]'],
    ['the second text', '["fine","also \\ud83d"]', 'knowledge_base_texts[1]'],
  ])('answers 400 naming the element for a lone surrogate in %s, and writes nothing', async (_what, json, field) => {
    const kb = await createKb(h, key, 'Unicode');
    const before = await h.allKeys();
    const res = await patchKb(h, key, kb.kbId, [{ name: 'knowledge_base_texts', value: json }]);
    expectErrorBody(res, 400, KB_PATH, { fields: [field] });
    expect(res.body.validationErrors[field]).toMatch(/well-formed Unicode/);
    expect(await h.allKeys()).toEqual(before);
  });

  it('still accepts a well-formed surrogate pair', async () => {
    const kb = await createKb(h, key, 'Emoji');
    const res = await patchKb(h, key, kb.kbId, [{ name: 'knowledge_base_texts', value: '["smile \\ud83d\\ude00"]' }]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.files[0].content).toBe('smile \u{1f600}');
  });
});

describe('limits on a whole request', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ MAX_REQUEST_BYTES: String(1024 * 1024) });
    key = await h.key('ws-request-bytes');
  });
  afterAll(async () => h.close());

  it('returns 413 once the body passes MAX_REQUEST_BYTES, and leaves no staged bytes', async () => {
    const kb = await createKb(h, key, 'Request limit');
    const before = await h.allKeys();
    const files = [0, 1, 2].map((i) => filePart(`f${i}.txt`, textBytes(400_000)));
    const res = await withDeadline(patchKb(h, key, kb.kbId, files), ANSWER_MS, 'over-limit request');
    expectErrorBody(res, 413, KB_PATH, { message: 'The request body is larger than the 1048576-byte limit' });
    expect(await h.allKeys()).toEqual(before);
  });

  it('bounds all text fields of a request together by 10 MiB', async () => {
    const big = await createHarness();
    try {
      const bigKey = await big.key('ws-text-budget');
      const bigKb = await createKb(big, bigKey, 'Text budget');
      // Each field alone is under 10 MiB; together they are not.
      const texts = textsField(['x'.repeat(6 * 1024 * 1024)]);
      const urls = { name: 'knowledge_base_urls', value: `["https://example.com/${'y'.repeat(5 * 1024 * 1024)}"]` };
      const res = await withDeadline(patchKb(big, bigKey, bigKb.kbId, [texts, urls]), ANSWER_MS, 'text budget');
      expectErrorBody(res, 413, KB_PATH, { message: 'The text fields of a request may hold at most 10485760 bytes together' });
    } finally {
      await big.close();
    }
  });

  it('answers 413 while a text field is still streaming, without waiting for it to end', async () => {
    const big = await createHarness();
    try {
      const bigKey = await big.key('ws-text-stream');
      const kb = await createKb(big, bigKey, 'Endless field');
      const body = handFedBody();
      const pending = sendHandFed(big, bigKey, kb.kbId, body.stream);
      body.send(fieldHead('knowledge_base_texts'));
      body.send('["');
      // 14 MiB of one field (past the text budget and its slack for part headers), then the client stalls.
      for (let i = 0; i < 14; i++) body.send('z'.repeat(1024 * 1024));
      const res = await withDeadline(pending, ANSWER_MS, 'endless text field');
      expect(res.status, res.text).toBe(413);
      body.abort();
    } finally {
      await big.close();
    }
  });
});

describe('the name field', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws-name-field');
  });
  afterAll(async () => h.close());

  it.each(['knowledge_base_name', 'name'])('answers 400 once %s passes about 2 KB, while it is still streaming', async (field) => {
    const kb = await createKb(h, key, 'Long name');
    const body = handFedBody();
    const pending = sendHandFed(h, key, kb.kbId, body.stream);
    body.send(fieldHead(field));
    // 4 KiB of name, then the client stalls: only a stop at the name's own bound answers.
    for (let i = 0; i < 4; i++) body.send('n'.repeat(1024));
    const res = await withDeadline(pending, ANSWER_MS, 'long name field');
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_name'] });
    expect(res.body.validationErrors.knowledge_base_name).toBe('must be at most 512 characters');
    body.abort();
  });

  it('accepts a name of 512 four-byte characters (2,048 bytes)', async () => {
    const kb = await createKb(h, key, '\u{1F600}'.repeat(512));
    expect([...kb.name]).toHaveLength(512);
  });
});

describe('upload slots and slow bodies', () => {
  let h: Harness;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    h = await createHarness({ MAX_UPLOADS_PER_KEY: '2', UPLOAD_MIN_RATE_WINDOW_SECONDS: '2' });
    keyA = await h.key('ws-slots-a');
    keyB = await h.key('ws-slots-b');
  });
  afterAll(async () => h.close());

  it('gives each key its own share of upload slots, and serves other keys meanwhile', async () => {
    const kbA = await createKb(h, keyA, 'Slow uploader');
    const kbB = await createKb(h, keyB, 'Other tenant');
    const slow = [handFedBody(), handFedBody()];
    const held = slow.map((b) => sendHandFed(h, keyA, kbA.kbId, b.stream));
    for (const b of slow) b.send(`${fileHead('slow.txt')}first bytes of a slow file`);
    // The two slow uploads hold key A's share once their first file part is seen.
    const third = await waitFor(
      'a third upload from key A to be refused',
      async () => {
        const res = await patchKb(h, keyA, kbA.kbId, [filePart('third.txt', 'third file')]);
        return res.status !== 200 ? res : undefined;
      },
      { timeoutMs: ANSWER_MS },
    );
    expectErrorBody(third, 429, KB_PATH, { message: 'any' });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    // Requests without files do not need a slot; another key's upload is served.
    const textOnly = await patchKb(h, keyA, kbA.kbId, [textsField(['no file here'])]);
    expect(textOnly.status, textOnly.text).toBe(200);
    const other = await withDeadline(patchKb(h, keyB, kbB.kbId, [filePart('b.txt', 'tenant B file')]), ANSWER_MS, 'key B upload');
    expect(other.status, other.text).toBe(200);

    for (const b of slow) b.abort();
    for (const res of await Promise.all(held)) expect(res.status).toBe(400);
    const after = await patchKb(h, keyA, kbA.kbId, [filePart('fourth.txt', 'slots are free again')]);
    expect(after.status, after.text).toBe(200);
  });

  it('ends a body that stays below the minimum rate with 408 and stages nothing', async () => {
    const kb = await createKb(h, keyB, 'Trickle');
    const before = await h.allKeys();
    const body = handFedBody();
    const pending = sendHandFed(h, keyB, kb.kbId, body.stream);
    body.send(`${fileHead('trickle.txt')}a few bytes, then almost nothing`);
    const res = await withDeadline(pending, ANSWER_MS, 'trickling upload');
    expectErrorBody(res, 408, KB_PATH, { message: 'any' });
    expect(res.body.message).toMatch(/slower than 16384 bytes per second/);
    body.abort();
    expect(await h.allKeys()).toEqual(before);
  });

  it('accepts a body that arrives in pieces faster than the minimum rate', async () => {
    const kb = await createKb(h, keyB, 'Steady');
    const body = handFedBody();
    const pending = sendHandFed(h, keyB, kb.kbId, body.stream);
    body.send(fileHead('steady.txt'));
    for (let i = 0; i < 8; i++) body.send(textBytes(64 * 1024));
    body.send(closing);
    body.end();
    const res = await withDeadline(pending, ANSWER_MS, 'steady upload');
    expect(res.status, res.text).toBe(200);
    expect(res.body.files.at(-1).sizeBytes).toBe(8 * 64 * 1024);
  });
});

describe('upload slots of one API process', () => {
  let h: Harness;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    h = await createHarness({ MAX_UPLOAD_CONCURRENCY: '2', MAX_UPLOADS_PER_KEY: '2', UPLOAD_MIN_BYTES_PER_SECOND: '0' });
    keyA = await h.key('ws-process-a');
    keyB = await h.key('ws-process-b');
  });
  afterAll(async () => h.close());

  it('answers 503 with Retry-After to any key once the process streams MAX_UPLOAD_CONCURRENCY uploads, stages nothing for it, and takes uploads again once they end', async () => {
    const kbA = await createKb(h, keyA, 'Holds every slot');
    const kbB = await createKb(h, keyB, 'Turned away');
    const slow = [handFedBody(), handFedBody()];
    const held = slow.map((b) => sendHandFed(h, keyA, kbA.kbId, b.stream));
    for (const b of slow) b.send(`${fileHead('slow.txt')}first bytes of a slow file`);
    const before = (await kbKeys(h, kbB.kbId)).sort();
    const refused = await waitFor(
      'an upload from another key to be refused while the process is full',
      async () => {
        const res = await patchKb(h, keyB, kbB.kbId, [filePart('b.txt', 'tenant B file')]);
        return res.status !== 200 ? res : undefined;
      },
      { timeoutMs: ANSWER_MS },
    );
    expectErrorBody(refused, 503, KB_PATH, { message: 'any' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await kbKeys(h, kbB.kbId)).sort()).toEqual(before);

    // Requests without files need no slot, unless their text fields are large.
    const textOnly = await patchKb(h, keyB, kbB.kbId, [textsField(['no file here'])]);
    expect(textOnly.status, textOnly.text).toBe(200);
    const largeText = await patchKb(h, keyB, kbB.kbId, [textsField(['x'.repeat(LARGE_TEXT_BYTES / 2 + 1024), 'y'.repeat(LARGE_TEXT_BYTES / 2 + 1024)])]);
    expectErrorBody(largeText, 503, KB_PATH, { message: 'any' });

    for (const b of slow) b.abort();
    for (const res of await Promise.all(held)) expect(res.status).toBe(400);
    const after = await patchKb(h, keyB, kbB.kbId, [filePart('b.txt', 'slots are free again')]);
    expect(after.status, after.text).toBe(200);
  });
});

describe('Redis memory high-water mark', () => {
  let redis: RedisServerHandle;
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    h = await createHarness({ REDIS_URL: redis.url, REDIS_UPLOAD_HIGH_WATER_PERCENT: '50' });
    key = await h.key('ws-high-water');
  });
  afterAll(async () => {
    await h.close();
    await redis.stop();
  });

  it('refuses uploads and text-only PATCHes with 503 and Retry-After above the mark, before writing', async () => {
    const kb = await createKb(h, key, 'Nearly full');
    const info = await h.redis.info('memory');
    const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
    // used is now about 70% of maxmemory: above the 50% mark, below the hard limit.
    await h.redis.config('SET', 'maxmemory', String(Math.round(used / 0.7)));
    try {
      // Creating the knowledge base took a reading of Redis memory, trusted for a second.
      await waitFor(
        'a rename to meet the mark',
        async () => ((await patchKb(h, key, kb.kbId, [nameField('Renamed')])).status === 503 ? true : undefined),
        { timeoutMs: ANSWER_MS },
      );
      const before = await h.allKeys();
      const res = await patchKb(h, key, kb.kbId, [filePart('a.txt', textBytes(1000))]);
      expectErrorBody(res, 503, KB_PATH, { message: 'any' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await h.allKeys()).toEqual(before);
      // Small texts add up as well as files do: a text-only PATCH waits too.
      const texts = await patchKb(h, key, kb.kbId, [textsField(['small text'])]);
      expectErrorBody(texts, 503, KB_PATH, { message: 'any' });
      const keyed = await call(h.app, 'PATCH', `${KB_PATH}/${kb.kbId}`, {
        key,
        body: multipartForm([textsField(['small text'])]),
        headers: { 'Idempotency-Key': 'high-water-1' },
      });
      expectErrorBody(keyed, 503, KB_PATH, { message: 'any' });
      expect(await h.allKeys()).toEqual(before);
    } finally {
      await h.redis.config('SET', 'maxmemory', '0');
    }
    // The gate trusts one reading of Redis memory for a second; then uploads resume.
    const resumed = await waitFor(
      'uploads to resume',
      async () => {
        const res = await patchKb(h, key, kb.kbId, [filePart('a.txt', textBytes(1000))]);
        return res.status !== 503 ? res : undefined;
      },
      { timeoutMs: ANSWER_MS },
    );
    expect(resumed.status, resumed.text).toBe(200);
  });
});

describe('multipart header limits', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness();
    key = await h.key('ws-headers');
  });
  afterAll(async () => h.close());

  it('answers 400 for a part whose header block passes the 16 KiB parser cap', async () => {
    const kb = await createKb(h, key, 'Headers');
    const headers = Array.from({ length: 3000 }, (_, i) => `X-Pad-${i}: v`).join('\r\n');
    const raw = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="knowledge_base_texts"\r\n${headers}\r\n\r\n["x"]${closing}`;
    const res = await withDeadline(
      call(h.app, 'PATCH', `${KB_PATH}/${kb.kbId}`, {
        key,
        body: raw,
        headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      }),
      ANSWER_MS,
      'header bomb',
    );
    expectErrorBody(res, 400, KB_PATH, { message: 'The multipart body is malformed' });
  });

  it('names the refused file part and its file name on a 415', async () => {
    const kb = await createKb(h, key, 'Which part');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const res = await patchKb(h, key, kb.kbId, [filePart('good.txt', 'fine text'), filePart('photo.pdf', png)]);
    expectErrorBody(res, 415, KB_PATH, { fields: ['knowledge_base_files[1]'] });
    expect(res.body.validationErrors['knowledge_base_files[1]']).toMatch(/^photo\.pdf: /);
  });
});
