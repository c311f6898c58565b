import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { filePart, multipartForm, nameField, textBytes, textsField } from '../helpers/multipart-body.js';
import { RawClient, chunk, multipartPieces, requestHead, type RawResponse } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait.js';
import { call, createKb, expectErrorBody } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const mp = multipartPieces('wire-boundary');
/** A refused request answers at once; past this it has hung. */
const ANSWER_MS = 5_000;

/** The contract's error body, as it came over the socket. */
function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.body.slice(0, 300)).toBe(status);
  expect(res.json).toMatchObject({ status, path: KB_PATH });
  expect(typeof res.json.timestamp).toBe('string');
  if (message !== undefined) expect(res.json.message).toMatch(message);
}

/** What a refused request must leave as it was: every key, the queue, the knowledge base. */
async function snapshot(s: ServedApi, key: string, kbId: string) {
  const kb = await call(s.h.app, 'GET', `${KB_PATH}/${kbId}`, { key });
  expect(kb.status).toBe(200);
  return { kb: kb.body, keys: (await s.h.allKeys()).sort(), jobs: await s.h.queue.getJobCounts() };
}

const stageKeys = async (s: ServedApi): Promise<string[]> => (await s.h.allKeys()).filter((k) => k.includes(':stage:'));

const patchHead = (kbId: string, key: string, headers: Record<string, string | number>): string =>
  requestHead('PATCH', `${KB_PATH}/${kbId}`, { 'X-API-Key': key, 'Content-Type': mp.contentType, ...headers });

/** `data` as a chunked body of one-byte chunks. */
function oneByteChunks(data: Buffer): Buffer {
  return Buffer.concat([...data].map((b) => chunk(Buffer.from([b]))));
}

describe('chunked bodies and Content-Length with Transfer-Encoding', () => {
  const LIMIT = 2 * 1024 * 1024;
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({ MAX_REQUEST_BYTES: String(LIMIT) });
    key = await s.h.key('ws-chunked');
  });
  afterAll(async () => s.close());

  it('answers 413 to a chunked body that passes MAX_REQUEST_BYTES in 64 KB chunks, and stages and commits nothing', async () => {
    const kb = await createKb(s.h, key, 'Chunked');
    const before = await snapshot(s, key, kb.kbId);
    const client = await RawClient.open(s.port);
    await client.write(patchHead(kb.kbId, key, { 'Transfer-Encoding': 'chunked' }));
    // A rename the handler would commit if it ever ran to the end.
    await client.write(chunk(mp.field('knowledge_base_name', 'Renamed by an over-limit body') + mp.fileHead('big.txt')));
    const piece = chunk(textBytes(64 * 1024));
    while (client.sent < 8 * LIMIT && client.responses.length === 0 && !client.isClosed) await client.write(piece);
    const res = await client.response(0, ANSWER_MS);
    expectError(res, 413, `The request body is larger than the ${LIMIT}-byte limit`);
    // Answered while the body was still coming, not after reading all of it.
    expect(client.sent).toBeLessThan(8 * LIMIT);
    expect(await client.closesWithin(ANSWER_MS)).toBe(true);
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });

  it('answers a route that reads no body and closes the connection instead of reading a 200 MB chunked body', async () => {
    const kb = await createKb(s.h, key, 'No body read');
    const client = await RawClient.open(s.port);
    await client.write(requestHead('POST', `${KB_PATH}/${kb.kbId}/documents/doc_missing/retry`, { 'X-API-Key': key, 'Transfer-Encoding': 'chunked' }));
    const piece = chunk(Buffer.alloc(64 * 1024, 'q'));
    while (client.sent < 200 * 1024 * 1024 && !client.isClosed) await client.write(piece);
    expect(client.responses.map((r) => r.status)).toEqual([404]);
    expect(client.responses[0]!.json).toMatchObject({ status: 404, path: KB_PATH });
    // The answer closes the connection, so the server reads only what was already in flight.
    expect(client.sent).toBeLessThan(100 * 1024 * 1024);
  });

  it.each([
    ['Content-Length before Transfer-Encoding', true],
    ['Transfer-Encoding before Content-Length', false],
  ])('answers 400 and closes the connection for %s, running neither the request nor one smuggled in its body', async (_label, clFirst) => {
    const wsKey = await s.h.key(`ws-smuggle-${clFirst ? 'cl' : 'te'}`);
    const smuggledBody = mp.field('knowledge_base_name', 'smuggled') + mp.end;
    const smuggled = requestHead('POST', KB_PATH, { 'X-API-Key': wsKey, 'Content-Type': mp.contentType, 'Content-Length': Buffer.byteLength(smuggledBody) }) + smuggledBody;
    // Read by Content-Length, the body is one create; read as chunks, it ends at once and a second create follows.
    const body = `0\r\n\r\n${smuggled}`;
    const framing: Record<string, string | number> = clFirst
      ? { 'Content-Length': Buffer.byteLength(body), 'Transfer-Encoding': 'chunked' }
      : { 'Transfer-Encoding': 'chunked', 'Content-Length': Buffer.byteLength(body) };
    const client = await RawClient.open(s.port);
    await client.write(requestHead('POST', KB_PATH, { 'X-API-Key': wsKey, 'Content-Type': mp.contentType, ...framing }) + body);
    expect(await client.closesWithin(ANSWER_MS)).toBe(true);
    expect(client.responses.map((r) => r.status)).toEqual([400]);
    const list = await call(s.h.app, 'GET', KB_PATH, { key: wsKey });
    expect(list.body.totalCount).toBe(0);
  });

  it('accepts 2 MB sent in one-byte chunks (a texts field and a file) and keeps the memory it holds bounded', async () => {
    const kb = await createKb(s.h, key, 'One byte at a time');
    const TEXT = 1_000_000;
    const FILE = 1_000_000;
    const BLOCK = 10_000;
    // Framed once and sent again and again, so the client itself holds almost nothing.
    const textBlock = oneByteChunks(Buffer.alloc(BLOCK, 'a'));
    const fileBlock = oneByteChunks(textBytes(BLOCK));
    const client = await RawClient.open(s.port);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    try {
      await client.write(patchHead(kb.kbId, key, { 'Transfer-Encoding': 'chunked' }));
      await client.write(chunk(`--wire-boundary\r\nContent-Disposition: form-data; name="knowledge_base_texts"\r\n\r\n`));
      await client.write(oneByteChunks(Buffer.from('["')));
      for (let sent = 0; sent < TEXT; sent += BLOCK) await client.write(textBlock);
      await client.write(oneByteChunks(Buffer.from('"]')));
      await client.write(chunk(`\r\n${mp.fileHead('trickle.txt')}`));
      for (let sent = 0; sent < FILE; sent += BLOCK) await client.write(fileBlock);
      await client.write(Buffer.concat([chunk(mp.close), chunk('')]));
      const res = await client.response(0, 60_000);
      expect(res.status, res.body.slice(0, 300)).toBe(200);
      const added = res.json.files as { type: string; content: string; sizeBytes?: number }[];
      expect(added.find((f) => f.type === 'text')?.content.length).toBe(TEXT);
      expect(added.find((f) => f.type === 'file')?.sizeBytes).toBe(FILE);
    } finally {
      clearInterval(sampler);
      client.destroy();
    }
    // An object kept per one-byte chunk would cost some 200 bytes per byte of body (400 MB
    // here); the bound is the body twice over plus room for the heap's own growth.
    const growthMb = (peak - baseline) / 2 ** 20;
    console.info(`RSS growth while 2 MB arrived in one-byte chunks: ${growthMb.toFixed(1)} MB`);
    expect(growthMb).toBeLessThan(2 * 2 + 60);
  }, 120_000);
});

describe('the key is checked before the body is read', () => {
  const BODY = 30 * 1024 * 1024;
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({});
    key = await s.h.key('ws-auth-first');
  });
  afterAll(async () => s?.close());

  it.each([
    ['no X-API-Key', 401, 'none'],
    ['an unknown X-API-Key', 401, 'unknown'],
    ["another workspace's key", 403, 'other'],
    ['a read-only key', 403, 'read-only'],
    ['a valid key, for a knowledge base that does not exist', 404, 'missing-kb'],
  ] as const)('answers %s on a 30 MB upload with %i before reading it, and hangs up', async (_label, status, who) => {
    const kb = await createKb(s.h, key, 'Auth first');
    const keys: Record<typeof who, () => Promise<string | undefined>> = {
      none: async () => undefined,
      unknown: async () => 'kb_live_not-a-key-of-this-service',
      other: () => s.h.key('ws-auth-first-other'),
      'read-only': () => s.h.key('ws-auth-first', { readOnly: true }),
      'missing-kb': async () => key,
    };
    const sent = await keys[who]();
    const target = who === 'missing-kb' ? 'kb_does_not_exist' : kb.kbId;
    const before = await snapshot(s, key, kb.kbId);
    const head = requestHead('PATCH', `${KB_PATH}/${target}`, {
      ...(sent === undefined ? {} : { 'X-API-Key': sent }),
      'Content-Type': mp.contentType,
      'Content-Length': BODY,
    });
    const client = await RawClient.open(s.port);
    await client.write(head + mp.field('knowledge_base_name', 'Renamed by a refused request') + mp.fileHead('big.txt'));
    const piece = Buffer.alloc(64 * 1024, 'k');
    while (client.sent < BODY && !client.isClosed && client.responses.length === 0) await client.write(piece);
    expect(await client.closesWithin(ANSWER_MS)).toBe(true);
    expect(client.responses.map((r) => r.status)).toEqual([status]);
    expect(client.responses[0]!.json).toMatchObject({ status, path: KB_PATH });
    // The answer came while most of the body was still unsent: nothing waited for it.
    expect(client.sent).toBeLessThan(BODY / 2);
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });
});

describe('part-count bombs and odd boundaries', () => {
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({ MAX_UPLOADS_PER_KEY: '1' });
    key = await s.h.key('ws-parts');
  });
  afterAll(async () => s.close());

  /**
   * Sends a tenth of `body` (by Content-Length, the whole is expected) and
   * waits for the answer without sending the rest.
   */
  async function answerToFirstTenth(kbId: string, body: string): Promise<{ res: RawResponse; client: RawClient }> {
    const client = await RawClient.open(s.port);
    await client.write(patchHead(kbId, key, { 'Content-Length': Buffer.byteLength(body) }));
    await client.write(body.slice(0, Math.floor(body.length / 10)));
    const res = await client.response(0, ANSWER_MS);
    client.destroy();
    return { res, client };
  }

  it('answers 400 to 10,000 one-byte fields before the client has sent a tenth of them, and stages nothing', async () => {
    const kb = await createKb(s.h, key, 'Fields');
    const before = await snapshot(s, key, kb.kbId);
    const body = Array.from({ length: 10_000 }, (_, i) => mp.field(`f${i}`, 'x')).join('') + mp.end;
    const { res } = await answerToFirstTenth(kb.kbId, body);
    expectError(res, 400, 'The request has too many fields');
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });

  it.each([
    ['empty', ''],
    ['one-byte', 'x'],
  ])('refuses 10,000 %s file parts before the client has sent a tenth of them, stages nothing and frees the upload slot', async (_label, content) => {
    const kb = await createKb(s.h, key, 'Files');
    const before = await snapshot(s, key, kb.kbId);
    const body = Array.from({ length: 10_000 }, (_, i) => `${mp.fileHead(`e${i}.txt`)}${content}\r\n`).join('') + mp.end;
    const { res } = await answerToFirstTenth(kb.kbId, body);
    // More files than MAX_SOURCES_PER_REQUEST; an empty first file may be refused (415) before the count trips.
    if (content === '') expect([413, 415]).toContain(res.status);
    else expectError(res, 413, 'The request has more than 100 files');
    expect(res.json.status).toBe(res.status);
    await waitFor('staged bytes to be dropped', async () => (await stageKeys(s)).length === 0);
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
    // MAX_UPLOADS_PER_KEY is 1: this upload is accepted only if the refused one gave its slot back.
    const next = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, body: multipartForm([filePart('next.txt', 'the slot is free')]) });
    expect(next.status, next.text).toBe(200);
  });

  it('answers 400 at once to a boundary of 5,000 characters (RFC 2046 allows 70)', async () => {
    const kb = await createKb(s.h, key, 'Long boundary');
    const before = await snapshot(s, key, kb.kbId);
    const long = multipartPieces('b'.repeat(5_000));
    const body = long.field('knowledge_base_name', 'Renamed') + long.end;
    const client = await RawClient.open(s.port);
    await client.write(requestHead('PATCH', `${KB_PATH}/${kb.kbId}`, { 'X-API-Key': key, 'Content-Type': long.contentType, 'Content-Length': Buffer.byteLength(body) }));
    const res = await client.response(0, ANSWER_MS);
    client.destroy();
    expectError(res, 400, 'The multipart boundary must be at most 70 characters');
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });

  it('accepts a boundary of exactly 70 characters (control)', async () => {
    const kb = await createKb(s.h, key, 'Longest boundary');
    const longest = multipartPieces('b'.repeat(70));
    const res = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, {
      key,
      headers: { 'Content-Type': longest.contentType },
      body: longest.field('knowledge_base_name', 'Renamed') + longest.end,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('Renamed');
  });
});

describe('malformed multipart', () => {
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({ MAX_UPLOADS_PER_KEY: '1' });
    key = await s.h.key('ws-malformed');
  });
  afterAll(async () => s.close());

  it('answers 400 to a part header line that starts with a space (the dicer crash), and keeps serving', async () => {
    const kb = await createKb(s.h, key, 'Dicer');
    const before = await snapshot(s, key, kb.kbId);
    const body = '--wire-boundary\r\n Content-Disposition: form-data; name="knowledge_base_name"\r\n\r\n\r\n--wire-boundary--';
    const res = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, headers: { 'Content-Type': mp.contentType }, body });
    expectErrorBody(res, 400, KB_PATH, { message: 'The multipart body is malformed' });
    const alive = await call(s.wire, 'GET', `${KB_PATH}/${kb.kbId}`, { key });
    expect(alive.status).toBe(200);
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });

  it('answers 415 with the error body to multipart/form-data without a boundary', async () => {
    const kb = await createKb(s.h, key, 'No boundary');
    const res = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, {
      key,
      headers: { 'Content-Type': 'multipart/form-data' },
      body: mp.field('knowledge_base_name', 'Renamed') + mp.end,
    });
    expectErrorBody(res, 415, KB_PATH, { message: 'The request body must be multipart/form-data with a boundary' });
  });

  it.each([
    ['in a text field', `${mp.field('knowledge_base_name', 'Renamed')}--wire-boundary\r\nContent-Disposition: form-data; name="knowledge_base_texts"\r\n\r\n["cut`],
    ['in a file part past its first staged piece', `${mp.field('knowledge_base_name', 'Renamed')}${mp.fileHead('cut.txt')}${textBytes(600_000).toString()}`],
  ])('answers 400 to a body that ends %s without the closing boundary, and stages, adds and enqueues nothing', async (_label, body) => {
    const kb = await createKb(s.h, key, 'Truncated');
    const before = await snapshot(s, key, kb.kbId);
    const client = await RawClient.open(s.port);
    await client.write(patchHead(kb.kbId, key, { 'Content-Length': Buffer.byteLength(body) }) + body);
    const res = await client.response(0, ANSWER_MS);
    client.destroy();
    expectError(res, 400, 'The multipart body is malformed');
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
  });

  it('drops the staged bytes and frees the upload slot when the client goes away in the middle of a file', async () => {
    const kb = await createKb(s.h, key, 'Aborted');
    const before = await snapshot(s, key, kb.kbId);
    const client = await RawClient.open(s.port);
    await client.write(patchHead(kb.kbId, key, { 'Content-Length': 10 * 1024 * 1024 }));
    await client.write(mp.fileHead('aborted.txt'));
    // Past one flush of the stage, so bytes are in Redis when the client leaves.
    await client.write(textBytes(600_000));
    await waitFor('the first piece of the file to be staged', async () => (await stageKeys(s)).length > 0);
    client.destroy();
    await waitFor('the staged bytes to be dropped', async () => (await stageKeys(s)).length === 0, { timeoutMs: ANSWER_MS });
    expect(await snapshot(s, key, kb.kbId)).toEqual(before);
    // MAX_UPLOADS_PER_KEY is 1: accepted only once the aborted upload's slot is back.
    const next = await waitFor('an upload from the same key to be accepted', async () => {
      const res = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, body: multipartForm([filePart('next.txt', 'after the abort')]) });
      return res.status === 429 ? undefined : res;
    }, { timeoutMs: ANSWER_MS });
    expect(next.status, next.text).toBe(200);
  });
});

describe('JSON-array fields: prototype keys, the per-text limit and long fields', () => {
  const MAX_TEXT = 1024 * 1024;
  let s: ServedApi;
  let key: string;
  let kbId: string;
  beforeAll(async () => {
    s = await serveApi();
    key = await s.h.key('ws-json-fields');
    kbId = (await createKb(s.h, key, 'JSON fields')).kbId;
  });
  afterAll(async () => s.close());

  const patchTexts = (value: string) =>
    call(s.wire, 'PATCH', `${KB_PATH}/${kbId}`, { key, body: multipartForm([{ name: 'knowledge_base_texts', value }]) });

  it.each([
    ['an object with a __proto__ key instead of an array', '{"__proto__":{"x":1}}', 'knowledge_base_texts', 'must be a JSON array string'],
    ['a text object with a __proto__ key', '[{"__proto__":{"polluted":1},"text":"x"}]', 'knowledge_base_texts[0]', 'unknown field "__proto__"; allowed: title, text, metadata'],
    ['a text object with a constructor.prototype key', '["fine",{"text":"x","constructor":{"prototype":{"polluted":1}}}]', 'knowledge_base_texts[1]', 'unknown field "constructor"; allowed: title, text, metadata'],
  ])('answers 400 naming the field for %s, adds nothing and leaves Object.prototype alone', async (_label, value, field, message) => {
    const before = await snapshot(s, key, kbId);
    const res = await patchTexts(value);
    expectErrorBody(res, 400, KB_PATH, { fields: [field] });
    expect(res.body.validationErrors[field]).toBe(message);
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(probe.x).toBeUndefined();
    expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
    expect(await snapshot(s, key, kbId)).toEqual(before);
  });

  it.each([
    ['exactly 1 MiB of ASCII', 'a'.repeat(MAX_TEXT)],
    ['exactly 1 MiB of two-byte characters', 'é'.repeat(MAX_TEXT / 2)],
  ])('accepts a text of %s (the per-text limit counts UTF-8 bytes)', async (_label, text) => {
    const res = await patchTexts(JSON.stringify([text]));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.files.at(-1).content).toBe(text);
  });

  it.each([
    ['1 MiB and one byte of ASCII', 'b'.repeat(MAX_TEXT + 1)],
    ['1 MiB of two-byte characters and one byte', `${'ü'.repeat(MAX_TEXT / 2)}b`],
    ['2 MB', 'c'.repeat(2_000_000)],
  ])('answers 400 naming knowledge_base_texts[1] for a text of %s, and adds nothing', async (_label, text) => {
    const before = await snapshot(s, key, kbId);
    const res = await patchTexts(JSON.stringify(['a fine first text', { title: 'Too long', text }]));
    expectErrorBody(res, 400, KB_PATH, { fields: ['knowledge_base_texts[1]'] });
    expect(res.body.validationErrors['knowledge_base_texts[1]']).toBe(`text must be at most ${MAX_TEXT} bytes`);
    expect(await snapshot(s, key, kbId)).toEqual(before);
  });

  it("reads a 1.5 MiB texts field whole (past busboy's 1 MiB default field size), never cut and parsed", async () => {
    const first = `${'d'.repeat(800_000)}first-end`;
    const second = `${'e'.repeat(800_000)}second-end`;
    const value = JSON.stringify([first, second]);
    expect(value.length).toBeGreaterThan(1.5 * 1024 * 1024);
    const res = await patchTexts(value);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const contents = (res.body.files as { content: string }[]).map((f) => f.content);
    expect(contents).toContain(first);
    expect(contents).toContain(second);
  });
});
