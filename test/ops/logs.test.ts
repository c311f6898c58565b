import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
let lines: string[];
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  h = await createHarness();
  let logger;
  ({ logger, lines } = capturingLogger());
  app = createApp({ config: h.config, redis: h.redis, store: h.store, queue: bullSourceQueue(h.queue, 2), logger, ingestQueue: h.queue });
});
afterAll(async () => h.close());

describe('logs', () => {
  it('log each request as JSON with a request id, and never the key or document text', async () => {
    const key = await h.key('ws_logs');
    const secretText = 'the door code is 4711-SECRET';
    const form = new FormData();
    form.set('knowledge_base_name', 'logged');
    form.set('knowledge_base_texts', JSON.stringify([secretText]));
    const res = await app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': key, 'X-Request-Id': 'req-logs-1' } });
    expect(res.status).toBe(201);
    await app.request('/v1/knowledge-bases', { headers: { 'X-API-Key': 'kbi_wrong_key_value' } });

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = records.find((r) => r.requestId === 'req-logs-1' && r.msg === 'request');
    expect(request).toMatchObject({ method: 'POST', path: '/v1/knowledge-bases', status: 201 });
    const all = lines.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain('kbi_wrong_key_value');
    expect(all).not.toContain('4711-SECRET');
  });
});
