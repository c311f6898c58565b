import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The three headers of a Standard Webhooks request. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a delivery as the Standard Webhooks specification says: HMAC-SHA256
 * of `id.timestamp.body` keyed with the base64-decoded part of the secret
 * after `whsec_`, sent as `v1,<base64>`. With several secrets (the new and
 * the previous one during a rotation's grace period) the header carries one
 * signature per secret, space-separated, and a receiver accepts the request
 * when any of them verifies. `timestampSeconds` is the time of this attempt
 * (receivers refuse old ones), while the id stays the event's on every retry
 * so receivers can de-duplicate.
 */
export function signDelivery(secrets: string | readonly string[], id: string, timestampSeconds: number, body: string): SignatureHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
