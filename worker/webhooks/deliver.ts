import type { LookupFunction, Socket } from 'node:net';
import { UnrecoverableError, type Job } from 'bullmq';
import { Agent, request } from 'undici';
import type { PrivateAccess } from '../../shared/address-policy.js';
import { deliverEventJobSchema } from '../../shared/jobs.js';
import type { Logger } from '../../shared/logger.js';
import type { Delivery, WebhookEvent } from '../../shared/schemas/webhook.js';
import { isSourceError } from '../../shared/source-errors.js';
import type { WebhookStore } from '../../shared/store/webhook-store.js';
import { checkSourceUrl } from '../../shared/url-policy.js';
import { guardedConnector, type ConnectFunction } from '../fetch/guarded-connector.js';
import { signDelivery } from './sign.js';

/** Options of the delivery processor. */
export interface DeliverOptions {
  webhooks: WebhookStore;
  logger: Logger;
  /** URL_FETCH_ALLOW_PRIVATE or URL_FETCH_ALLOW_CIDRS: the same address rules as URL sources. */
  allowPrivate: PrivateAccess;
  /** Deadline of one attempt, connection and answer included. Default 10000. */
  timeoutMs?: number;
  /** DNS lookup and low-level connect, for tests. */
  lookup?: LookupFunction;
  connect?: ConnectFunction;
}

export interface DeliveryResult {
  status: 'delivered' | 'skipped';
  reason?: string;
}

/** Thrown for an attempt worth repeating; BullMQ waits the schedule's next step. */
class RetryableDeliveryError extends Error {
  override name = 'RetryableDeliveryError';
}

const USER_AGENT = 'kb-ingest-webhooks/0.1';
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Processes one delivery job: loads the webhook (a deleted one gets nothing
 * more) and the event's stored body, signs it for this attempt and POSTs it
 * through the same guarded connector as URL sources, so the address is
 * checked after DNS and the socket goes to the checked address. A 2xx ends
 * the job; 5xx, 408, 429, timeouts and connection errors are retried on the
 * schedule; any other answer, or a refused destination, ends it at once.
 * Every attempt is recorded in the webhook's history.
 */
export function createDeliveryProcessor(opts: DeliverOptions) {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return async (job: Job): Promise<DeliveryResult> => {
    const parsed = deliverEventJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('invalid job data');
    const { workspaceId, webhookId, eventId } = parsed.data;
    const attempt = job.attemptsMade + 1;
    const log = opts.logger.child({ jobId: job.id, webhookId, eventId, attempt });

    const hook = await opts.webhooks.get(webhookId);
    if (!hook || hook.workspaceId !== workspaceId) return { status: 'skipped', reason: 'webhook deleted' };
    const body = await opts.webhooks.getEvent(workspaceId, eventId);
    if (body === null) {
      log.warn('the event body expired before it could be delivered');
      return { status: 'skipped', reason: 'event expired' };
    }
    const type = (JSON.parse(body) as WebhookEvent).type;

    const started = performance.now();
    const outcome = await post(hook.url, hook.secret, eventId, body, timeoutMs, opts);
    const last = attempt >= (job.opts.attempts ?? 1);
    const willRetry = outcome.retryable && !last;
    const entry: Delivery = {
      eventId,
      type,
      attempt,
      statusCode: outcome.statusCode ?? null,
      error: outcome.error ?? null,
      willRetry,
      durationMs: Math.round(performance.now() - started),
      attemptedAt: new Date().toISOString(),
    };
    await opts.webhooks.recordDelivery(webhookId, entry);
    log.info({ statusCode: entry.statusCode, error: entry.error, willRetry, ms: entry.durationMs }, outcome.ok ? 'event delivered' : 'event not delivered');
    if (outcome.ok) return { status: 'delivered' };
    if (outcome.retryable) throw new RetryableDeliveryError(outcome.error ?? 'not delivered');
    throw new UnrecoverableError(outcome.error ?? 'not delivered');
  };
}

interface AttemptOutcome {
  ok: boolean;
  retryable: boolean;
  statusCode?: number;
  error?: string;
}

/** One signed POST; never throws, and its messages name no address and carry nothing of the secret. */
async function post(url: string, secret: string, eventId: string, body: string, timeoutMs: number, opts: DeliverOptions): Promise<AttemptOutcome> {
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
        ...signDelivery(secret, eventId, Date.now() / 1000, body),
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
