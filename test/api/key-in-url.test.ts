import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody } from './support.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = await h.key('ws-key-in-url');
});
afterAll(async () => h.close());

describe('an API key in the URL', () => {
  it.each([
    ['as api_key', (k: string) => `?api_key=${k}`],
    ['percent-encoded under another name', (k: string) => `?page=0&token=${encodeURIComponent(k).replace(/_/g, '%5F')}`],
  ])('answers 400 when the query carries the key %s, even with the same key in the header', async (_how, query) => {
    const res = await call(h.app, 'GET', `/v1/knowledge-bases${query(key)}`, { key });
    expectErrorBody(res, 400, '/v1/knowledge-bases', { message: 'any' });
    expect(res.body.message).toContain('X-API-Key header');
    expect(res.text).not.toContain(key);
  });

  it('still answers a request whose query holds no key', async () => {
    expect((await call(h.app, 'GET', '/v1/knowledge-bases?page=0', { key })).status).toBe(200);
  });
});
