import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { filePart, multipartForm, textBytes } from '../helpers/multipart-body.js';
import { RawClient, multipartPieces, requestHead } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait.js';
import { call, createKb } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const mp = multipartPieces('slow-boundary');
const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;
/** Node looks for expired connections about once a second; past this a slow client was not cut off. */
const CUT_OFF_SLACK_MS = 6_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const stageKeys = async (s: ServedApi): Promise<string[]> => (await s.h.allKeys()).filter((k) => k.includes(':stage:'));

/** Writes one byte of `data` a second until the connection closes or `data` runs out; returns the ms until the close. */
async function dribble(client: RawClient, data: string, started: number): Promise<number> {
  for (const byte of data) {
    if (!(await client.write(byte))) break;
    if (await client.closesWithin(1_000)) break;
  }
  await client.closed;
  return performance.now() - started;
}

/** A PATCH whose headers and first 300 KB of a file arrive at once (a stage holds bytes in Redis), then nothing more. */
async function startSlowUpload(s: ServedApi, key: string, kbId: string): Promise<RawClient> {
  const client = await RawClient.open(s.port);
  const head = requestHead('PATCH', `${KB_PATH}/${kbId}`, { 'X-API-Key': key, 'Content-Type': mp.contentType, 'Content-Length': 10 * 1024 * 1024 });
  await client.write(head + mp.fileHead('slow.txt'));
  await client.write(textBytes(300_000));
  return client;
}

describe('slow clients are cut off by the server timeouts', () => {
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      // Only the server's own timeouts are under test here.
      UPLOAD_MIN_BYTES_PER_SECOND: '0',
      MAX_UPLOADS_PER_KEY: '1',
    });
    key = await s.h.key('ws-slowloris');
  });
  afterAll(async () => s.close());

  it('closes a connection whose headers arrive one byte a second once HTTP_HEADERS_TIMEOUT_MS has passed', async () => {
    const client = await RawClient.open(s.port);
    const started = performance.now();
    const head = requestHead('GET', '/v1/agents', { 'X-API-Key': key, 'X-Padding': 'p'.repeat(200) });
    const closedAfter = await dribble(client, head, started);
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(closedAfter).toBeLessThan(HEADERS_TIMEOUT_MS + CUT_OFF_SLACK_MS);
    expect(client.sent).toBeLessThan(head.length);
    // Node answers 408 before it closes (or just closes); never a 200 to a request that never finished.
    for (const res of client.responses) expect(res.status).toBe(408);
  });

  it('ends an upload whose body trickles after the headers once HTTP_REQUEST_TIMEOUT_MS has passed, and keeps nothing of it', async () => {
    const kb = await createKb(s.h, key, 'Slow body');
    const before = { kb: (await call(s.h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key })).body, jobs: await s.h.queue.getJobCounts() };
    const started = performance.now();
    const client = await startSlowUpload(s, key, kb.kbId);
    await waitFor('the first piece of the file to be staged', async () => (await stageKeys(s)).length > 0);
    const closedAfter = await dribble(client, 'x'.repeat(60), started);
    expect(closedAfter).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_OFF_SLACK_MS);
    for (const res of client.responses) expect(res.status).toBe(408);
    await waitFor('the staged bytes to be dropped', async () => (await stageKeys(s)).length === 0, { timeoutMs: 5_000 });
    expect((await call(s.h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key })).body).toEqual(before.kb);
    expect(await s.h.queue.getJobCounts()).toEqual(before.jobs);
    // MAX_UPLOADS_PER_KEY is 1: the ended upload gave its slot back.
    const next = await call(s.wire, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, body: multipartForm([filePart('next.txt', 'after the timeout')]) });
    expect(next.status, next.text).toBe(200);
  });
});

describe('a body below the minimum upload rate', () => {
  let s: ServedApi;
  let key: string;
  beforeAll(async () => {
    s = await serveApi({ UPLOAD_MIN_RATE_WINDOW_SECONDS: '2' });
    key = await s.h.key('ws-min-rate');
  });
  afterAll(async () => s.close());

  it('is answered 408 in the error body over the socket long before the request timeout, and keeps nothing', async () => {
    const kb = await createKb(s.h, key, 'Below the rate');
    const client = await startSlowUpload(s, key, kb.kbId);
    // On a busy machine the answer can come before a poll sees the staged piece: either will do.
    let staged = false;
    await waitFor('the first piece of the file to be staged', async () => (staged ||= (await stageKeys(s)).length > 0) || client.responses.length > 0);
    void dribble(client, 'x'.repeat(60), performance.now());
    const res = await client.response(0, 10_000);
    expect(res.status).toBe(408);
    expect(res.json).toMatchObject({ status: 408, error: 'Request Timeout', path: KB_PATH });
    expect(res.json.message).toMatch(/slower than 16384 bytes per second for 2 s/);
    expect(await client.closesWithin(5_000)).toBe(true);
    await waitFor('the staged bytes to be dropped', async () => (await stageKeys(s)).length === 0, { timeoutMs: 5_000 });
  });
});

describe('100 slow uploads at once', () => {
  const KEYS = 4;
  const PER_KEY = 4;
  let s: ServedApi;
  beforeAll(async () => {
    s = await serveApi({ MAX_UPLOADS_PER_KEY: String(PER_KEY), MAX_UPLOAD_CONCURRENCY: String(KEYS * PER_KEY), UPLOAD_MIN_BYTES_PER_SECOND: '0' });
  });
  afterAll(async () => s.close());

  it("refuses the uploads past each key's slots with 429 at once and still answers another key's GET within a second", async () => {
    const uploaders = await Promise.all(
      Array.from({ length: KEYS }, async (_, i) => {
        const key = await s.h.key(`ws-uploader-${i}`);
        return { key, kbId: (await createKb(s.h, key, `Uploader ${i}`)).kbId };
      }),
    );
    const readerKey = await s.h.key('ws-reader');
    const readerKb = (await createKb(s.h, readerKey, 'Reader')).kbId;
    const timedGet = async (): Promise<number> => {
      const started = performance.now();
      const res = await call(s.wire, 'GET', `${KB_PATH}/${readerKb}`, { key: readerKey });
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    const idle = [await timedGet(), await timedGet(), await timedGet()];

    const clients = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const { key, kbId } = uploaders[i % KEYS]!;
        const client = await RawClient.open(s.port);
        await client.write(requestHead('PATCH', `${KB_PATH}/${kbId}`, { 'X-API-Key': key, 'Content-Type': mp.contentType, 'Content-Length': 10 * 1024 * 1024 }));
        await client.write(mp.fileHead(`slow-${i}.txt`) + textBytes(1024).toString());
        return client;
      }),
    );
    try {
      const refused = await waitFor(
        'every upload past the slots to be refused',
        () => {
          const answered = clients.filter((c) => c.responses.length > 0);
          return answered.length >= 100 - KEYS * PER_KEY ? answered : undefined;
        },
        { timeoutMs: 10_000, describe: () => `${clients.filter((c) => c.responses.length > 0).length} answered` },
      );
      expect(refused.map((c) => c.responses[0]!.status)).toEqual(Array(100 - KEYS * PER_KEY).fill(429));
      expect(Number(refused[0]!.responses[0]!.headers['retry-after'])).toBeGreaterThan(0);

      // The admitted ones keep trickling while another key reads.
      const holding = clients.filter((c) => c.responses.length === 0 && !c.isClosed);
      expect(holding).toHaveLength(KEYS * PER_KEY);
      let trickling = true;
      const trickle = (async () => {
        while (trickling) {
          await Promise.all(holding.map((c) => c.write('y'.repeat(100))));
          await sleep(200);
        }
      })();
      const loaded: number[] = [];
      for (let i = 0; i < 10; i++) {
        loaded.push(await timedGet());
        await sleep(200);
      }
      trickling = false;
      await trickle;
      console.info(
        `GET /v1/knowledge-bases/{kbId}: idle ${idle.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
          `beside ${holding.length} trickling uploads and ${refused.length} refused, max ${Math.max(...loaded).toFixed(0)} ms, ` +
          `median ${[...loaded].sort((a, b) => a - b)[5]!.toFixed(0)} ms`,
      );
      for (const ms of loaded) expect(ms).toBeLessThan(1_000);
      expect(clients.filter((c) => c.responses.length > 0)).toHaveLength(100 - KEYS * PER_KEY);
    } finally {
      for (const c of clients) c.destroy();
    }
    await waitFor('the staged bytes of the dropped uploads to go', async () => (await stageKeys(s)).length === 0, { timeoutMs: 5_000 });
    const { key, kbId } = uploaders[0]!;
    const next = await waitFor('the slots to be free again', async () => {
      const res = await call(s.wire, 'PATCH', `${KB_PATH}/${kbId}`, { key, body: multipartForm([filePart('after.txt', 'slots are free')]) });
      return res.status === 429 ? undefined : res;
    }, { timeoutMs: 5_000 });
    expect(next.status, next.text).toBe(200);
  }, 60_000);
});
