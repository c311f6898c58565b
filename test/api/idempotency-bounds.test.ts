import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { multipartForm, textsField, type FormPart } from '../helpers/multipart-body.js';
import { call, createKb, expectErrorBody } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const MAX_BODY = 512;
const MAX_KEYS = 3;

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ IDEMPOTENCY_MAX_BODY_BYTES: String(MAX_BODY), IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE: String(MAX_KEYS) });
});
afterAll(async () => h.close());

const patchWith = (key: string, kbId: string, idem: string, parts: FormPart[]) =>
  call(h.app, 'PATCH', `${KB_PATH}/${kbId}`, { key, body: multipartForm(parts), headers: { 'Idempotency-Key': idem } });

/** The idempotency records (not the index) under the harness prefix, with their sizes. */
async function recordSizes(workspaceId: string): Promise<number[]> {
  const keys = (await h.allKeys()).filter((k) => k.includes(`{idem:${workspaceId}}:`) && !k.endsWith(':index'));
  return Promise.all(keys.map((k) => h.redis.strlen(k)));
}

describe('Idempotency-Key records are bounded', () => {
  it('keeps a large answer as the knowledge base id only, and replays the knowledge base as it is', async () => {
    const key = await h.key('ws-idem-large');
    const texts = Array.from({ length: 30 }, (_, i) => `text number ${i} of a knowledge base whose view is large`);
    const kb = await createKb(h, key, 'Large view', [textsField(texts)]);
    const first = await patchWith(key, kb.kbId, 'large-1', [textsField(['one more'])]);
    expect(first.status, first.text).toBe(200);
    expect(first.text.length).toBeGreaterThan(MAX_BODY * 4);

    const sizes = await recordSizes('ws-idem-large');
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeLessThan(MAX_BODY);

    const again = await patchWith(key, kb.kbId, 'large-1', [textsField(['one more'])]);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.body).toEqual(first.body);
    expect(again.body.files).toHaveLength(31);
  });

  it('keeps a small answer verbatim', async () => {
    const key = await h.key('ws-idem-small');
    const kb = await createKb(h, key, 'Small');
    const first = await patchWith(key, kb.kbId, 'small-1', [textsField(['a'])]);
    const sizes = await recordSizes('ws-idem-small');
    expect(sizes[0]).toBeGreaterThan(first.text.length);
  });

  it('answers 429 to a new key once the workspace holds its most, runs nothing, and still replays the kept ones', async () => {
    const key = await h.key('ws-idem-full');
    const kb = await createKb(h, key, 'Full');
    for (let i = 0; i < MAX_KEYS; i++) expect((await patchWith(key, kb.kbId, `full-${i}`, [textsField([`t${i}`])])).status).toBe(200);
    expect(await h.store.idempotency.count('ws-idem-full')).toBe(MAX_KEYS);

    const past = await patchWith(key, kb.kbId, 'full-past', [textsField(['one too many'])]);
    expectErrorBody(past, 429, KB_PATH, { message: 'any' });
    expect(Number(past.headers.get('retry-after'))).toBeGreaterThan(0);
    const now = await call(h.app, 'GET', `${KB_PATH}/${kb.kbId}`, { key });
    expect(now.body.files).toHaveLength(MAX_KEYS);

    const replay = await patchWith(key, kb.kbId, 'full-0', [textsField(['t0'])]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const otherKey = await h.key('ws-idem-other');
    const other = await createKb(h, otherKey, 'Other');
    expect((await patchWith(otherKey, other.kbId, 'full-past', [textsField(['x'])])).status).toBe(200);
  });

  it('does not count a key that was freed', async () => {
    const key = await h.key('ws-idem-freed');
    const kb = await createKb(h, key, 'Freed');
    const refused = await call(h.app, 'PATCH', `${KB_PATH}/${kb.kbId}`, {
      key,
      headers: { 'Idempotency-Key': 'freed-1', 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(refused.status).toBe(415);
    expect(await h.store.idempotency.count('ws-idem-freed')).toBe(0);
  });
});
