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
 * after `whsec_`, sent as `v1,<base64>`. `timestampSeconds` is the time of
 * this attempt (receivers refuse old ones), while the id stays the event's
 * on every retry so receivers can de-duplicate.
 */
export function signDelivery(secret: string, id: string, timestampSeconds: number, body: string): SignatureHeaders {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const timestamp = String(Math.floor(timestampSeconds));
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
