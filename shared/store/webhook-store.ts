import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/redis.js';
import { ConflictError, ForbiddenError, OTHER_WORKSPACE, notFound } from '../errors.js';
import type { Delivery, WebhookEvent, WebhookEventType } from '../schemas/webhook.js';
import { runScript, withCommands, type StoreRedis } from './commands.js';
import {
  acquireWebhookSlotScript,
  deleteWebhookScript,
  enableWebhookScript,
  recordDeliveryScript,
  reserveWebhookScript,
  rotateWebhookSecretScript,
  updateWebhookScript,
  type EndpointState,
} from './scripts/webhook-scripts.js';
import { resultError } from './scripts/result-error.js';
import type { KeySpace } from './keys.js';
import { parseDelivery, parseWebhook, type StoredWebhook } from './webhook-records.js';

export { webhookView, type StoredWebhook } from './webhook-records.js';
export type { EndpointState } from './scripts/webhook-scripts.js';

/** What a PATCH changes; a field left undefined stays as it is, a null description clears it. */
export interface WebhookChanges {
  url?: string | undefined;
  events?: WebhookEventType[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** The `disabledReason` of a webhook turned off by a PATCH. */
export const DISABLED_BY_PATCH = 'disabled by PATCH /v1/webhooks/{webhookId} (enabled: false)';

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
}

/** Delivery attempts kept per webhook, newest first. */
export const DELIVERIES_KEPT = 1_000;
/**
 * How long an event body is kept (seconds): longer than the whole retry
 * schedule (about 28 hours), so every retry sends the same bytes.
 */
export const EVENT_TTL_SECONDS = 3 * 86_400;

/**
 * When an endpoint that keeps failing is backed off and disabled. Defaults:
 * back off after 5 failures in a row, for 30 s doubling with each further
 * failure up to 1 h; disable once every attempt has failed for 5 days.
 */
export interface EndpointHealthPolicy {
  backoffAfter: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  disableAfterMs: number;
}

export const DEFAULT_HEALTH_POLICY: EndpointHealthPolicy = {
  backoffAfter: 5,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  disableAfterMs: 5 * 86_400_000,
};

/** The answer to a request for a delivery slot of an endpoint. */
export type SlotAttempt = { kind: 'ok' } | { kind: 'gone' } | { kind: 'disabled' } | { kind: 'backoff' | 'busy'; retryInMs: number };

const newWebhookId = (): string => `wh_${randomBytes(15).toString('base64url')}`;
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Webhooks of a workspace, their delivery history and the bodies of the
 * events being delivered. A webhook's hash is the truth; the workspace's
 * index is written before it (the per-workspace limit is taken there) and
 * removed after it, so a crash in between leaves an index entry that
 * listings drop.
 */
export class WebhookStore {
  private readonly redis: StoreRedis;

  constructor(
    redis: RedisClient,
    readonly keys: KeySpace,
  ) {
    this.redis = withCommands(redis);
  }

  /** Registers a webhook with a fresh secret; ConflictError past `maxPerWorkspace`. */
  async create(workspaceId: string, input: NewWebhook, maxPerWorkspace: number, now: string): Promise<StoredWebhook> {
    const hook: StoredWebhook = {
      webhookId: newWebhookId(),
      workspaceId,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      createdAt: now,
      status: 'active',
      disabledAt: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
      backoffUntil: null,
      previousSecretExpiresAt: null,
      secret: newSecret(),
      previousSecret: null,
    };
    const reserved = await runScript(this.redis, this.keys, reserveWebhookScript, { workspaceId, webhookId: hook.webhookId, createdMs: Date.parse(now), max: maxPerWorkspace });
    if (reserved.kind === 'limit') throw new ConflictError(`a workspace may have at most ${maxPerWorkspace} webhooks; delete one first`);
    const fields: Record<string, string> = {
      webhookId: hook.webhookId,
      workspaceId,
      url: hook.url,
      events: JSON.stringify(hook.events),
      createdAt: now,
      secret: hook.secret,
    };
    if (hook.description !== null) fields.description = hook.description;
    await this.redis.hset(this.keys.webhook(hook.webhookId), fields);
    return hook;
  }

  async get(webhookId: string): Promise<StoredWebhook | null> {
    return parseWebhook(await this.redis.hgetall(this.keys.webhook(webhookId)));
  }

  /** The webhook if `workspaceId` owns it; NotFoundError or ForbiddenError otherwise. */
  async getOwned(workspaceId: string, webhookId: string): Promise<StoredWebhook> {
    const hook = await this.get(webhookId);
    if (!hook) throw notFound('Webhook', webhookId);
    if (hook.workspaceId !== workspaceId) throw new ForbiddenError(OTHER_WORKSPACE);
    return hook;
  }

  /** A page of a workspace's webhooks, newest first. */
  async list(workspaceId: string, page: number, size: number): Promise<{ items: StoredWebhook[]; total: number }> {
    const index = this.keys.workspaceWebhooks(workspaceId);
    const start = page * size;
    const [total, ids] = await Promise.all([
      this.redis.zcard(index),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.zrevrange(index, start, start + size - 1),
    ]);
    const { hooks, dangling } = await this.load(workspaceId, ids);
    return { items: hooks, total: total - dangling };
  }

  /** The workspace's active webhooks (a workspace has few), whatever they subscribe to: one read for all the events of a transition. */
  async active(workspaceId: string): Promise<StoredWebhook[]> {
    const ids = await this.redis.zrange(this.keys.workspaceWebhooks(workspaceId), 0, -1);
    if (ids.length === 0) return [];
    const { hooks } = await this.load(workspaceId, ids);
    return hooks.filter((h) => h.status === 'active');
  }

  private async load(workspaceId: string, ids: string[]): Promise<{ hooks: StoredWebhook[]; dangling: number }> {
    // One command per webhook, not a pipeline: each hash has its own slot on Redis Cluster.
    const rows = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.webhook(id))));
    const hooks: StoredWebhook[] = [];
    const gone: string[] = [];
    rows.forEach((h, i) => {
      const hook = parseWebhook(h);
      if (hook && hook.workspaceId === workspaceId) hooks.push(hook);
      else gone.push(ids[i]!);
    });
    if (gone.length > 0) await this.redis.zrem(this.keys.workspaceWebhooks(workspaceId), ...gone);
    return { hooks, dangling: gone.length };
  }

  /** Deletes a webhook and its history; queued deliveries find it gone and stop. */
  async delete(workspaceId: string, webhookId: string): Promise<void> {
    const reply = await runScript(this.redis, this.keys, deleteWebhookScript, { workspaceId, webhookId });
    if (reply.kind === 'missing') throw notFound('Webhook', webhookId);
    if (reply.kind !== 'ok') throw resultError(reply.kind);
    await this.redis.zrem(this.keys.workspaceWebhooks(workspaceId), webhookId);
  }

  /** Takes one of the endpoint's `maxPerEndpoint` delivery slots under `token` for `leaseMs`, or says why not. */
  async acquireSlot(webhookId: string, token: string, limits: { leaseMs: number; maxPerEndpoint: number }): Promise<SlotAttempt> {
    return runScript(this.redis, this.keys, acquireWebhookSlotScript, { webhookId, token, ...limits });
  }

  /**
   * Adds an attempt to the head of the history, gives back the slot `token`
   * held and updates the endpoint's health by `policy`; the endpoint's state
   * after it, or null when the webhook is gone.
   */
  async recordDelivery(
    webhookId: string,
    attempt: Delivery,
    opts: { ok?: boolean; token?: string; policy?: EndpointHealthPolicy } = {},
  ): Promise<EndpointState | null> {
    const policy = opts.policy ?? DEFAULT_HEALTH_POLICY;
    const days = Math.round((policy.disableAfterMs / 86_400_000) * 10) / 10;
    const reply = await runScript(this.redis, this.keys, recordDeliveryScript, {
      webhookId,
      attempt: JSON.stringify(attempt),
      kept: DELIVERIES_KEPT,
      token: opts.token ?? '',
      ok: opts.ok ?? attempt.error === null,
      ...policy,
      reason: `every delivery attempt failed for ${days} days; the last one: ${attempt.error ?? 'not delivered'}`,
    });
    return reply.kind === 'ok' ? (reply.state as EndpointState) : null;
  }

  /** Gives the webhook a new secret; the previous one keeps signing for `graceMs`. Returns the new secret. */
  async rotateSecret(workspaceId: string, webhookId: string, graceMs: number): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
    const secret = newSecret();
    const reply = await runScript(this.redis, this.keys, rotateWebhookSecretScript, { workspaceId, webhookId, secret, graceMs });
    if (reply.kind === 'missing') throw notFound('Webhook', webhookId);
    if (reply.kind !== 'ok') throw resultError(reply.kind);
    return { secret, previousSecretExpiresAt: reply.previousUntilMs > 0 ? new Date(reply.previousUntilMs).toISOString() : null };
  }

  /** Turns a disabled or backed-off webhook back on. */
  async enable(workspaceId: string, webhookId: string): Promise<void> {
    const reply = await runScript(this.redis, this.keys, enableWebhookScript, { workspaceId, webhookId });
    if (reply.kind === 'missing') throw notFound('Webhook', webhookId);
    if (reply.kind !== 'ok') throw resultError(reply.kind);
  }

  /** Changes a webhook in one step; NotFoundError or ForbiddenError as `getOwned`. */
  async update(workspaceId: string, webhookId: string, changes: WebhookChanges, nowMs = Date.now()): Promise<void> {
    const reply = await runScript(this.redis, this.keys, updateWebhookScript, {
      workspaceId,
      webhookId,
      nowMs,
      reason: DISABLED_BY_PATCH,
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.events !== undefined && { events: JSON.stringify(changes.events) }),
      ...(changes.description !== undefined && { description: changes.description ?? '' }),
      ...(changes.enabled !== undefined && { enabled: changes.enabled }),
    });
    if (reply.kind === 'missing') throw notFound('Webhook', webhookId);
    if (reply.kind !== 'ok') throw resultError(reply.kind);
  }

  /** A page of the delivery history, newest first. */
  async deliveries(webhookId: string, page: number, size: number): Promise<{ items: Delivery[]; total: number }> {
    const key = this.keys.webhookDeliveries(webhookId);
    const start = page * size;
    const [total, rows] = await Promise.all([
      this.redis.llen(key),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.lrange(key, start, start + size - 1),
    ]);
    return { items: rows.map(parseDelivery), total };
  }

  /** Keeps an event's body for its deliveries; the first one written wins, so a re-emitted event keeps its bytes. */
  async saveEvent(workspaceId: string, event: WebhookEvent): Promise<void> {
    await this.redis.set(this.keys.webhookEvent(workspaceId, event.id), JSON.stringify(event), 'EX', EVENT_TTL_SECONDS, 'NX');
  }

  /** The event's body exactly as first saved, or null once it expired. */
  async getEvent(workspaceId: string, eventId: string): Promise<string | null> {
    return this.redis.get(this.keys.webhookEvent(workspaceId, eventId));
  }
}
