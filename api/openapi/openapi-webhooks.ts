import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { EVENT_TYPES, webhookEventSchema, type EventType } from '../../shared/schemas/webhook.js';
import type { AppEnv } from '../context.js';
import { TAGS } from './router.js';

/** What each event says, for the `webhooks` section. */
const EVENT_DESCRIPTION: Record<EventType, string> = {
  'source.ready': 'A source was extracted: `data` names its knowledge base and document, `status` is `ready`.',
  'source.failed': 'A source failed for good: `data.error` carries the code and message.',
  'knowledge_base.settled': 'No source of the knowledge base is pending or processing any more: `data.sourceCounts` counts them by status.',
  'knowledge_base.changed':
    "Chunks of the knowledge base changed (a source became ready, was refreshed with other content, failed, or was re-chunked; a document's metadata changed; a document, a site or the knowledge base was deleted; a site's discovery removed pages): read `GET /v1/knowledge-bases/{kbId}/changes?after=<data.afterCursor>`; `data.toCursor` is the cursor after the last of these events.",
  'site.discovered':
    'A discovery of a site source ended: `data.siteId`, `status` (`done` or `failed`), `pagesFound`, `pagesAdded` and `truncated` (maxPages, a crawl bound or a quota reached; `truncatedReason` names the quota); `warnings` when it skipped something (a `sitemap_skipped`), as the site shows them; `error` when it failed.',
  'webhook.test': 'Sent by `POST /v1/webhooks/{webhookId}/test` to that webhook only, whatever it subscribes to: `data.webhookId` names it.',
};

const signatureHeaders = z.object({
  'webhook-id': z.string().meta({ description: 'The event id; the same on every retry, so a receiver can drop repeats' }),
  'webhook-timestamp': z.string().meta({ description: 'Unix seconds when the attempt was signed' }),
  'webhook-signature': z.string().meta({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says',
  }),
});

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, its body the
 * event, its headers the Standard Webhooks signature. A 2xx answer within the
 * delivery timeout counts as delivered; anything else is tried again.
 */
export function registerWebhookEvents(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'WebhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description: 'What a receiver checks: the HMAC-SHA256 signature made with the webhook secret (see the webhook-signature header)',
  });
  for (const event of EVENT_TYPES) {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: event,
      operationId: `on${event.replace(/(^|[._])(\w)/g, (_, __, ch: string) => ch.toUpperCase())}`,
      tags: [TAGS.webhooks],
      security: [{ WebhookSignature: [] }],
      summary: `The ${event} event`,
      description: EVENT_DESCRIPTION[event],
      request: {
        headers: signatureHeaders,
        body: { required: true, content: { 'application/json': { schema: webhookEventSchema } } },
      },
      responses: {
        200: { description: 'Received; any 2xx status counts as delivered' },
        default: { description: 'Any other answer (or none within the timeout) is tried again with backoff' },
      },
    });
  }
}
