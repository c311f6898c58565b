import { createRoute, z } from '@hono/zod-openapi';
import { QuotaGuard } from '../../shared/quotas.js';
import type { AppDeps } from '../deps.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';

const limit = z.number().int().nullable().meta({ description: 'The quota; null when unlimited' });
const usageSchema = z
  .object({
    workspaceId: z.string(),
    knowledgeBases: z.object({ used: z.number().int(), limit }),
    sourcesPerKnowledgeBase: z.object({ limit }),
    storedBytes: z.object({
      used: z.number().int().meta({ description: 'Bytes of text, Markdown and chunks, and of uploaded files waiting for or in a run' }),
      limit,
    }),
    sourcesInFlight: z.object({ used: z.number().int().meta({ description: 'Sources pending or processing' }), limit }),
    idempotencyKeys: z.object({
      used: z.number().int().meta({ description: 'Idempotency-Keys held now (running, or replayable for 24 h)' }),
      limit: z.number().int(),
    }),
    derivedBytes: z
      .object({
        changeFeeds: z.number().int().meta({ description: 'Bytes the change feeds hold (their events, as the feed counts them): of its knowledge bases, and of deleted ones until their retention ends' }),
        searchIndexes: z.number().int().meta({ description: 'Bytes search indexes of its knowledge bases take in Redis, about: 0, as the API processes hold the indexes; an index an earlier version kept in Redis counts until the first search of its knowledge base removes it' }),
        outboxes: z.number().int().meta({ description: "Bytes the outboxes of its knowledge bases hold: webhook events written with the changes they tell of, not yet turned into deliveries (about 0 while the worker's relay keeps up; at most 10,000 events per knowledge base)" }),
      })
      .meta({ description: 'What the service keeps for the workspace beside its sources, bounded by CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS and CHANGES_MAX_BYTES per knowledge base, CHANGES_WORKSPACE_MAX_BYTES for all its feeds, and by its chunks' }),
  })
  .meta({ id: 'Usage' });

/** `GET /v1/usage`: the key's workspace's usage beside its quotas. */
export function usageRoutes(deps: AppDeps) {
  const app = createRouter();
  const quota = new QuotaGuard(deps.config, deps.store.quotas);
  app.openapi(
    createRoute({
      method: 'get',
      path: '/usage',
      operationId: 'getUsage',
      tags: [TAGS.usage],
      summary: "The workspace's usage and quotas",
      description:
        "What the key's workspace uses of each quota the operator sets (QUOTA_* defaults, or the workspace's own through the admin CLI). Past a quota, POST and PATCH of knowledge bases change nothing and answer 409 (knowledge bases, sources per knowledge base), 413 (stored bytes) or 429 with Retry-After (sources in flight).",
      security,
      responses: { 200: jsonResponse(usageSchema, 'Usage and quotas'), ...errorResponses(401, 403, 500, 503) },
    }),
    async (c) => {
      const workspaceId = c.get('principal').workspaceId;
      const [quotas, kbs, keys, held, derived] = await Promise.all([
        quota.quotas(workspaceId),
        deps.store.quotas.knowledgeBaseCount(workspaceId),
        deps.store.idempotency.count(workspaceId),
        deps.store.quotas.holdings(workspaceId),
        deps.store.quotas.derivedBytes(workspaceId),
      ]);
      return c.json(
        {
          workspaceId,
          knowledgeBases: { used: kbs, limit: quotas.knowledgeBases },
          sourcesPerKnowledgeBase: { limit: quotas.sourcesPerKnowledgeBase },
          storedBytes: { used: held.storedBytes, limit: quotas.storedBytes },
          sourcesInFlight: { used: held.sourcesInFlight, limit: quotas.sourcesInFlight },
          idempotencyKeys: { used: keys, limit: deps.config.IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE },
          derivedBytes: derived,
        },
        200,
      );
    },
  );
  return app;
}
