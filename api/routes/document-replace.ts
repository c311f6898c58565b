import type { Context } from 'hono';
import { ValidationError, notFound } from '../../shared/errors.js';
import { QuotaGuard, intakeOf, underHold } from '../../shared/quotas.js';
import { sourceSchema } from '../../shared/schemas/knowledge-base.js';
import { FORM_FIELD, documentReplaceFormSchema, documentReplaceJsonSchema } from '../../shared/schemas/source-form.js';
import { replaceSource } from '../../shared/verbs/replace.js';
import { publicSource, type NewSource } from '../../shared/store/kb-records.js';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { createFormReader } from '../http/form-reader.js';
import type { SourceForm } from '../http/source-form.js';
import { assertOwned, type KbDeps } from '../../shared/verbs/knowledge-bases.js';
import { zodFieldErrors } from '../middleware/errors.js';
import { etagOf, requiredRevision } from '../middleware/etag.js';
import { idempotent } from '../middleware/idempotency.js';
import { createRouter, errorResponses, jsonResponse, security, TAGS } from '../openapi/router.js';
import { docParams, formOrJsonBody, idempotencyHeaders, ifMatchHeaders } from './kb-requests.js';

const ONE_VERSION = `send exactly one new version: one ${FORM_FIELD.files} part, or ${FORM_FIELD.texts} with one element`;

/** The one text or file a PUT carries; anything else the form may hold is a 400. */
function oneVersion(form: SourceForm): NewSource {
  const extra: string[] = [
    form.name !== undefined && FORM_FIELD.name,
    form.autoRefreshHours !== undefined && FORM_FIELD.autoRefresh,
    form.chunking?.maxTokens !== undefined && FORM_FIELD.chunkMaxTokens,
    form.chunking?.overlapTokens !== undefined && FORM_FIELD.chunkOverlapTokens,
    form.sites.length > 0 && FORM_FIELD.sites,
    form.sources.some((s) => s.type === 'url') && FORM_FIELD.urls,
  ].filter((f) => typeof f === 'string');
  if (extra.length > 0) throw new ValidationError(Object.fromEntries(extra.map((f) => [f, `not taken by a replace: ${ONE_VERSION}`])));
  const [next, ...more] = form.sources;
  if (!next || more.length > 0) throw new ValidationError({ request: ONE_VERSION });
  return next;
}

/**
 * `PUT .../documents/{documentId}`: a file or text source replaced with a
 * new version under the same documentId, through the same body reader,
 * limits, quotas and Idempotency-Key handling as POST and PATCH.
 */
export function documentReplaceRoutes(deps: AppDeps, kb: KbDeps) {
  const { store, config } = deps;
  const app = createRouter();
  const form = createFormReader(deps);
  const quota = new QuotaGuard(config, store.quotas);
  const idempotency = {
    store: store.idempotency,
    limits: { maxKeysPerWorkspace: config.IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE, maxBodyBytes: config.IDEMPOTENCY_MAX_BODY_BYTES },
  };

  app.openAPIRegistry.registerPath({
    method: 'put',
    path: '/knowledge-bases/{kbId}/documents/{documentId}',
    operationId: 'replaceDocument',
    tags: [TAGS.documents],
    summary: 'Replace a file or text source with a new version',
    description:
      `The source keeps its documentId, its place and its metadata; the new version (one \`${FORM_FIELD.files}\` part, or \`${FORM_FIELD.texts}\` with one element, as a multipart form or JSON) goes through the limits, type checks and quotas of PATCH and is extracted under a new run. ` +
      'Until that run ends the source reads `pending` or `processing` with the text and chunks of the previous version; then they are replaced, chunks whose text is unchanged keep their ids, and the change feed gets `chunk.upserted` and `chunk.deleted` for what changed only. ' +
      '400 for a URL or site page source (refresh those), 409 while the source is pending or processing or when another source of the knowledge base has the same content; `If-Match` (412) and `Idempotency-Key` as on PATCH.',
    security,
    request: { params: docParams, headers: idempotencyHeaders.extend(ifMatchHeaders.shape), body: formOrJsonBody(documentReplaceFormSchema, documentReplaceJsonSchema) },
    responses: {
      202: jsonResponse(sourceSchema, 'The source, pending under its new version', ['ETag', 'Idempotent-Replayed']),
      ...errorResponses(400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503),
    },
  });
  app.put('/knowledge-bases/:kbId/documents/:documentId', async (c: Context<AppEnv>) => {
    const params = docParams.safeParse(c.req.param());
    if (!params.success) throw new ValidationError(zodFieldErrors(params.error));
    const { kbId, documentId } = params.data;
    const workspaceId = c.get('principal').workspaceId;
    const target = { workspaceId, kbId, documentId };
    return idempotent(c, {
      ...idempotency,
      render: async (_kbId, status) => {
        const source = await store.kbs.getSource(kbId, documentId);
        if (!source) throw notFound('Document', documentId, `knowledge base ${kbId}`);
        return c.json(publicSource(source), status as 202);
      },
      readBody: (tap) => form.observe(c, tap),
      run: async (tap) => {
        const meta = await assertOwned(kb, workspaceId, kbId);
        // Checked before the body is read, so a stale upload fails at once; the replace checks again atomically.
        const ifRev = requiredRevision(c.req.header('if-match'), meta.rev);
        const current = await store.kbs.getSource(kbId, documentId);
        if (!current) throw notFound('Document', documentId, `knowledge base ${kbId}`);
        const beforeStaging = () => quota.assertRoomForIntake(workspaceId, { bytes: 1, sources: 1 });
        const { source, rev } = await form.read(c, { kbId, requireName: false, tap, beforeStaging }, async (f) => {
          const next = oneVersion(f);
          // The new version's bytes and its run in flight are reserved as a new source's are; the source count does not change.
          const hold = await quota.reserveIntake(workspaceId, intakeOf([next]));
          return underHold(hold, () => replaceSource(kb, target, next, { blobTtlSeconds: config.STAGING_TTL_SECONDS, ifRev, now: new Date().toISOString() }));
        });
        c.get('logger').info({ kbId, documentId, type: source.type }, 'source replaced with a new version');
        return c.json(source, 202, { ETag: etagOf(rev) });
      },
    });
  });

  return app;
}
