import { startApi, type RunningApi } from '../../api/server.js';
import { createLogger } from '../../shared/runtime/logger.js';
import { createHarness, type Harness } from './app-harness.js';

export interface ServedApi {
  /** The harness on the same key prefix: keys, store and queue to inspect. */
  h: Harness;
  port: number;
  /** Requests over the socket with `fetch`, for `call()` of test/api/support.ts. */
  wire: { request(path: string, init?: RequestInit): Promise<Response> };
  close(): Promise<void>;
}

/**
 * The API as `npm run start:api` runs it (`startApi`: its HTTP server with
 * its timeouts, on loopback and a free port), under a harness's fresh key
 * prefix so a test can look at Redis and the queue beside it.
 */
export async function serveApi(env: Record<string, string> = {}): Promise<ServedApi> {
  const h = await createHarness({ PORT: '0', HOST: '127.0.0.1', ...env });
  let api: RunningApi;
  try {
    api = await startApi(h.config, createLogger('silent'));
    // It listens at once; the routes serve once Redis has been reached.
    await api.ready;
  } catch (err) {
    await h.close();
    throw err;
  }
  return {
    h,
    port: api.port,
    wire: { request: (path, init) => fetch(`http://127.0.0.1:${api.port}${path}`, init) },
    async close() {
      await api.close();
      await h.close();
    },
  };
}
