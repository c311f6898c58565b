import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/runtime/config.js';

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, HOST: '0.0.0.0', MAX_FILE_BYTES: 26_214_400, LOG_LEVEL: 'info', URL_FETCH_ALLOW_PRIVATE: false });
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
  });

  it('lists every bad variable in one error, one line each', () => {
    let err: unknown;
    try {
      loadConfig({ PORT: 'abc', MAX_FILE_BYTES: '-1', LOG_LEVEL: 'loud', URL_FETCH_ALLOW_PRIVATE: 'maybe', REDIS_URL: 'http://x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as Error).message.split('\n').slice(1);
    expect(lines).toHaveLength(5);
    expect((err as Error).message).toContain('PORT: must be a whole number');
    expect((err as Error).message).toContain('MAX_FILE_BYTES: must be at least 1');
    expect((err as Error).message).toContain('REDIS_URL: must start with redis:// or rediss://');
  });

  it('requires the Bull Board user and password together', () => {
    expect(() => loadConfig({ BULL_BOARD_USER: 'ops' })).toThrow(/BULL_BOARD_PASSWORD: BULL_BOARD_USER and BULL_BOARD_PASSWORD must be set together/);
  });

  it('bounds slow clients by default: headers within 30 s, a whole request within 5 min', () => {
    expect(loadConfig({})).toMatchObject({ HTTP_HEADERS_TIMEOUT_MS: 30_000, HTTP_REQUEST_TIMEOUT_MS: 300_000 });
  });

  it('refuses a headers timeout above the request timeout, and a timeout under one second', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not be above HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS: must be at least 1000/);
  });

  it('caps the start-up wait for Redis at 10 s unless set, and refuses a cap under 100 ms', () => {
    expect(loadConfig({}).REDIS_STARTUP_BACKOFF_MAX_MS).toBe(10_000);
    expect(loadConfig({ REDIS_STARTUP_BACKOFF_MAX_MS: '1000' }).REDIS_STARTUP_BACKOFF_MAX_MS).toBe(1_000);
    expect(() => loadConfig({ REDIS_STARTUP_BACKOFF_MAX_MS: '50' })).toThrow(/REDIS_STARTUP_BACKOFF_MAX_MS: must be at least 100/);
  });

  it('reconciles every minute unless set, and refuses an interval under a second', () => {
    expect(loadConfig({}).RECONCILE_INTERVAL_MS).toBe(60_000);
    expect(loadConfig({ RECONCILE_INTERVAL_MS: '5000' }).RECONCILE_INTERVAL_MS).toBe(5_000);
    expect(() => loadConfig({ RECONCILE_INTERVAL_MS: '999' })).toThrow(/RECONCILE_INTERVAL_MS: must be at least 1000/);
  });

  it('accepts SANDBOX_ADDRESS_SPACE_MB of 0 (no limit) or of at least EXTRACT_MEMORY_MB + 1536, and refuses less', () => {
    expect(loadConfig({}).SANDBOX_ADDRESS_SPACE_MB).toBeUndefined();
    expect(loadConfig({ SANDBOX_ADDRESS_SPACE_MB: '0' }).SANDBOX_ADDRESS_SPACE_MB).toBe(0);
    expect(loadConfig({ EXTRACT_MEMORY_MB: '512', SANDBOX_ADDRESS_SPACE_MB: '2048' }).SANDBOX_ADDRESS_SPACE_MB).toBe(2048);
    expect(() => loadConfig({ EXTRACT_MEMORY_MB: '512', SANDBOX_ADDRESS_SPACE_MB: '2047' })).toThrow(
      /SANDBOX_ADDRESS_SPACE_MB: must be 0 \(no limit\) or at least EXTRACT_MEMORY_MB \+ 1536/,
    );
    expect(() => loadConfig({ SANDBOX_ADDRESS_SPACE_MB: '2048' })).toThrow(/SANDBOX_ADDRESS_SPACE_MB/);
    expect(() => loadConfig({ SANDBOX_ADDRESS_SPACE_MB: '-1' })).toThrow(/SANDBOX_ADDRESS_SPACE_MB: must be at least 0/);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', BULL_BOARD_USER: '', BULL_BOARD_PASSWORD: '' }).PORT).toBe(3000);
  });

  it('limits URL fetches per host by default, and refuses a zero limit or a spacing the slot holders could not wait out', () => {
    expect(loadConfig({})).toMatchObject({ URL_FETCH_MAX_PER_HOST: 2, URL_FETCH_HOST_SPACING_MS: 250 });
    expect(() => loadConfig({ URL_FETCH_MAX_PER_HOST: '0' })).toThrow(/URL_FETCH_MAX_PER_HOST: must be at least 1/);
    expect(() => loadConfig({ URL_FETCH_HOST_SPACING_MS: '-5' })).toThrow(/URL_FETCH_HOST_SPACING_MS: must be at least 0/);
    // 99 holders one second apart: the last would wait past its own fetch deadline.
    expect(() => loadConfig({ URL_FETCH_MAX_PER_HOST: '100', URL_FETCH_HOST_SPACING_MS: '1000' })).toThrow(/URL_FETCH_HOST_SPACING_MS: \(URL_FETCH_MAX_PER_HOST - 1\)/);
    expect(loadConfig({ URL_FETCH_MAX_PER_HOST: '100', URL_FETCH_HOST_SPACING_MS: '100' }).URL_FETCH_MAX_PER_HOST).toBe(100);
  });
});
