import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ RATE_LIMIT_PER_MINUTE: '3' });
});
afterAll(async () => h.close());

describe('rate limit per API key', () => {
  it('returns 429 with Retry-After past the per-minute budget, for that key only', async () => {
    const [a, b] = [await h.key('ws_rate'), await h.key('ws_rate')];
    const get = (key: string) => h.app.request('/v1/agents', { headers: { 'X-API-Key': key } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(a)).status);
    // A window boundary between the calls resets the count; then the 4th is allowed too.
    if (statuses[3] === 200) statuses.push((await get(a)).status, (await get(a)).status, (await get(a)).status);
    expect(statuses).toContain(429);
    const limited = await get(a);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ status: 429, error: 'Too Many Requests', path: '/v1/agents' });
    expect((await get(b)).status).toBe(200);
  });

  it('does not count requests that fail authentication', async () => {
    const res = await h.app.request('/v1/agents', { headers: { 'X-API-Key': 'nope' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});
