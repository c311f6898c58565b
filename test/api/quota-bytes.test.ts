import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, patchKb, readySource } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
let h: Harness;

beforeAll(async () => {
  // Global default: 3 sources in flight; the byte quota is set per workspace below.
  h = await createHarness({ QUOTA_SOURCES_IN_FLIGHT: '3' });
});
afterAll(async () => h.close());

const stageKeys = async () => (await h.allKeys()).filter((k) => k.includes(':stage'));
type Used = { used: number; limit: number | null };
const usage = async (key: string) => (await call(h.app, 'GET', '/v1/usage', { key })).body as { storedBytes: Used; sourcesInFlight: Used };
const sourcesOf = async (key: string, kbId: string) => ((await call(h.app, 'GET', `${KB_PATH}/${kbId}`, { key })).body as { files: unknown[] }).files;

describe('the stored-bytes quota', () => {
  it('accepts texts that fill it exactly and answers 413 one byte past it, adding nothing', async () => {
    const key = await h.key('ws-bytes-text');
    await h.store.quotas.set('ws-bytes-text', { storedBytes: 10, sourcesInFlight: 0 });
    const kb = await createKb(h, key, 'Bytes', [textsField(['abcd', 'ef'])]);
    expect((await patchKb(h, key, kb.kbId, [textsField(['ghij'])])).status).toBe(200);
    expect((await usage(key)).storedBytes).toEqual({ used: 10, limit: 10 });
    const past = await patchKb(h, key, kb.kbId, [textsField(['k'])]);
    expectErrorBody(past, 413, KB_PATH, { message: 'This workspace stores 10 bytes; 1 more would pass its quota of 10 stored bytes. Delete sources or ask the operator for more' });
    expect(await sourcesOf(key, kb.kbId)).toHaveLength(3);
    // A rename stores nothing new: the quota does not stand in its way.
    expect((await patchKb(h, key, kb.kbId, [nameField('Renamed')])).status).toBe(200);
  });

  it('refuses a file before staging it when the workspace is at its quota', async () => {
    const key = await h.key('ws-bytes-full');
    await h.store.quotas.set('ws-bytes-full', { storedBytes: 4, sourcesInFlight: 0 });
    const kb = await createKb(h, key, 'Full', [textsField(['abcd'])]);
    const res = await patchKb(h, key, kb.kbId, [filePart('a.txt', 'more bytes')]);
    expectErrorBody(res, 413, KB_PATH, { message: 'any' });
    expect(await stageKeys()).toEqual([]);
    expect(await sourcesOf(key, kb.kbId)).toHaveLength(1);
  });

  it('stages a file of exactly the bytes left, and stops one byte larger while it streams', async () => {
    const key = await h.key('ws-bytes-file');
    await h.store.quotas.set('ws-bytes-file', { storedBytes: 70_000, sourcesInFlight: 0 });
    const kb = await createKb(h, key, 'Files');
    const big = await patchKb(h, key, kb.kbId, [filePart('big.txt', 'x'.repeat(70_001))]);
    expectErrorBody(big, 413, KB_PATH, { message: 'any', fields: ['knowledge_base_files[0]'] });
    expect(await stageKeys()).toEqual([]);
    expect((await patchKb(h, key, kb.kbId, [filePart('fits.txt', 'y'.repeat(70_000))])).status).toBe(200);
    expect((await usage(key)).storedBytes).toEqual({ used: 70_000, limit: 70_000 });
  });

  it('counts an extraction in place of what it was made from, and gives the bytes back on delete', async () => {
    const key = await h.key('ws-bytes-life');
    await h.store.quotas.set('ws-bytes-life', { storedBytes: 1000, sourcesInFlight: 0 });
    const kb = await createKb(h, key, 'Life', [filePart('a.txt', 'z'.repeat(100))]);
    const documentId = kb.files[0]!.documentId as string;
    expect((await usage(key)).storedBytes.used).toBe(100);
    // A finished file keeps its text and Markdown (here 30 bytes each), no longer its upload.
    await readySource(h, kb.kbId, documentId, 't'.repeat(30));
    const after = (await usage(key)).storedBytes.used;
    expect(after).toBeGreaterThanOrEqual(60);
    expect(after).toBeLessThan(100);
    expect((await call(h.app, 'DELETE', `${KB_PATH}/${kb.kbId}/documents/${documentId}`, { key })).status).toBe(204);
    expect((await usage(key)).storedBytes.used).toBe(0);
  });

  it('frees an Idempotency-Key it refused, so the same request runs once there is room', async () => {
    const key = await h.key('ws-bytes-idem');
    await h.store.quotas.set('ws-bytes-idem', { storedBytes: 3, sourcesInFlight: 0 });
    const kb = await createKb(h, key, 'Idem', [textsField(['abc'])]);
    const send = () => call(h.app, 'PATCH', `${KB_PATH}/${kb.kbId}`, { key, body: multipartForm([textsField(['d'])]), headers: { 'Idempotency-Key': 'b-1' } });
    expect((await send()).status).toBe(413);
    await h.store.quotas.set('ws-bytes-idem', { storedBytes: 4 });
    const retried = await send();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('the sources-in-flight quota', () => {
  it('accepts sources up to it across knowledge bases and answers 429 with Retry-After past it', async () => {
    const key = await h.key('ws-in-flight');
    const one = await createKb(h, key, 'One', [textsField(['a', 'b'])]);
    const two = await createKb(h, key, 'Two', [textsField(['c'])]);
    expect((await usage(key)).sourcesInFlight).toEqual({ used: 3, limit: 3 });
    const past = await patchKb(h, key, two.kbId, [textsField(['d'])]);
    expectErrorBody(past, 429, KB_PATH, { message: 'any' });
    expect(Number(past.headers.get('retry-after'))).toBeGreaterThan(0);
    const file = await patchKb(h, key, one.kbId, [filePart('e.txt', 'file bytes')]);
    expectErrorBody(file, 429, KB_PATH, { message: 'any' });
    expect(await stageKeys()).toEqual([]);
    // Once a source ends there is room for one more.
    await readySource(h, one.kbId, one.files[0]!.documentId as string, 'a');
    expect((await patchKb(h, key, two.kbId, [textsField(['d'])])).status).toBe(200);
    expect(await sourcesOf(key, two.kbId)).toHaveLength(2);
  });

  it('takes a new knowledge base whose sources would pass it as a 429, creating nothing', async () => {
    const key = await h.key('ws-in-flight-new');
    const res = await call(h.app, 'POST', KB_PATH, { key, body: multipartForm([nameField('Four'), textsField(['1', '2', '3', '4'])]) });
    expectErrorBody(res, 429, KB_PATH, { message: 'any' });
    expect((await h.store.kbs.list('ws-in-flight-new', 0, 10)).total).toBe(0);
  });
});
