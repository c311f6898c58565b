import { createHmac, timingSafeEqual } from 'node:crypto';

/** Default oldest `webhook-timestamp` accepted, seconds (Standard Webhooks suggests 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The headers of a delivery, by their lower-case names (a `Headers` works too). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const header = (h: WebhookHeaders, name: string): string | undefined => {
  if (h instanceof Headers) return h.get(name) ?? undefined;
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks a delivery's Standard Webhooks signature: HMAC-SHA256 of
 * `id.timestamp.body` with any of `secrets` (`whsec_…`; pass the old and the
 * new one while a rotation is in its grace period), and a timestamp within
 * `toleranceSeconds` of now (default 300). Returns false rather than throwing.
 * `body` must be the raw request body, before any JSON parsing.
 */
export function verifyWebhook(
  secrets: string | string[],
  headers: WebhookHeaders,
  body: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, nowSeconds = Date.now() / 1000 } = {},
): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const sent = signature.split(' ').flatMap((s) => (s.startsWith('v1,') ? [Buffer.from(s.slice(3), 'base64')] : []));
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
    if (sent.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) return true;
  }
  return false;
}
