import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { waitFor } from '../helpers/wait.js';
import { filePart, multipartForm, nameField, textBytes, textsField } from '../helpers/multipart-body.js';
import { call, createKb, jobsOf, kbKeys, patchKb, withDeadline } from './support.js';

let h: Harness;
let key: string;
const WS = 'ws-concurrency';

beforeAll(async () => {
  // Six uploads from one key at once: more than the default per-key share.
  h = await createHarness({ MAX_UPLOADS_PER_KEY: '8' });
  key = await h.key(WS);
});
afterAll(async () => h.close());


/**
 * A PATCH whose body is held after `splitAt` bytes until `release()` is
 * called, so a test can act while the upload is in the middle of a file.
 */
async function heldPatch(kbId: string, form: FormData, splitAt: number) {
  const serialized = new Response(form);
  const contentType = serialized.headers.get('content-type')!;
  const bytes = new Uint8Array(await serialized.arrayBuffer());
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (let off = 0; off < splitAt; off += 64 * 1024) controller.enqueue(bytes.slice(off, Math.min(off + 64 * 1024, splitAt)));
      await gate;
      for (let off = splitAt; off < bytes.length; off += 64 * 1024) controller.enqueue(bytes.slice(off, off + 64 * 1024));
      controller.close();
    },
  });
  const response = Promise.resolve(
    h.app.request(`/v1/knowledge-bases/${kbId}`, {
      method: 'PATCH',
      headers: { 'X-API-Key': key, 'Content-Type': contentType },
      body,
      duplex: 'half',
    } as RequestInit),
  );
  return { response, release };
}

async function expectGone(kbId: string): Promise<void> {
  // Only its change feed stays (one knowledge_base.deleted, until retention ends), and its outbox
  // (that event's knowledge_base.changed, for the relay; none runs here), both expiring.
  const left = [h.store.keys.changes(kbId), h.store.keys.changesInfo(kbId), h.store.keys.outbox(kbId), h.store.keys.outboxInfo(kbId)];
  expect((await kbKeys(h, kbId)).sort()).toEqual(left.sort());
  for (const k of left) expect(await h.redis.ttl(k)).toBeGreaterThan(0);
  expect(await h.redis.zrange(h.store.keys.workspaceKbs(WS), 0, -1)).not.toContain(kbId);
  expect((await call(h.app, 'GET', `/v1/knowledge-bases/${kbId}`, { key })).status).toBe(404);
}

describe('concurrent changes of one knowledge base', () => {
  it('keeps all ten sources when ten PATCHes each add one text at the same time', async () => {
    const kb = await createKb(h, key, 'Ten writers');
    const texts = Array.from({ length: 10 }, (_, i) => `concurrent text ${i}`);
    const responses = await Promise.all(texts.map((t) => patchKb(h, key, kb.kbId, [textsField([t])])));
    for (const [i, res] of responses.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.files.map((f: { content: string }) => f.content)).toContain(texts[i]);
    }
    const final = (await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`, { key })).body;
    expect(final.files.map((f: { content: string }) => f.content).sort()).toEqual([...texts].sort());
    expect(new Set(final.files.map((f: { documentId: string }) => f.documentId)).size).toBe(10);
    expect(final.sourceCounts).toEqual({ pending: 10, processing: 0, ready: 0, failed: 0 });
    expect(final.status).toBe('in_progress');
    expect(await jobsOf(h, kb.kbId)).toHaveLength(10);
  });

  it('adds one source and one job when the same PATCH is sent twice at once without an Idempotency-Key (a double click)', async () => {
    const kb = await createKb(h, key, 'Double click');
    const parts = () => [textsField(['clicked twice']), filePart('twice.txt', 'the same bytes twice\n')];
    const [a, b] = await Promise.all([patchKb(h, key, kb.kbId, parts()), patchKb(h, key, kb.kbId, parts())]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const final = (await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`, { key })).body;
    expect(final.files.map((f: { content: string }) => f.content).sort()).toEqual(['clicked twice', 'twice.txt']);
    expect(await jobsOf(h, kb.kbId)).toHaveLength(2);
  });

  it('keeps every text and file when six PATCHes each adding both overlap', async () => {
    const kb = await createKb(h, key, 'Mixed writers');
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        patchKb(h, key, kb.kbId, [textsField([`t${i}`]), filePart(`f${i}.txt`, textBytes(200_000 + i))]),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const final = (await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`, { key })).body;
    expect(final.files).toHaveLength(12);
    expect(final.sourceCounts.pending).toBe(12);
    for (const f of final.files.filter((x: { type: string }) => x.type === 'file')) {
      const i = Number(f.content.slice(1, -4));
      expect(await h.redis.strlen(h.store.keys.blob(kb.kbId, f.documentId))).toBe(200_000 + i);
    }
    expect((await kbKeys(h, kb.kbId)).filter((k) => k.includes(':stage:'))).toEqual([]);
  });
});

describe('PATCH racing DELETE', () => {
  it('answers 404 and leaves no key when the knowledge base is deleted while a file is uploading', async () => {
    const kb = await createKb(h, key, 'Deleted mid-upload', [textsField(['existing'])]);
    const form = multipartForm([nameField('Renamed'), textsField(['late text']), filePart('big.txt', textBytes(2_000_000))]);
    const { response, release } = await heldPatch(kb.kbId, form, 1_500_000);
    // The upload is under way once its first bytes are staged.
    await waitFor('a staged upload', async () => (await kbKeys(h, kb.kbId)).some((k) => k.includes(':stage:')), { timeoutMs: 5_000 });

    const del = await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key });
    expect(del.status).toBe(204);
    release();
    const res = await withDeadline(response, 5_000, 'held PATCH');
    expect(res.status).toBe(404);
    await expectGone(kb.kbId);
    expect(await jobsOf(h, kb.kbId)).toHaveLength(1);
  });

  it('never leaves keys of a knowledge base when PATCH and DELETE are sent together', async () => {
    for (let round = 0; round < 8; round++) {
      const kb = await createKb(h, key, `Race ${round}`, [textsField(['existing']), filePart('old.txt', 'old file')]);
      const patch = () =>
        patchKb(h, key, kb.kbId, [nameField('Renamed'), textsField(['new']), filePart('new.txt', textBytes(300_000 * (round % 3) + 10))]);
      const del = () => call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key });
      const [p, d] = round % 2 === 0 ? await Promise.all([patch(), del()]) : (await Promise.all([del(), patch()])).reverse();
      expect(d!.status).toBe(204);
      expect([200, 404]).toContain(p!.status);
      await expectGone(kb.kbId);
    }
  });

  it('deletes the sources a PATCH committed just before the DELETE', async () => {
    const kb = await createKb(h, key, 'Patched then deleted');
    const res = await patchKb(h, key, kb.kbId, [textsField(['x']), filePart('f.txt', textBytes(400_000))]);
    expect(res.status).toBe(200);
    expect((await kbKeys(h, kb.kbId)).some((k) => k.includes(':blob:'))).toBe(true);
    expect((await call(h.app, 'DELETE', `/v1/knowledge-bases/${kb.kbId}`, { key })).status).toBe(204);
    await expectGone(kb.kbId);
  });
});
