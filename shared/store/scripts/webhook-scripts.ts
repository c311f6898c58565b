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

/** Worker: records one delivery attempt at the head of the history, unless the webhook is gone. */
export const recordDeliveryScript = defineScript({
  name: 'webhookRecordDelivery',
  file: 'recordDelivery',
  keys: ['webhook', 'deliveries'],
  build: (i: { webhookId: string; attempt: string; kept: number }, k) => ({
    keys: { webhook: k.webhook(i.webhookId), deliveries: k.webhookDeliveries(i.webhookId) },
    args: { attempt: i.attempt, kept: i.kept },
  }),
  replies: { ok: {}, gone: {} },
});
