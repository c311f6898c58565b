import type { LookupFunction, Socket } from 'node:net';
import { Agent, request } from 'undici';
import type { PrivateAccess } from '../../shared/net/address-policy.js';
import { isSourceError } from '../../shared/source-errors.js';
import { checkSourceUrl } from '../../shared/net/url-policy.js';
import { guardedConnector, type ConnectFunction } from '../fetch/guarded-connector.js';
import { signDelivery } from './sign.js';

const USER_AGENT = 'kb-ingest-webhooks/0.1';
const MAX_ANSWER_BYTES = 64 * 1024;

/** How one attempt ended. */
export interface AttemptOutcome {
  ok: boolean;
  retryable: boolean;
  statusCode?: number;
  error?: string;
}

/** What one attempt sends: where, the event's id and body, and every secret that signs it. */
export interface SignedPost {
  url: string;
  secrets: readonly string[];
  eventId: string;
  body: string;
}

/** How an attempt may connect: the address rules, and for tests the DNS lookup and low-level connect. */
export interface PostConnection {
  /** URL_FETCH_ALLOW_PRIVATE or URL_FETCH_ALLOW_CIDRS: the same address rules as URL sources. */
  allowPrivate: PrivateAccess;
  lookup?: LookupFunction;
  connect?: ConnectFunction;
}

/** One signed POST; never throws, and its messages name no address and carry nothing of the secret. */
export async function postEvent({ url, secrets, eventId, body }: SignedPost, timeoutMs: number, opts: PostConnection): Promise<AttemptOutcome> {
  // The rules may have tightened since the webhook was registered.
  const checked = checkSourceUrl(url, { allowPrivate: opts.allowPrivate });
  if (!checked.ok) return { ok: false, retryable: false, error: `the URL is not allowed: it ${checked.message}` };
  const deadline = AbortSignal.timeout(timeoutMs);
  const sockets = new Set<Socket>();
  const connect = guardedConnector({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: timeoutMs,
    deadline,
    sockets,
    ...(opts.lookup && { lookup: opts.lookup }),
    ...(opts.connect && { connect: opts.connect }),
  });
  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  try {
    const res = await request(checked.url, {
      method: 'POST',
      dispatcher: agent,
      signal: deadline,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...signDelivery(secrets, eventId, Date.now() / 1000, body),
      },
      body,
    });
    await res.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { ok: true, retryable: false, statusCode: status };
    const retryable = status >= 500 || status === 408 || status === 429;
    return { ok: false, retryable, statusCode: status, error: `the receiver answered ${status}` };
  } catch (err) {
    if (isSourceError(err) && err.code === 'fetch_blocked') return { ok: false, retryable: false, error: err.message };
    if (deadline.aborted || (isSourceError(err) && err.code === 'timeout')) {
      return { ok: false, retryable: true, error: `no answer within ${timeoutMs / 1000} s` };
    }
    return { ok: false, retryable: true, error: 'the connection to the receiver failed' };
  } finally {
    for (const socket of sockets) socket.destroy();
    await agent.destroy().catch(() => undefined);
  }
}
