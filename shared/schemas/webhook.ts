import { z } from 'zod';
import { strictFieldsError } from '../field-suggestion.js';
import { isoDateTime, pageSchema } from './common.js';
import { sourceCountsSchema, sourceErrorSchema } from './knowledge-base.js';
import { MAX_SITE_WARNINGS, SITE_TRUNCATED_REASONS, siteWarningSchema } from './site.js';

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENTS = ['source.ready', 'source.failed', 'knowledge_base.settled', 'site.discovered', 'knowledge_base.changed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** The event `POST /v1/webhooks/{webhookId}/test` sends; never subscribed to, always accepted. */
export const TEST_EVENT = 'webhook.test';
/** Every type an event body or a delivery record can carry. */
export const EVENT_TYPES = [...WEBHOOK_EVENTS, TEST_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const EVENTS_MESSAGE = `must be a non-empty list of: ${WEBHOOK_EVENTS.join(', ')}`;

const webhookUrl = z
  .string({ error: 'must be an absolute http or https URL' })
  .min(1, 'must be an absolute http or https URL')
  .meta({ description: 'Where events are POSTed; the same address rules as URL sources apply', example: 'https://example.com/hooks/kb' });
const webhookEvents = z
  .array(z.enum(WEBHOOK_EVENTS, { error: EVENTS_MESSAGE }), { error: EVENTS_MESSAGE })
  .min(1, EVENTS_MESSAGE)
  .max(WEBHOOK_EVENTS.length * 4, EVENTS_MESSAGE)
  .transform((events) => [...new Set(events)])
  .meta({ description: 'The event types to receive', example: ['source.ready', 'source.failed', 'knowledge_base.settled'] });
const webhookDescription = z.string({ error: 'must be a string' }).max(500, 'must be at most 500 characters');

/** Body of POST /v1/webhooks; the URL's destination is judged by the URL policy after this. */
export const webhookCreateSchema = z
  .strictObject(
    {
      url: webhookUrl,
      events: webhookEvents,
      description: webhookDescription.optional(),
    },
    { error: strictFieldsError('must be a JSON object with url and events') },
  )
  .meta({ id: 'WebhookCreate' });
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

/** Body of PATCH /v1/webhooks/{webhookId}: any of the fields, at least one; the others stay as they are. */
export const webhookPatchSchema = z
  .strictObject(
    {
      url: webhookUrl.optional(),
      events: webhookEvents.optional(),
      description: webhookDescription.nullable().optional().meta({ description: 'null or "" clears it' }),
      enabled: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .meta({ description: '`false` disables the webhook (nothing is delivered to it); `true` turns it back on and clears any back-off, as POST .../enable does' }),
    },
    { error: strictFieldsError('must be a JSON object with url, events, description and/or enabled') },
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'must change at least one of url, events, description, enabled', path: ['request'] })
  .meta({ id: 'WebhookPatch' });
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;

const nullableTime = isoDateTime.nullable();

export const webhookSchema = z
  .object({
    webhookId: z.string().meta({ example: 'wh_3Jd8s0QmVb1xYpTa6kLr' }),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    description: z.string().nullable(),
    createdAt: isoDateTime,
    status: z.enum(['active', 'disabled']).meta({ description: '`disabled` after every delivery failed for WEBHOOK_DISABLE_AFTER_DAYS; `POST .../enable` turns it back on' }),
    disabledAt: nullableTime.meta({ description: 'When the webhook was disabled' }),
    disabledReason: z.string().nullable().meta({ description: 'Why it was disabled' }),
    consecutiveFailures: z.number().int().min(0).meta({ description: 'Failed attempts in a row since the last success' }),
    failingSince: nullableTime.meta({ description: 'The first failure of the current run of failures' }),
    backoffUntil: nullableTime.meta({ description: 'Deliveries wait until then: the endpoint failed 5 or more times in a row' }),
    previousSecretExpiresAt: nullableTime.meta({ description: 'After a secret rotation, until when the previous secret also signs every delivery' }),
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof webhookSchema>;

export const webhookCreatedSchema = webhookSchema
  .extend({
    secret: z.string().meta({
      description: 'The signing secret (`whsec_` and base64 of 24 bytes). Shown only in this response: keep it.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .meta({ id: 'WebhookCreated' });

export const webhookPageSchema = pageSchema(webhookSchema, 'WebhookPage');

/** One attempt to deliver one event, as kept in a webhook's history. */
export const deliverySchema = z
  .object({
    eventId: z.string().meta({ description: 'The event id, also sent as `webhook-id`; the same on every retry' }),
    type: z.enum(EVENT_TYPES),
    kbId: z.string().nullable().meta({ description: 'The knowledge base the event is about' }),
    documentId: z.string().nullable().meta({ description: 'The source the event is about, for `source.*` events' }),
    siteId: z.string().nullable().meta({ description: 'The site the event is about, for `site.discovered`' }),
    attempt: z.number().int().min(1),
    statusCode: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when there was no answer" }),
    error: z.string().nullable().meta({ description: 'Why the attempt failed, when it did' }),
    willRetry: z.boolean().meta({ description: 'True when another attempt is scheduled' }),
    nextAttemptAt: nullableTime.meta({ description: 'When the next attempt is due (later if the endpoint is backed off), when one is scheduled' }),
    durationMs: z.number().int(),
    attemptedAt: isoDateTime,
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryPageSchema = pageSchema(deliverySchema, 'WebhookDeliveryPage');

/** The body POSTed to a receiver. */
export const webhookEventSchema = z
  .object({
    id: z.string(),
    type: z.enum(EVENT_TYPES),
    createdAt: isoDateTime,
    data: z.object({
      kbId: z.string().optional().meta({ description: 'Present in every event but `webhook.test`' }),
      webhookId: z.string().optional().meta({ description: '`webhook.test`: the webhook tested' }),
      documentId: z.string().optional(),
      status: z.enum(['ready', 'failed', 'done']).optional().meta({ description: 'A source: ready or failed; a site (site.discovered): done or failed' }),
      error: sourceErrorSchema.or(z.object({ code: z.string(), message: z.string() })).optional(),
      sourceCounts: sourceCountsSchema.optional(),
      siteId: z.string().optional(),
      pagesFound: z.number().int().optional(),
      pagesAdded: z.number().int().optional(),
      truncated: z.boolean().optional(),
      truncatedReason: z.enum(SITE_TRUNCATED_REASONS).optional().meta({ description: 'site.discovered: the quota that stopped the site adding pages' }),
      warnings: z
        .array(siteWarningSchema)
        .max(MAX_SITE_WARNINGS)
        .optional()
        .meta({ description: 'site.discovered: what the discovery skipped and went on without (a `sitemap_skipped`), as the site shows them; absent when nothing was' }),
      afterCursor: z.string().optional().meta({ description: 'knowledge_base.changed: the change-feed cursor before the new events; read GET …/changes?after=<afterCursor>' }),
      toCursor: z.string().optional().meta({ description: 'knowledge_base.changed: the cursor after the last new event' }),
    }),
  })
  .meta({ id: 'WebhookEvent' });
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
