import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis.js';
import { ConflictError, ForbiddenError, OTHER_WORKSPACE, notFound } from '../errors.js';
import { WEBHOOK_EVENTS, type Delivery, type WebhookEvent, type WebhookEventType, type WebhookView } from '../schemas/webhook.js';
import { runScript, withCommands, type StoreRedis } from './commands.js';
import { deleteWebhookScript, recordDeliveryScript, reserveWebhookScript } from './scripts/webhook-scripts.js';
import { resultError } from './scripts/result-error.js';
import type { KeySpace } from './keys.js';

/** A webhook as stored: its view plus the owner and the signing secret. */
export interface StoredWebhook extends WebhookView {
  workspaceId: string;
  /** `whsec_` + base64 of 24 random bytes. Kept in clear because it signs; never logged, never shown again. */
  secret: string;
}

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
      secret: newSecret(),
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

  /** Every webhook of a workspace that subscribes to `type` (a workspace has few). */
  async subscribers(workspaceId: string, type: WebhookEventType): Promise<StoredWebhook[]> {
    const ids = await this.redis.zrange(this.keys.workspaceWebhooks(workspaceId), 0, -1);
    if (ids.length === 0) return [];
    const { hooks } = await this.load(workspaceId, ids);
    return hooks.filter((h) => h.events.includes(type));
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

  /** Adds an attempt to the head of the history; false when the webhook is gone. */
  async recordDelivery(webhookId: string, attempt: Delivery): Promise<boolean> {
    const reply = await runScript(this.redis, this.keys, recordDeliveryScript, { webhookId, attempt: JSON.stringify(attempt), kept: DELIVERIES_KEPT });
    return reply.kind === 'ok';
  }

  /** A page of the delivery history, newest first. */
  async deliveries(webhookId: string, page: number, size: number): Promise<{ items: Delivery[]; total: number }> {
    const key = this.keys.webhookDeliveries(webhookId);
    const start = page * size;
    const [total, rows] = await Promise.all([
      this.redis.llen(key),
      start > Number.MAX_SAFE_INTEGER - size ? Promise.resolve([]) : this.redis.lrange(key, start, start + size - 1),
    ]);
    return { items: rows.map((r) => JSON.parse(r) as Delivery), total };
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

function parseWebhook(h: Record<string, string>): StoredWebhook | null {
  if (!h.webhookId || !h.workspaceId || !h.secret || !h.url) return null;
  let events: WebhookEventType[] = [];
  try {
    const parsed = JSON.parse(h.events ?? '[]') as unknown;
    if (Array.isArray(parsed)) events = parsed.filter((e): e is WebhookEventType => (WEBHOOK_EVENTS as readonly unknown[]).includes(e));
  } catch {
    // A hand-edited hash subscribes to nothing rather than failing every listing.
  }
  return {
    webhookId: h.webhookId,
    workspaceId: h.workspaceId,
    url: h.url,
    events,
    description: h.description ?? null,
    createdAt: h.createdAt ?? '',
    secret: h.secret,
  };
}

/** The public view: everything but the owner and the secret. */
export function webhookView(hook: StoredWebhook): WebhookView {
  return { webhookId: hook.webhookId, url: hook.url, events: hook.events, description: hook.description, createdAt: hook.createdAt };
}
