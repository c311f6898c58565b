import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../shared/redis/redis.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'pw-7d3e-not-for-logs';

describe('npm start output', () => {
  let redis: RedisServerHandle;
  beforeAll(async () => {
    redis = await startRedisServer({ args: ['--requirepass', PASSWORD] });
  });
  afterAll(async () => redis.stop());

  it('never prints the Redis password, neither in the banner nor in the logs', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
      cwd: root,
      env: { ...process.env, REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', REDIS_KEY_PREFIX: 'tstartout' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => output.includes('kb-ingest is up') && resolve());
      child.once('exit', (code) => reject(new Error(`start exited with ${code}:\n${output}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(output).toContain(`Redis at redis://:***@127.0.0.1:${redis.port}`);
    expect(output).not.toContain(PASSWORD);
  });
});

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactUrl('rediss://user:secret@redis.example:6380/2')).toBe('rediss://user:***@redis.example:6380/2');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl('not a url with secret')).toBe('(unparsable URL)');
  });
});
