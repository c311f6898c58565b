import { z } from '@hono/zod-openapi';
import { idSchema } from '../../shared/schemas/common.js';
import { assertOwned, type KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { requiredRevision } from '../middleware/etag.js';

/** The path parameters, headers and bodies shared by the routes of a knowledge base and of its documents. */
export const kbParams = z.object({ kbId: idSchema });
export const docParams = z.object({ kbId: idSchema, documentId: idSchema });
/** A body taken as a multipart form (the default) or as the same fields in JSON. */
export const formOrJsonBody = (form: z.ZodType, json: z.ZodType) => ({
  content: { 'multipart/form-data': { schema: form }, 'application/json': { schema: json } },
  required: true,
});
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .meta({
      description:
        '1 to 255 printable characters; a repeat within 24 h gets the first answer again (Idempotent-Replayed: true). A success larger than IDEMPOTENCY_MAX_BODY_BYTES is replayed as the knowledge base is now; a workspace holding IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE live keys gets 429 for a new one',
    }),
});
export const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .optional()
    .meta({ description: 'An ETag from GET (strong comparison: a W/ tag never matches); 412 with the current ETag when the knowledge base has changed since' }),
});

/** The revision an If-Match requires (the delete script checks it again atomically); nothing is read without one. */
export const ifMatchRevision = async (kb: KbDeps, header: string | undefined, ws: string, kbId: string) =>
  header === undefined ? undefined : requiredRevision(header, (await assertOwned(kb, ws, kbId)).rev);
