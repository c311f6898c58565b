import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { otherToolSchema, transferToolSchema } from '../../shared/schemas/catalog.js';
import type { AppEnv } from '../context.js';
import { registerResponseHeaders } from './openapi-headers.js';
import { registerWebhookEvents } from './openapi-webhooks.js';
import { TAGS } from './router.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>kb-ingest API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;
const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });`;

/**
 * `/openapi.json` (OpenAPI 3.1, generated from the zod schemas that validate
 * requests) and `/docs`, a Swagger UI served from the installed package so the
 * page works without any outside network.
 */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'A key made with `npm run admin -- create-key --workspace <id>`',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'ADMIN_TOKEN, for the operator routes of `/v1/admin` (served only when it is set)',
  });
  // The two kinds of Tool its `oneOf` names (the schema that checks tools is not a union: see catalog.ts).
  for (const [name, schema] of [['VoiceTransferCallTool', transferToolSchema], ['OtherTool', otherToolSchema]] as const) {
    // zod files a schema with an id under $defs; the component is that definition (it refers to no other).
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12' }).$defs?.[name];
    if (!json || JSON.stringify(json).includes('$ref')) throw new Error(`${name}: no self-contained JSON Schema`);
    app.openAPIRegistry.registerComponent('schemas', name, json as never);
  }
  registerResponseHeaders(app);
  registerWebhookEvents(app);
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'kb-ingest: knowledge bases, QA issues and agents',
      version: '1.0.0',
      description:
        'Knowledge-base ingestion for voice and chat agents. Every error has the body `ErrorBody`; `path` is the collection path.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: '/' }],
    tags: [
      { name: TAGS.knowledgeBases, description: 'Knowledge bases and the sources added to them' },
      { name: TAGS.documents, description: 'One source of a knowledge base: its text, chunks, retry, refresh and delete' },
      { name: TAGS.webhooks, description: 'Completion events POSTed to your URL, signed as Standard Webhooks says' },
      { name: TAGS.agents, description: 'Agents loaded by the operator' },
      { name: TAGS.qaIssues, description: 'QA issues loaded by the operator' },
      { name: TAGS.sites, description: 'Site sources of a knowledge base: discovery status, refresh and delete' },
      { name: TAGS.usage, description: "The workspace's usage beside its quotas" },
    ],
  });
  app.get('/docs', (c) => c.html(DOCS_HTML));
  app.get('/docs/init.js', (c) => c.body(INIT_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/docs/:asset', async (c) => {
    const asset = c.req.param('asset');
    const type = ASSETS[asset];
    if (!type) return c.notFound();
    const body = await readFile(join(swaggerDir, asset));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}
