import { createRoute, z } from '@hono/zod-openapi';
import { ValidationError } from '../../shared/errors.js';
import { idSchema, pageQuerySchema, toPage } from '../../shared/schemas/common.js';
import {
  deliveryPageSchema,
  webhookCreatedSchema,
  webhookCreateSchema,
  webhookPageSchema,
  webhookPatchSchema,
  webhookSchema,
} from '../../shared/schemas/webhook.js';
import { webhookView } from '../../shared/store/webhook-store.js';
import { checkSourceUrl } from '../../shared/net/url-policy.js';
import type { AppDeps } from '../deps.js';
import { jsonBodyGuards } from '../http/json-body.js';
import { createRouter, emptyResponse, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';
import { registerWebhookTools } from './webhook-tools.js';
import { privateAccess } from '../../shared/net/address-policy.js';

const hookParams = z.object({ webhookId: idSchema });
const MAX_BODY_BYTES = 16 * 1024;

/** Completion webhooks of the key's workspace: register, list, change, delete, read the delivery history, and the tools of `webhook-tools.ts`. */
export function webhookRoutes(deps: AppDeps) {
  const { config, store } = deps;
  const app = createRouter();

  const [bodyLimit, jsonOnly] = jsonBodyGuards(MAX_BODY_BYTES, { requireJsonType: true });
  app.post('/webhooks', bodyLimit, jsonOnly);
  app.patch('/webhooks/:webhookId', bodyLimit, jsonOnly);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      tags: [TAGS.webhooks],
      summary: 'Register a webhook',
      description:
        'Registers a URL to receive `source.ready`, `source.failed` and/or `knowledge_base.settled` events of this workspace, signed as the Standard Webhooks specification says. The `secret` is in this response only. The URL must pass the same address rules as URL sources; ' +
        `at most MAX_WEBHOOKS_PER_WORKSPACE (${config.MAX_WEBHOOKS_PER_WORKSPACE}) per workspace, then 409.`,
      security,
      request: { body: { content: { 'application/json': { schema: webhookCreateSchema } }, required: true } },
      responses: {
        201: jsonResponse(webhookCreatedSchema, 'The webhook with its signing secret', ['Location']),
        ...errorResponses(400, 401, 403, 409, 413, 415, 500, 503),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const checked = checkSourceUrl(body.url, { allowPrivate: privateAccess(config) });
      if (!checked.ok) throw new ValidationError({ url: checked.message });
      const ws = c.get('principal').workspaceId;
      const hook = await store.webhooks.create(
        ws,
        { url: checked.url, events: body.events, description: body.description },
        config.MAX_WEBHOOKS_PER_WORKSPACE,
        new Date().toISOString(),
      );
      c.get('logger').info({ webhookId: hook.webhookId, events: hook.events }, 'webhook registered');
      return c.json({ ...webhookView(hook), secret: hook.secret }, 201, { Location: `/v1/webhooks/${hook.webhookId}` });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      tags: [TAGS.webhooks],
      summary: 'List webhooks',
      description: "A page of the workspace's webhooks, newest first, without their secrets.",
      security,
      request: { query: pageQuerySchema },
      responses: { 200: jsonResponse(webhookPageSchema, 'A page of webhooks'), ...errorResponses(400, 401, 500, 503) },
    }),
    async (c) => {
      const { page = 0, size = 20 } = c.req.valid('query');
      const { items, total } = await store.webhooks.list(c.get('principal').workspaceId, page, size);
      return c.json(toPage(items.map(webhookView), page, size, total), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/webhooks/{webhookId}',
      operationId: 'updateWebhook',
      tags: [TAGS.webhooks],
      summary: 'Change a webhook',
      description:
        'Changes any of `url`, `events`, `description` and `enabled` in one step; fields left out stay as they are, and the secret is kept. A new URL passes the same address rules as on registration and starts the endpoint\'s health afresh. `enabled: false` disables the webhook (events are not delivered to it, and its test and redeliver answer 409); `enabled: true` turns it back on as `POST .../enable` does.',
      security,
      request: { params: hookParams, body: { content: { 'application/json': { schema: webhookPatchSchema } }, required: true } },
      responses: { 200: jsonResponse(webhookSchema, 'The webhook as changed'), ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
    }),
    async (c) => {
      const { webhookId } = c.req.valid('param');
      const body = c.req.valid('json');
      const ws = c.get('principal').workspaceId;
      let url: string | undefined;
      if (body.url !== undefined) {
        const checked = checkSourceUrl(body.url, { allowPrivate: privateAccess(config) });
        if (!checked.ok) throw new ValidationError({ url: checked.message });
        url = checked.url;
      }
      await store.webhooks.update(ws, webhookId, { url, events: body.events, description: body.description, enabled: body.enabled });
      const hook = await store.webhooks.getOwned(ws, webhookId);
      c.get('logger').info({ webhookId, changed: Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined) }, 'webhook changed');
      return c.json(webhookView(hook), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/webhooks/{webhookId}',
      operationId: 'deleteWebhook',
      tags: [TAGS.webhooks],
      summary: 'Delete a webhook',
      description: 'Deletes the webhook and its delivery history; deliveries still queued are dropped. A second DELETE gives 404.',
      security,
      request: { params: hookParams },
      responses: { 204: emptyResponse('Deleted'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { webhookId } = c.req.valid('param');
      await store.webhooks.delete(c.get('principal').workspaceId, webhookId);
      c.get('logger').info({ webhookId }, 'webhook deleted');
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/webhooks/{webhookId}/deliveries',
      operationId: 'listWebhookDeliveries',
      tags: [TAGS.webhooks],
      summary: "A page of a webhook's delivery attempts",
      description:
        'Every attempt to deliver an event, newest first: event id, type, attempt number, HTTP status or error, and whether another attempt is scheduled. The last 1,000 attempts are kept.',
      security,
      request: { params: hookParams, query: pageQuerySchema },
      responses: { 200: jsonResponse(deliveryPageSchema, 'A page of delivery attempts'), ...errorResponses(400, 401, 403, 404, 500, 503) },
    }),
    async (c) => {
      const { webhookId } = c.req.valid('param');
      const { page = 0, size = 20 } = c.req.valid('query');
      await store.webhooks.getOwned(c.get('principal').workspaceId, webhookId);
      const { items, total } = await store.webhooks.deliveries(webhookId, page, size);
      return c.json(toPage(items, page, size, total), 200);
    },
  );

  registerWebhookTools(app, deps);
  return app;
}
