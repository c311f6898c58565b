import { defineScript } from './script.js';

/** API: takes a place for a new webhook in its workspace's index, unless the workspace has the most it may have. */
export const reserveWebhookScript = defineScript({
  name: 'webhookReserve',
  file: 'reserveWebhook',
  keys: ['index'],
  build: (i: { workspaceId: string; webhookId: string; createdMs: number; max: number }, k) => ({
    keys: { index: k.workspaceWebhooks(i.workspaceId) },
    args: { webhookId: i.webhookId, createdMs: i.createdMs, max: i.max },
  }),
  replies: { ok: {}, limit: {} },
});

/** API: deletes a webhook and its delivery history. */
export const deleteWebhookScript = defineScript({
  name: 'webhookDelete',
  file: 'deleteWebhook',
  keys: ['webhook', 'deliveries'],
  build: (i: { workspaceId: string; webhookId: string }, k) => ({
    keys: { webhook: k.webhook(i.webhookId), deliveries: k.webhookDeliveries(i.webhookId) },
    args: { workspaceId: i.workspaceId },
  }),
  replies: { ok: {}, missing: {}, forbidden: {} },
});

/** The endpoint's health after an attempt is recorded. */
export const ENDPOINT_STATES = ['active', 'backoff', 'disabled'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/** Worker: takes a delivery slot of a webhook's endpoint, unless it is gone, disabled, backed off or full. */
export const acquireWebhookSlotScript = defineScript({
  name: 'webhookAcquireSlot',
  file: 'acquireWebhookSlot',
  keys: ['webhook', 'leases'],
  build: (i: { webhookId: string; token: string; leaseMs: number; maxPerEndpoint: number }, k) => ({
    keys: { webhook: k.webhook(i.webhookId), leases: k.webhookLeases(i.webhookId) },
    args: { token: i.token, leaseMs: i.leaseMs, maxPerEndpoint: i.maxPerEndpoint },
  }),
  replies: { ok: {}, gone: {}, disabled: {}, backoff: { retryInMs: 'int' }, busy: { retryInMs: 'int' } },
});

/** Worker: records one delivery attempt, gives its slot back and keeps the endpoint's health, unless the webhook is gone. */
export const recordDeliveryScript = defineScript({
  name: 'webhookRecordDelivery',
  file: 'recordDelivery',
  keys: ['webhook', 'deliveries', 'leases'],
  build: (
    i: {
      webhookId: string;
      attempt: string;
      kept: number;
      token: string;
      ok: boolean;
      backoffAfter: number;
      backoffBaseMs: number;
      backoffMaxMs: number;
      disableAfterMs: number;
      reason: string;
    },
    k,
  ) => ({
    keys: { webhook: k.webhook(i.webhookId), deliveries: k.webhookDeliveries(i.webhookId), leases: k.webhookLeases(i.webhookId) },
    args: {
      attempt: i.attempt,
      kept: i.kept,
      token: i.token,
      ok: i.ok,
      backoffAfter: i.backoffAfter,
      backoffBaseMs: i.backoffBaseMs,
      backoffMaxMs: i.backoffMaxMs,
      disableAfterMs: i.disableAfterMs,
      reason: i.reason,
    },
  }),
  replies: { ok: { state: 'str' }, gone: {} },
});

/** API: a new signing secret; the previous one keeps signing for `graceMs`. */
export const rotateWebhookSecretScript = defineScript({
  name: 'webhookRotateSecret',
  file: 'rotateWebhookSecret',
  keys: ['webhook'],
  build: (i: { workspaceId: string; webhookId: string; secret: string; graceMs: number }, k) => ({
    keys: { webhook: k.webhook(i.webhookId) },
    args: { workspaceId: i.workspaceId, secret: i.secret, graceMs: i.graceMs },
  }),
  replies: { ok: { previousUntilMs: 'int' }, missing: {}, forbidden: {} },
});

/** API: clears a webhook's disable, back-off and failure count. */
export const enableWebhookScript = defineScript({
  name: 'webhookEnable',
  file: 'enableWebhook',
  keys: ['webhook'],
  build: (i: { workspaceId: string; webhookId: string }, k) => ({
    keys: { webhook: k.webhook(i.webhookId) },
    args: { workspaceId: i.workspaceId },
  }),
  replies: { ok: {}, missing: {}, forbidden: {} },
});

/** API: changes a webhook's URL, events, description and on/off in one step (PATCH /v1/webhooks/{id}). */
export const updateWebhookScript = defineScript({
  name: 'webhookUpdate',
  file: 'updateWebhook',
  keys: ['webhook'],
  build: (
    i: { workspaceId: string; webhookId: string; url?: string; events?: string; description?: string; enabled?: boolean; nowMs: number; reason: string },
    k,
  ) => ({
    keys: { webhook: k.webhook(i.webhookId) },
    args: {
      workspaceId: i.workspaceId,
      nowMs: i.nowMs,
      reason: i.reason,
      ...(i.url !== undefined && { url: i.url }),
      ...(i.events !== undefined && { events: i.events }),
      ...(i.description !== undefined && { description: i.description }),
      ...(i.enabled !== undefined && { enabled: i.enabled }),
    },
  }),
  replies: { ok: {}, missing: {}, forbidden: {} },
});
