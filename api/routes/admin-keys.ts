import { createRoute, z } from '@hono/zod-openapi';
import { NotFoundError } from '../../shared/errors.js';
import { idSchema } from '../../shared/schemas/common.js';
import {
  adminKeyCreatedSchema,
  adminKeyCreateSchema,
  adminKeyListQuerySchema,
  adminKeyListSchema,
  adminKeySchema,
  type AdminKeyView,
} from '../../shared/schemas/admin-key.js';
import type { ApiKeyRecord } from '../../shared/store/key-store.js';
import type { AppDeps } from '../deps.js';
import { jsonBodyGuards } from '../http/json-body.js';
import { adminAuth } from '../middleware/admin-auth.js';
import { adminSecurity, createRouter, emptyResponse, errorResponses, jsonResponse, TAGS } from '../openapi/router.js';

const keyParams = z.object({ keyId: idSchema });
const MAX_BODY_BYTES = 4 * 1024;
const ENABLED_ONLY = 'Served only when ADMIN_TOKEN is set (404 otherwise); authenticated by `Authorization: Bearer <ADMIN_TOKEN>`, not by an API key.';

const keyView = (r: ApiKeyRecord): AdminKeyView => ({
  keyId: r.keyId,
  workspaceId: r.workspaceId,
  name: r.name,
  readOnly: r.readOnly,
  createdAt: r.createdAt,
  revokedAt: r.revokedAt ?? null,
});

const keyNotFound = (keyId: string) => new NotFoundError({ part: 'keyId', detail: `API key ${keyId} was not found` });

/**
 * API keys for operators over HTTP, beside `npm run admin -- create-key`:
 * create (the key is in the answer only), list a workspace's keys, revoke.
 * The same key store as the CLI, so keys stay stored as hashes.
 */
export function adminKeyRoutes(deps: AppDeps) {
  const { config, store } = deps;
  const app = createRouter();

  app.use('/admin/*', adminAuth(config.ADMIN_TOKEN));
  const [bodyLimit, jsonOnly] = jsonBodyGuards(MAX_BODY_BYTES, { requireJsonType: true });
  app.post('/admin/keys', bodyLimit, jsonOnly);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/admin/keys',
      operationId: 'createApiKey',
      tags: [TAGS.admin],
      summary: 'Create an API key',
      description: `Makes an API key for a workspace, as \`npm run admin -- create-key\` does. The plain key is in this response only; the service keeps its SHA-256 hash. ${ENABLED_ONLY}`,
      security: adminSecurity,
      request: { body: { content: { 'application/json': { schema: adminKeyCreateSchema } }, required: true } },
      responses: {
        201: jsonResponse(adminKeyCreatedSchema, 'The key record and, once, the key', ['Location']),
        ...errorResponses(400, 401, 404, 413, 415, 500, 503),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const { record, key } = await store.apiKeys.create(body.workspaceId, body.name, body.readOnly);
      c.get('logger').info({ keyId: record.keyId, workspaceId: record.workspaceId, readOnly: record.readOnly }, 'api key created');
      return c.json({ ...keyView(record), key }, 201, { Location: `/v1/admin/keys/${record.keyId}` });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/keys',
      operationId: 'listApiKeys',
      tags: [TAGS.admin],
      summary: "List a workspace's API keys",
      description: `Every key of the workspace, oldest first, revoked ones too; never a key or its hash. ${ENABLED_ONLY}`,
      security: adminSecurity,
      request: { query: adminKeyListQuerySchema },
      responses: { 200: jsonResponse(adminKeyListSchema, "The workspace's keys"), ...errorResponses(400, 401, 404, 500, 503) },
    }),
    async (c) => {
      const { workspaceId } = c.req.valid('query');
      const records = await store.apiKeys.list(workspaceId);
      return c.json({ data: records.map(keyView) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/admin/keys/{keyId}',
      operationId: 'getApiKey',
      tags: [TAGS.admin],
      summary: 'Read an API key',
      description: `One key's record (never the key). ${ENABLED_ONLY}`,
      security: adminSecurity,
      request: { params: keyParams },
      responses: { 200: jsonResponse(adminKeySchema, 'The key record'), ...errorResponses(400, 401, 404, 500, 503) },
    }),
    async (c) => {
      const { keyId } = c.req.valid('param');
      const record = await store.apiKeys.get(keyId);
      if (!record) throw keyNotFound(keyId);
      return c.json(keyView(record), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/admin/keys/{keyId}',
      operationId: 'revokeApiKey',
      tags: [TAGS.admin],
      summary: 'Revoke an API key',
      description: `The key stops working at once; its record stays listed with \`revokedAt\`. A second DELETE gives 404. ${ENABLED_ONLY}`,
      security: adminSecurity,
      request: { params: keyParams },
      responses: { 204: emptyResponse('Revoked'), ...errorResponses(400, 401, 404, 500, 503) },
    }),
    async (c) => {
      const { keyId } = c.req.valid('param');
      const outcome = await store.apiKeys.revokeOnce(keyId);
      if (outcome !== 'revoked') throw keyNotFound(keyId);
      c.get('logger').info({ keyId }, 'api key revoked');
      return c.body(null, 204);
    },
  );

  return app;
}
