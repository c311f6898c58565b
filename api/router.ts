import { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import { ValidationError } from '../shared/errors.js';
import { errorBodySchema } from '../shared/schemas/common.js';
import type { AppEnv } from './context.js';
import { zodFieldErrors } from './errors.js';
import { STATUS_TABLE, type ErrorStatus } from './status-table.js';

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

/** OpenAPI entries for the listed error statuses (plus 429, which any /v1 call can get), all with the error body. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    [...new Set<ErrorStatus>([...statuses, 429])]
      .sort()
      .map((s) => [s, { description: STATUS_TABLE[s].description, content: { 'application/json': { schema: errorBodySchema } } }]),
  );
}

/** An OpenAPI JSON response of `schema`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const security = [{ ApiKeyAuth: [] }];
