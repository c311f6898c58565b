import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, multipartForm, nameField, textsField, type FormPart } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody, jobsOf } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-idempotency');
});
afterAll(async () => h.close());

const post = (idem: string | undefined, parts: FormPart[]) =>
  call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm(parts), headers: idem === undefined ? {} : { 'Idempotency-Key': idem } });
const patch = (kbId: string, idem: string, parts: FormPart[]) =>
  call(h.app, 'PATCH', `/v1/knowledge-bases/${kbId}`, { key, body: multipartForm(parts), headers: { 'Idempotency-Key': idem } });
const kbCount = async (): Promise<number> => (await h.store.kbs.list('ws-idempotency', 0, 100)).total;

describe('Idempotency-Key', () => {
  it('replays the first POST to a repeat of the same request, with the same body and no second knowledge base', async () => {
    const parts = [nameField('Once'), textsField(['only once']), filePart('a.txt', 'file bytes')];
    const before = await kbCount();
    const first = await post('create-once-1', parts);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // FormData picks a new boundary for each request: the digest is of the parts, not the bytes.
    const again = await post('create-once-1', parts);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await kbCount()).toBe(before + 1);
    expect(await jobsOf(h, first.body.kbId)).toHaveLength(2);
  });

  it('replays a PATCH and adds nothing the second time', async () => {
    const kb = await createKb(h, key, 'Patched once');
    const parts = [textsField(['added once'])];
    const first = await patch(kb.kbId, 'patch-once-1', parts);
    const again = await patch(kb.kbId, 'patch-once-1', parts);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const now = await call(h.app, 'GET', `/v1/knowledge-bases/${kb.kbId}`, { key });
    expect(now.body.files).toHaveLength(1);
  });

  it('answers 422 when the same key comes with a different request, and changes nothing', async () => {
    await post('reused-key-1', [nameField('First use')]);
    const before = await kbCount();
    const other = await post('reused-key-1', [nameField('Another request')]);
    expectErrorBody(other, 422, '/v1/knowledge-bases', { message: 'This Idempotency-Key was already used for a different request' });
    expect(await kbCount()).toBe(before);
  });

  it('answers 422 when the same key and body go to another path', async () => {
    const a = await createKb(h, key, 'A');
    const b = await createKb(h, key, 'B');
    await patch(a.kbId, 'path-bound-1', [nameField('renamed')]);
    expectErrorBody(await patch(b.kbId, 'path-bound-1', [nameField('renamed')]), 422, '/v1/knowledge-bases', { message: 'any' });
  });

  it('answers 409 to a repeat while the first request still runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const encoded = new Response(multipartForm([nameField('Slow first')]));
    const contentType = encoded.headers.get('content-type')!;
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(bytes.subarray(0, 20));
        await gate;
        controller.enqueue(bytes.subarray(20));
        controller.close();
      },
    });
    const firstP = h.app.request('/v1/knowledge-bases', {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Idempotency-Key': 'concurrent-1', 'Content-Type': contentType },
      body,
      duplex: 'half',
    } as RequestInit);
    const concurrent = await post('concurrent-1', [nameField('Slow first')]);
    expectErrorBody(concurrent, 409, '/v1/knowledge-bases', { message: 'any' });
    // The first request should be done soon: the repeat is told when to try again.
    expect(concurrent.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    release();
    expect((await firstP).status).toBe(201);
    const replay = await post('concurrent-1', [nameField('Slow first')]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps a 400 for replay but frees the key after a request that never finished reading its body', async () => {
    const bad = await post('kept-400-1', [{ name: 'knowledge_base_texts', value: 'not json' }]);
    expect(bad.status).toBe(400);
    const replay = await post('kept-400-1', [{ name: 'knowledge_base_texts', value: 'not json' }]);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const refused = await call(h.app, 'POST', '/v1/knowledge-bases', {
      key,
      headers: { 'Idempotency-Key': 'freed-415-1', 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(refused.status).toBe(415);
    const retried = await post('freed-415-1', [nameField('After a refused body')]);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys apart per workspace', async () => {
    const otherKey = await h.key('ws-idempotency-other');
    const mine = await post('shared-name-1', [nameField('Mine')]);
    const theirs = await call(h.app, 'POST', '/v1/knowledge-bases', {
      key: otherKey,
      body: multipartForm([nameField('Theirs')]),
      headers: { 'Idempotency-Key': 'shared-name-1' },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.kbId).not.toBe(mine.body.kbId);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable', 'tab\there'],
  ])('refuses an Idempotency-Key that is %s with 400', async (_what, value) => {
    const res = await call(h.app, 'POST', '/v1/knowledge-bases', { key, body: multipartForm([nameField('x')]), headers: { 'Idempotency-Key': value } });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { fields: ['Idempotency-Key'] });
  });

  it('stores the key only as a hash', async () => {
    await post('visible-secret-key-42', [nameField('Hashed')]);
    expect((await h.allKeys()).some((k) => k.includes('visible-secret-key-42'))).toBe(false);
  });
});
