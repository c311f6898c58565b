import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './schema.js';

/** An event the service delivers to a webhook. */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** Default oldest `webhook-timestamp` accepted, seconds (Standard Webhooks suggests 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The headers of a delivery: a `Headers`, Node's `req.headers`, or an object of the three by their lower-case names. */
export type WebhookHeaders =
  | Headers
  | Readonly<Record<string, string | string[] | undefined>>
  | { readonly 'webhook-id'?: string; readonly 'webhook-timestamp'?: string; readonly 'webhook-signature'?: string };

/** How a delivery is checked. */
export interface VerifyOptions {
  /** Farthest `webhook-timestamp` from now accepted, seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, seconds since the epoch (default the clock's). */
  nowSeconds?: number;
}

/** A delivery whose signature or timestamp did not verify: answer it 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const header = (h: WebhookHeaders, name: string): string | undefined => {
  if (h instanceof Headers) return h.get(name) ?? undefined;
  const v = (h as Readonly<Record<string, string | string[] | undefined>>)[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Why a delivery does not verify, or undefined when it does. */
function refusal(secrets: string | string[], headers: WebhookHeaders, body: string, opts: VerifyOptions): string | undefined {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, nowSeconds = Date.now() / 1000 } = opts;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (!/^\d+$/.test(timestamp)) return 'webhook-timestamp is not whole seconds';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return `webhook-timestamp is more than ${toleranceSeconds} s from now`;
  const sent = signature.split(' ').flatMap((s) => (s.startsWith('v1,') ? [Buffer.from(s.slice(3), 'base64')] : []));
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
    if (sent.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) return undefined;
  }
  return 'no v1 signature matches a secret';
}

/**
 * Checks a delivery's Standard Webhooks signature: HMAC-SHA256 of
 * `id.timestamp.body` with any of `secrets` (`whsec_…`; pass the new and the
 * old one while a rotation is in its grace period), and a timestamp within
 * `toleranceSeconds` of now (default 300). Returns false rather than throwing.
 * `body` must be the raw request body, before any JSON parsing.
 */
export function verifyWebhook(secrets: string | string[], headers: WebhookHeaders, body: string, opts: VerifyOptions = {}): boolean {
  return refusal(secrets, headers, body, opts) === undefined;
}

/**
 * {@link verifyWebhook}, then the event parsed from the raw `body`; throws a
 * {@link WebhookVerificationError} saying why when the delivery does not verify.
 */
export function parseWebhook(secrets: string | string[], headers: WebhookHeaders, body: string, opts: VerifyOptions = {}): WebhookEvent {
  const why = refusal(secrets, headers, body, opts);
  if (why !== undefined) throw new WebhookVerificationError(why);
  return JSON.parse(body) as WebhookEvent;
}
