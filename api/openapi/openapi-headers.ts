import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';

/**
 * The response headers the API sends, declared once as OpenAPI header
 * components so that generated clients can read them without casts.
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': { description: 'The id of this request in the service log; quote it when reporting a problem', schema: { type: 'string' } },
  'RateLimit-Limit': {
    description: 'Requests allowed per minute with this key (sent when RATE_LIMIT_PER_MINUTE is not 0)',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current minute with this key', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  ETag: {
    description: 'Strong validator of the knowledge base revision: send it back in If-Match (PATCH, DELETE) or If-None-Match (GET)',
    schema: { type: 'string', example: '"r3"' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer repeats the one kept for the Idempotency-Key (nothing was done again)',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: { description: 'The path of the created resource', schema: { type: 'string' } },
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** Headers that every `/v1` answer may carry. */
const ALWAYS: ResponseHeader[] = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining'];

/** `headers` of an OpenAPI response: references to the components, the common ones first. */
export function headerRefs(extra: ResponseHeader[] = []): Record<string, { $ref: string }> {
  return Object.fromEntries([...new Set([...ALWAYS, ...extra])].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
}

/** Registers {@link RESPONSE_HEADERS} as `components.headers`. */
export function registerResponseHeaders(app: OpenAPIHono<AppEnv>): void {
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) {
    app.openAPIRegistry.registerComponent('headers', name, header as never);
  }
}
