import { describe, expect, it } from 'vitest';
import { checkSourceUrl, MAX_SOURCE_URL_LENGTH } from '../../shared/url-policy.js';

describe('checkSourceUrl', () => {
  it('accepts an https URL and returns its normalized href', () => {
    expect(checkSourceUrl('HTTPS://Example.COM:443/a/../b?q=1#frag')).toEqual({
      ok: true,
      url: 'https://example.com/b?q=1#frag',
    });
  });

  it('normalizes odd IPv4 spellings to a dotted quad (the address rule applies at fetch time)', () => {
    for (const raw of ['http://2130706433/', 'http://127.1/', 'http://0x7f.1/', 'http://017700000001/']) {
      expect(checkSourceUrl(raw)).toEqual({ ok: true, url: 'http://127.0.0.1/' });
    }
    expect(checkSourceUrl('http://0/')).toEqual({ ok: true, url: 'http://0.0.0.0/' });
  });

  it.each([
    'file:///etc/passwd',
    'data:text/html,<h1>x',
    'ftp://example.com/file',
    'gopher://example.com/',
    'blob:https://example.com/uuid',
    'javascript:alert(1)',
    'ws://example.com/',
    '/relative/path',
    'example.com/no-scheme',
    'http://',
    '',
  ])('refuses %s as not an absolute http or https URL', (raw) => {
    const result = checkSourceUrl(raw);
    expect(result.ok).toBe(false);
  });

  it('names the scheme rule in the message', () => {
    expect(checkSourceUrl('file:///etc/passwd')).toEqual({ ok: false, message: 'must be an absolute http or https URL' });
  });

  it.each(['http://user:pw@example.com/', 'http://user@example.com/', 'https://:secret@example.com/'])(
    'refuses %s because it carries credentials',
    (raw) => {
      expect(checkSourceUrl(raw)).toEqual({ ok: false, message: 'must not contain a user name or password' });
    },
  );

  it('refuses non-strings', () => {
    for (const raw of [undefined, null, 42, { href: 'http://example.com/' }, ['http://example.com/']]) {
      expect(checkSourceUrl(raw)).toEqual({ ok: false, message: 'must be a string' });
    }
  });

  it('accepts a URL of exactly 2048 characters and refuses one of 2049', () => {
    const base = 'https://example.com/';
    const exact = base + 'a'.repeat(MAX_SOURCE_URL_LENGTH - base.length);
    expect(checkSourceUrl(exact)).toEqual({ ok: true, url: exact });
    expect(checkSourceUrl(exact + 'a')).toEqual({ ok: false, message: 'must be at most 2048 characters' });
  });

  it('refuses a URL that only grows past 2048 characters once percent-encoded', () => {
    const raw = 'https://example.com/' + 'é'.repeat(1000);
    expect(raw.length).toBeLessThan(MAX_SOURCE_URL_LENGTH);
    expect(checkSourceUrl(raw).ok).toBe(false);
  });
});
