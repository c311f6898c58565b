import { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { errorBodySchema } from '../../shared/schemas/common.js';
import type { AppEnv } from '../context.js';
import { zodFieldErrors } from '../middleware/errors.js';
import { headerRefs, type ResponseHeader } from './openapi-headers.js';
import { STATUS_TABLE, type ErrorStatus } from '../middleware/status-table.js';

/**
 * A router whose request validation failures become the contract's 400 with
 * `validationErrors`, through the same error path as everything else.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ValidationError(zodFieldErrors(result.error));
    },
  });
}

/** Error statuses whose answer says when to try again. */
const RETRY_AFTER_STATUSES = new Set<ErrorStatus>([409, 429, 503]);

/**
 * OpenAPI entries for the listed error statuses (plus 429, which any /v1 call
 * can get), all with the error body; `Retry-After` on 409 (an Idempotency-Key
 * still in progress), 429 and 503, the current `ETag` on 412.
 */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    [...new Set<ErrorStatus>([...statuses, 429])].sort().map((s) => {
      const extra: ResponseHeader[] = RETRY_AFTER_STATUSES.has(s) ? ['Retry-After'] : s === 412 ? ['ETag'] : [];
      return [
        s,
        { description: STATUS_TABLE[s].description, headers: headerRefs(extra), content: { 'application/json': { schema: errorBodySchema } } },
      ];
    }),
  );
}

/** An OpenAPI JSON response of `schema`, with the common headers and `extra`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string, extra: ResponseHeader[] = []) {
  return { description, headers: headerRefs(extra), content: { 'application/json': { schema } } };
}

/** An OpenAPI response without a body (204, 304). */
export function emptyResponse(description: string, extra: ResponseHeader[] = []) {
  return { description, headers: headerRefs(extra) };
}

export const security = [{ ApiKeyAuth: [] }];
/** The operator routes of `/v1/admin`: ADMIN_TOKEN as a bearer token. */
export const adminSecurity = [{ AdminToken: [] }];

/** The tags that group the operations in the document. */
export const TAGS = {
  knowledgeBases: 'Knowledge bases',
  documents: 'Documents',
  webhooks: 'Webhooks',
  agents: 'Agents',
  qaIssues: 'QA issues',
  sites: 'Sites',
  usage: 'Usage',
  admin: 'Admin',
} as const;
