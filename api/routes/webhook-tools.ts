import { randomBytes } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ConflictError, NotFoundError, UnavailableError } from '../../shared/errors.js';
import { idSchema } from '../../shared/schemas/common.js';
import { TEST_EVENT, webhookEventSchema, webhookSchema, type WebhookEvent } from '../../shared/schemas/webhook.js';
import { webhookView, type StoredWebhook } from '../../shared/store/webhook-store.js';
import { enqueueDeliveries } from '../../shared/webhooks/webhook-deliveries.js';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

const hookParams = z.object({ webhookId: idSchema });
const eventParams = z.object({ webhookId: idSchema, eventId: idSchema });

const queuedSchema = z
  .object({
    webhookId: z.string(),
    eventId: z.string().meta({ description: 'The event queued; its attempts appear under `.../deliveries`' }),
    type: webhookEventSchema.shape.type,
  })
  .meta({ id: 'WebhookDeliveryQueued' });

const rotatedSchema = z
  .object({
    webhookId: z.string(),
    secret: z.string().meta({ description: 'The new signing secret, shown only in this response', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    previousSecretExpiresAt: z.string().nullable().meta({ description: 'Until when the previous secret also signs every delivery; null when WEBHOOK_SECRET_GRACE_HOURS is 0' }),
  })
  .meta({ id: 'WebhookSecretRotated' });

/**
 * The webhook tools beside registration: read one webhook with its health,
 * send a test event, deliver an event again, rotate the secret and turn a
 * disabled webhook back on.
 */
export function registerWebhookTools(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config, store } = deps;

  /** Queues `eventId` for `hook` alone, refusing a disabled webhook (its deliveries would be dropped). */
  async function queueFor(hook: StoredWebhook, event: Pick<WebhookEvent, 'id' | 'type'>, jobIdSuffix?: string): Promise<void> {
    if (hook.status === 'disabled') throw new ConflictError('the webhook is disabled; enable it first (POST .../enable)');
    if (!deps.webhookQueue) throw new UnavailableError();
    await enqueueDeliveries(deps.webhookQueue, { workspaceId: hook.workspaceId, eventId: event.id, type: event.type, webhookIds: [hook.webhookId], ...(jobIdSuffix && { jobIdSuffix }) });
  }

  app.openapi(
    createRoute({
      method: 'get',
      path: '/webhooks/{webhookId}',
      operationId: 'getWebhook',
      tags: [TAGS.webhooks],
      summary: 'Read a webhook',
      description: 'The webhook without its secret, with the health of its endpoint: failures in a row, back-off, and whether it was disabled.',
      security,
      request: { params: hookParams },
      responses: { 200: jsonResponse(webhookSchema, 'The webhook'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const hook = await store.webhooks.getOwned(c.get('principal').workspaceId, c.req.valid('param').webhookId);
      return c.json(webhookView(hook), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/{webhookId}/test',
      operationId: 'sendWebhookTestEvent',
      tags: [TAGS.webhooks],
      summary: 'Send a test event',
      description: 'Queues a `webhook.test` event (`data: {webhookId}`) to this webhook only, signed and retried like any other. 409 when the webhook is disabled.',
      security,
      request: { params: hookParams },
      responses: { 202: jsonResponse(queuedSchema, 'The test event was queued'), ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
    }),
    async (c) => {
      const hook = await store.webhooks.getOwned(c.get('principal').workspaceId, c.req.valid('param').webhookId);
      const event: WebhookEvent = { id: `evt_test_${randomBytes(12).toString('base64url')}`, type: TEST_EVENT, createdAt: new Date().toISOString(), data: { webhookId: hook.webhookId } };
      await store.webhooks.saveEvent(hook.workspaceId, event);
      await queueFor(hook, event);
      c.get('logger').info({ webhookId: hook.webhookId, eventId: event.id }, 'webhook test event queued');
      return c.json({ webhookId: hook.webhookId, eventId: event.id, type: event.type }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/{webhookId}/deliveries/{eventId}/redeliver',
      operationId: 'redeliverWebhookEvent',
      tags: [TAGS.webhooks],
      summary: 'Deliver an event again',
      description:
        'Queues a new delivery of an event of this workspace to this webhook, with the same `webhook-id` and body (receivers de-duplicate by id), whatever became of the earlier ones. Event bodies are kept 3 days; an older event is a 404 naming `eventId`. 409 when the webhook is disabled.',
      security,
      request: { params: eventParams },
      responses: { 202: jsonResponse(queuedSchema, 'The delivery was queued'), ...errorResponses(400, 401, 403, 404, 409, 500, 503) },
    }),
    async (c) => {
      const { webhookId, eventId } = c.req.valid('param');
      const hook = await store.webhooks.getOwned(c.get('principal').workspaceId, webhookId);
      const body = await store.webhooks.getEvent(hook.workspaceId, eventId);
      if (body === null) throw new NotFoundError({ part: 'eventId', detail: `Event ${eventId} was not found (event bodies are kept 3 days)` });
      const event = JSON.parse(body) as WebhookEvent;
      await queueFor(hook, event, `r${randomBytes(6).toString('base64url')}`);
      c.get('logger').info({ webhookId, eventId }, 'webhook event redelivery queued');
      return c.json({ webhookId, eventId, type: event.type }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/{webhookId}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tags: [TAGS.webhooks],
      summary: "Rotate a webhook's secret",
      description:
        'Gives the webhook a new secret, shown only in this response. For WEBHOOK_SECRET_GRACE_HOURS (' +
        `${config.WEBHOOK_SECRET_GRACE_HOURS}) the previous secret keeps signing beside it: each delivery carries both signatures (\`webhook-signature: v1,<new> v1,<previous>\`), so a receiver that still has the old secret keeps verifying until it switches.`,
      security,
      request: { params: hookParams },
      responses: { 200: jsonResponse(rotatedSchema, 'The new secret'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { webhookId } = c.req.valid('param');
      const rotated = await store.webhooks.rotateSecret(c.get('principal').workspaceId, webhookId, config.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000);
      c.get('logger').info({ webhookId, previousSecretExpiresAt: rotated.previousSecretExpiresAt }, 'webhook secret rotated');
      return c.json({ webhookId, ...rotated }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/{webhookId}/enable',
      operationId: 'enableWebhook',
      tags: [TAGS.webhooks],
      summary: 'Turn a webhook back on',
      description: 'Clears a disable and any back-off of the endpoint, so the next delivery is tried at once. Deliveries dropped while it was disabled can be sent again with `.../redeliver`.',
      security,
      request: { params: hookParams },
      responses: { 200: jsonResponse(webhookSchema, 'The webhook, active'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const ws = c.get('principal').workspaceId;
      const { webhookId } = c.req.valid('param');
      await store.webhooks.enable(ws, webhookId);
      c.get('logger').info({ webhookId }, 'webhook enabled');
      return c.json(webhookView(await store.webhooks.getOwned(ws, webhookId)), 200);
    },
  );
}
