import { WEBHOOK_EVENTS, type Delivery, type WebhookEventType, type WebhookView } from '../schemas/webhook.js';

/** A webhook as stored: its view plus the owner and the signing secrets. */
export interface StoredWebhook extends WebhookView {
  workspaceId: string;
  /** `whsec_` + base64 of 24 random bytes. Kept in clear because it signs; never logged, never shown again. */
  secret: string;
  /** The secret a rotation replaced, while it still signs beside the new one. */
  previousSecret: string | null;
}

const time = (ms: string | undefined): string | null => {
  const n = Number(ms);
  return ms && Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : null;
};

/** A webhook's hash as its record, or null when the hash is not a whole webhook. */
export function parseWebhook(h: Record<string, string>, nowMs = Date.now()): StoredWebhook | null {
  if (!h.webhookId || !h.workspaceId || !h.secret || !h.url) return null;
  let events: WebhookEventType[] = [];
  try {
    const parsed = JSON.parse(h.events ?? '[]') as unknown;
    if (Array.isArray(parsed)) events = parsed.filter((e): e is WebhookEventType => (WEBHOOK_EVENTS as readonly unknown[]).includes(e));
  } catch {
    // A hand-edited hash subscribes to nothing rather than failing every listing.
  }
  const previousUntil = Number(h.previousSecretUntilMs ?? 0);
  const previousLive = h.previousSecret !== undefined && previousUntil > nowMs;
  const backoffUntil = Number(h.backoffUntilMs ?? 0);
  return {
    webhookId: h.webhookId,
    workspaceId: h.workspaceId,
    url: h.url,
    events,
    description: h.description ?? null,
    createdAt: h.createdAt ?? '',
    status: h.disabledAtMs ? 'disabled' : 'active',
    disabledAt: time(h.disabledAtMs),
    disabledReason: h.disabledAtMs ? (h.disabledReason ?? null) : null,
    consecutiveFailures: Number(h.failures ?? 0) || 0,
    failingSince: time(h.failingSinceMs),
    backoffUntil: backoffUntil > nowMs ? time(h.backoffUntilMs) : null,
    previousSecretExpiresAt: previousLive ? time(h.previousSecretUntilMs) : null,
    secret: h.secret,
    previousSecret: previousLive ? h.previousSecret! : null,
  };
}

/** The public view: everything but the owner and the secrets. */
export function webhookView(hook: StoredWebhook): WebhookView {
  const { workspaceId: _ws, secret: _secret, previousSecret: _previous, ...view } = hook;
  return view;
}

/** A history entry as the API shows it; entries written before a field existed show it as null. */
export function parseDelivery(row: string): Delivery {
  const d = JSON.parse(row) as Partial<Delivery> & Pick<Delivery, 'eventId' | 'type' | 'attempt'>;
  return {
    eventId: d.eventId,
    type: d.type,
    kbId: d.kbId ?? null,
    documentId: d.documentId ?? null,
    siteId: d.siteId ?? null,
    attempt: d.attempt,
    statusCode: d.statusCode ?? null,
    error: d.error ?? null,
    willRetry: d.willRetry ?? false,
    nextAttemptAt: d.nextAttemptAt ?? null,
    durationMs: d.durationMs ?? 0,
    attemptedAt: d.attemptedAt ?? '',
  };
}
