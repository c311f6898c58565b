/** Longest URL source accepted, in characters (before and after normalization). */
export const MAX_SOURCE_URL_LENGTH = 2048;

export type SourceUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * Syntax check for a URL source, shared by the API (before accepting it) and
 * the fetcher (on every redirect hop). Accepts only an absolute http or https
 * URL with a host, no user name or password, at most 2048 characters, and
 * returns the WHATWG-normalized `href` (so `http://0x7f.1/` comes back as
 * `http://127.0.0.1/`). Whether the host may be contacted is decided at fetch
 * time by the address policy, not here.
 */
export function checkSourceUrl(raw: unknown): SourceUrlCheck {
  if (typeof raw !== 'string') return refuse('must be a string');
  if (raw.length > MAX_SOURCE_URL_LENGTH) return refuse(`must be at most ${MAX_SOURCE_URL_LENGTH} characters`);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('must be an absolute http or https URL');
  }
  if (url.hostname === '') return refuse('must name a host');
  if (url.username !== '' || url.password !== '') {
    return refuse('must not contain a user name or password');
  }
  // Percent-encoding and IDNA can lengthen the URL, so the stored form is checked too.
  if (url.href.length > MAX_SOURCE_URL_LENGTH) return refuse(`must be at most ${MAX_SOURCE_URL_LENGTH} characters`);
  return { ok: true, url: url.href };
}

function refuse(message: string): SourceUrlCheck {
  return { ok: false, message };
}
