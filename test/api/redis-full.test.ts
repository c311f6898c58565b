import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { bullSourceQueue } from '../../shared/queue/jobs.js';
import { serializeError } from '../../shared/runtime/logger.js';
import { capturingLogger } from '../helpers/log-capture.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { filePart, textsField } from '../helpers/multipart-body.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';
import { call, createKb, expectErrorBody, patchKb } from './support.js';

const KB_PATH = '/v1/knowledge-bases';
const TEXT_MARKER = 'zebra-marker-7b1f in a document text';
const FILE_MARKER = 'okapi-marker-93c2 inside an uploaded file';

/** The ways a file's bytes could appear in a JSON log line. */
function encodings(s: string): string[] {
  const bytes = Buffer.from(s);
  return [s, bytes.toString('base64'), bytes.toString('hex'), [...bytes.subarray(0, 12)].join(',')];
}

describe('a Redis at maxmemory', () => {
  let redis: RedisServerHandle;
  let h: Harness;
  let app: ReturnType<typeof createApp>;
  let key: string;
  let lines: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    // The high-water mark is off so that the upload reaches Redis and meets its OOM reply.
    h = await createHarness({ REDIS_URL: redis.url, REDIS_UPLOAD_HIGH_WATER_PERCENT: '100' });
    const { logger, lines: captured } = capturingLogger();
    lines = captured;
    app = createApp({ config: h.config, redis: h.redis, store: h.store, queue: bullSourceQueue(h.queue, 2), logger, ingestQueue: h.queue });
    key = await h.key('ws-redis-full');
  });
  afterAll(async () => {
    await h.redis.config('SET', 'maxmemory', '0');
    await h.close();
    await redis.stop();
  });

  it('answers 503 with Retry-After for writes, keeps answering reads, and logs no text, file bytes or stack trace', async () => {
    const kb = await createKb({ ...h, app }, key, 'Full');
    await h.redis.config('SET', 'maxmemory', '1');
    try {
      const text = await patchKb({ ...h, app }, key, kb.kbId, [textsField([TEXT_MARKER])]);
      expectErrorBody(text, 503, KB_PATH);
      expect(Number(text.headers.get('retry-after'))).toBeGreaterThan(0);

      const file = await patchKb({ ...h, app }, key, kb.kbId, [filePart('notes.txt', `${FILE_MARKER}\n`.repeat(50))]);
      expectErrorBody(file, 503, KB_PATH);

      const read = await call(app, 'GET', `${KB_PATH}/${kb.kbId}`, { key });
      expect(read.status, read.text).toBe(200);
      expect(read.body.files).toHaveLength(0);
    } finally {
      await h.redis.config('SET', 'maxmemory', '0');
    }
    const refused = lines.filter((l) => l.includes('a dependency is unavailable'));
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused.some((l) => /OOM|EXECABORT/.test(l))).toBe(true);
    const all = lines.join('\n');
    for (const marker of [...encodings(TEXT_MARKER), ...encodings(FILE_MARKER)]) expect(all).not.toContain(marker);
    expect(all, 'no stack trace in a log line').not.toMatch(/\\n\s+at |"stack"/);
  });
});

describe('serializeError', () => {
  it('keeps class, message, code and the throw site, and drops the stack, command, args and previousErrors', () => {
    const err = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      code: 'EXECABORT',
      command: { name: 'evalsha', args: ['sha', '1', 'key', 'secret payload'] },
      args: ['secret payload'],
      previousErrors: [Object.assign(new Error('OOM'), { command: { args: ['secret payload'] } })],
    });
    const out = serializeError(err);
    expect(out).toMatchObject({ name: 'Error', message: err.message, code: 'EXECABORT' });
    expect(out.stack).toBeUndefined();
    expect(out.at).toMatch(/redis-full\.test\.ts:\d+:\d+/);
    expect(out.at).not.toContain(process.cwd());
    expect(JSON.stringify(out)).not.toMatch(/\n\s+at /);
    expect(JSON.stringify(out)).not.toContain('secret payload');
  });

  it('keeps the message of a plain { message } object, as connection error handlers log it, and nothing else of it', () => {
    expect(serializeError({ message: 'connect ECONNREFUSED 127.0.0.1:6390', args: ['hidden'] })).toEqual({ message: 'connect ECONNREFUSED 127.0.0.1:6390' });
    expect(serializeError(42)).toEqual({ message: 'non-error value (number)' });
  });

  it('follows a cause through the same filter', () => {
    const inner = Object.assign(new Error('inner'), { args: ['hidden'] });
    const out = serializeError(new Error('outer', { cause: inner }));
    expect(out.cause).toMatchObject({ message: 'inner' });
    expect(JSON.stringify(out)).not.toContain('hidden');
  });
});
