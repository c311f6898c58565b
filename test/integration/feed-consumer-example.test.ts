import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/main.js';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { spawnWatched } from '../helpers/child-output.js';
import { waitFor } from '../helpers/wait.js';
import { createKbWith, startTestWorker } from '../helpers/worker-harness.js';

let served: ServedApi;
let worker: RunningWorker;

beforeAll(async () => {
  served = await serveApi();
  worker = await startTestWorker(served.h);
});
afterAll(async () => {
  await worker?.close();
  await served?.close();
});

describe('examples/feed-consumer.ts', () => {
  it('drops every chunk and exits 0 when its knowledge base is deleted', async () => {
    const key = await served.h.key('ws-example-consumer');
    const { kbId } = await createKbWith(served.h, key, (f) => f.set('knowledge_base_texts', JSON.stringify(['The example follows this text.', 'And this one.'])));
    await waitFor('the knowledge base to settle', async () => {
      const res = await served.h.app.request(`/v1/knowledge-bases/${kbId}`, { headers: { 'X-API-Key': key } });
      return ((await res.json()) as { status: string }).status === 'ready';
    });
    // The example keeps its mirror in a file of the caller's choosing: a temp folder's, not the repository's.
    const index = join(mkdtempSync(join(tmpdir(), 'feed-consumer-')), 'mirror.json');
    const { child, stdout, stderr, exited } = spawnWatched(process.execPath, ['--import', 'tsx', 'examples/feed-consumer.ts', kbId, index], {
      env: { PATH: process.env.PATH, API: `http://127.0.0.1:${served.port}`, KEY: key },
    });
    try {
      await waitFor('the example to load the listing', async () => (stdout().includes('loaded 2 chunks') ? true : undefined), { describe: stderr });
      const del = await served.h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
      expect(del.status).toBe(204);
      expect(await exited, stderr()).toBe(0);
      expect(stdout()).toContain(`knowledge_base.deleted ${kbId}: every chunk dropped -> 0 chunks`);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
