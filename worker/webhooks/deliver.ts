import { randomUUID } from 'node:crypto';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { deliverEventJobSchema, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelay } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { Delivery, WebhookEvent } from '../../shared/schemas/webhook.js';
import { DEFAULT_HEALTH_POLICY, type EndpointHealthPolicy, type SlotAttempt, type WebhookStore } from '../../shared/store/webhook-store.js';
import { postEvent, type AttemptOutcome, type PostConnection } from './post.js';

/** Options of the delivery processor. */
export interface DeliverOptions extends PostConnection {
  webhooks: WebhookStore;
  logger: Logger;
  /** Deadline of one attempt, connection and answer included. Default 10000. */
  timeoutMs?: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: deliveries to one endpoint at once, across workers. Default 2. */
  maxPerEndpoint?: number;
  /** When a failing endpoint is backed off and disabled. Default {@link DEFAULT_HEALTH_POLICY}. */
  health?: EndpointHealthPolicy;
  /** The waits between attempts, for a record's `nextAttemptAt`. Default {@link WEBHOOK_RETRY_DELAYS_MS}. */
  retryDelaysMs?: readonly number[];
}

export interface DeliveryResult {
  status: 'delivered' | 'skipped';
  reason?: string;
}

/** Thrown for an attempt worth repeating; BullMQ waits the schedule's next step. */
class RetryableDeliveryError extends Error {
  override name = 'RetryableDeliveryError';
}

/** The longest a delivery waits for a busy endpoint before it looks again. */
const BUSY_RECHECK_MS = 2_000;
/** A lease outlives the attempt's deadline by this much, so a live holder never loses it. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Processes one delivery job: loads the webhook (a deleted or disabled one
 * gets nothing more) and the event's stored body, takes one of the
 * endpoint's delivery slots (a busy or backed-off endpoint hands the job back
 * to the queue, delayed, without spending an attempt), signs it for this
 * attempt with every live secret and POSTs it through the same guarded
 * connector as URL sources. A 2xx ends the job; 5xx, 408, 429, timeouts and
 * connection errors are retried on the schedule; any other answer, or a
 * refused destination, ends it at once. Every attempt is recorded in the
 * webhook's history, which also keeps the endpoint's health.
 */
export function createDeliveryProcessor(opts: DeliverOptions) {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxPerEndpoint = opts.maxPerEndpoint ?? 2;
  const policy = opts.health ?? DEFAULT_HEALTH_POLICY;
  const delays = opts.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  return async (job: Job, jobToken?: string): Promise<DeliveryResult> => {
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

    const slotToken = randomUUID();
    const slot = await opts.webhooks.acquireSlot(webhookId, slotToken, { leaseMs: timeoutMs + LEASE_MARGIN_MS, maxPerEndpoint });
    if (slot.kind === 'gone') return { status: 'skipped', reason: 'webhook deleted' };
    if (slot.kind === 'disabled') return { status: 'skipped', reason: 'webhook disabled' };
    if (slot.kind !== 'ok') return handBack(job, jobToken, slot, log);

    const event = JSON.parse(body) as WebhookEvent;
    const started = performance.now();
    const secrets = hook.previousSecret ? [hook.secret, hook.previousSecret] : [hook.secret];
    const outcome = await postEvent({ url: hook.url, secrets, eventId, body }, timeoutMs, opts);
    const last = attempt >= (job.opts.attempts ?? 1);
    const entry = deliveryRecord(event, attempt, outcome, outcome.retryable && !last, delays, performance.now() - started);
    const state = await opts.webhooks.recordDelivery(webhookId, entry, { ok: outcome.ok, token: slotToken, policy });
    log.info({ statusCode: entry.statusCode, error: entry.error, willRetry: entry.willRetry, ms: entry.durationMs, endpoint: state }, outcome.ok ? 'event delivered' : 'event not delivered');
    if (state === 'disabled') log.warn('webhook disabled: its endpoint has failed every delivery for too long');
    if (outcome.ok) return { status: 'delivered' };
    if (outcome.retryable && state !== 'disabled') throw new RetryableDeliveryError(outcome.error ?? 'not delivered');
    throw new UnrecoverableError(outcome.error ?? 'not delivered');
  };
}

/** The history entry of one attempt. */
function deliveryRecord(event: WebhookEvent, attempt: number, outcome: AttemptOutcome, willRetry: boolean, delays: readonly number[], ms: number): Delivery {
  const now = Date.now();
  return {
    eventId: event.id,
    type: event.type,
    kbId: event.data.kbId ?? null,
    documentId: event.data.documentId ?? null,
    siteId: event.data.siteId ?? null,
    attempt,
    statusCode: outcome.statusCode ?? null,
    error: outcome.error ?? null,
    willRetry,
    nextAttemptAt: willRetry ? new Date(now + webhookRetryDelay(attempt, delays)).toISOString() : null,
    durationMs: Math.round(ms),
    attemptedAt: new Date(now).toISOString(),
  };
}

/**
 * Puts the job back in the queue for later without spending an attempt
 * (BullMQ's DelayedError); it keeps its fair-share priority. A busy endpoint
 * is looked at again soon, a backed-off one when its back-off ends; a little
 * jitter keeps the jobs of one endpoint from waking together.
 */
async function handBack(job: Job, token: string | undefined, slot: Extract<SlotAttempt, { retryInMs: number }>, log: Logger): Promise<never> {
  const wait = slot.kind === 'busy' ? Math.min(slot.retryInMs, BUSY_RECHECK_MS) : slot.retryInMs;
  const delayMs = wait + Math.floor(Math.random() * Math.min(500, wait + 1));
  log.debug({ endpoint: slot.kind, delayMs }, 'endpoint not taking deliveries now; job delayed');
  await job.moveToDelayed(Date.now() + delayMs, token);
  throw new DelayedError();
}
