import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
// The document is checked by walking it; its shape is what is under test.
let doc: any;

beforeAll(async () => {
  h = await createHarness();
  const res = await h.app.request('/openapi.json');
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => h.close());

/** Follows a local `$ref` such as `#/components/schemas/ErrorBody`. */
function resolve(node: any): any {
  if (!node?.$ref) return node;
  const path = String(node.$ref).replace(/^#\//, '').split('/');
  return resolve(path.reduce((n: any, part) => n?.[part], doc));
}

const ROUTES: [string, string[]][] = [
  ['/v1/knowledge-bases', ['get', 'post']],
  ['/v1/knowledge-bases/{kbId}', ['delete', 'get', 'patch']],
  ['/v1/knowledge-bases/{kbId}/documents/{documentId}', ['delete', 'get', 'patch', 'put']],
  ['/v1/knowledge-bases/{kbId}/documents/{documentId}/retry', ['post']],
  ['/v1/knowledge-bases/{kbId}/documents/{documentId}/chunks', ['get']],
  ['/v1/knowledge-bases/{kbId}/documents', ['get']],
  ['/v1/knowledge-bases/{kbId}/chunks', ['get']],
  ['/v1/knowledge-bases/{kbId}/changes', ['get']],
  ['/v1/knowledge-bases/{kbId}/search', ['post']],
  ['/v1/knowledge-bases/{kbId}/documents/{documentId}/refresh', ['post']],
  ['/v1/knowledge-bases/{kbId}/sites/{siteId}', ['delete', 'get']],
  ['/v1/knowledge-bases/{kbId}/sites/{siteId}/refresh', ['post']],
  ['/v1/agents', ['get']],
  ['/v1/qa-issues/{qaIssueId}', ['get']],
  ['/v1/webhooks', ['get', 'post']],
  ['/v1/webhooks/{webhookId}', ['delete', 'get', 'patch']],
  ['/v1/webhooks/{webhookId}/deliveries', ['get']],
  ['/v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver', ['post']],
  ['/v1/webhooks/{webhookId}/test', ['post']],
  ['/v1/webhooks/{webhookId}/rotate-secret', ['post']],
  ['/v1/webhooks/{webhookId}/enable', ['post']],
  ['/v1/usage', ['get']],
];
/** The operator routes: served only with ADMIN_TOKEN, authenticated by it rather than by an API key. */
const ADMIN_ROUTES: [string, string[]][] = [
  ['/v1/admin/keys', ['get', 'post']],
  ['/v1/admin/keys/{keyId}', ['delete', 'get']],
];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const operations = () =>
  ROUTES.flatMap(([path, methods]) => methods.map((m) => [path, m, doc.paths?.[path]?.[m]] as const));

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with info', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info?.title).toBe('string');
    expect(typeof doc.info?.version).toBe('string');
  });

  it.each([...ROUTES, ...ADMIN_ROUTES])('documents %s with exactly the methods %j', (path, methods) => {
    expect(Object.keys(doc.paths ?? {}), `paths has ${path}`).toContain(path);
    expect(Object.keys(doc.paths[path]).filter((k) => HTTP_METHODS.includes(k)).sort()).toEqual(methods);
  });

  it('documents no /v1 path that the API does not serve', () => {
    const documented = Object.keys(doc.paths ?? {}).filter((p) => p.startsWith('/v1'));
    expect(documented.sort()).toEqual([...ROUTES, ...ADMIN_ROUTES].map(([p]) => p).sort());
  });

  it('requires the admin bearer token, and no API key, on every /v1/admin operation', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.AdminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, methods] of ADMIN_ROUTES) {
      for (const method of methods) expect(doc.paths[path][method].security, `${method.toUpperCase()} ${path}`).toEqual([{ AdminToken: [] }]);
    }
  });

  it('defines the X-API-Key header security scheme', () => {
    const schemes = Object.values(doc.components?.securitySchemes ?? {}) as any[];
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
  });

  it('requires the API key on every /v1 operation', () => {
    const schemeNames = Object.entries(doc.components?.securitySchemes ?? {})
      .filter(([, s]: [string, any]) => s.type === 'apiKey' && s.name === 'X-API-Key')
      .map(([name]) => name);
    for (const [path, method, op] of operations()) {
      const security = op?.security ?? doc.security ?? [];
      const names = security.flatMap((req: Record<string, unknown>) => Object.keys(req));
      expect(names.some((n: string) => schemeNames.includes(n)), `${method.toUpperCase()} ${path}`).toBe(true);
    }
  });

  it('defines the ErrorBody schema with the fields of the source section 7', () => {
    const body = resolve(doc.components?.schemas?.ErrorBody);
    expect(body?.type).toBe('object');
    expect(Object.keys(body.properties).sort()).toEqual(['error', 'message', 'path', 'status', 'timestamp', 'validationErrors']);
    expect([...body.required].sort()).toEqual(['error', 'message', 'path', 'status', 'timestamp']);
    expect(body.properties.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(body.properties.status.type).toBe('integer');
    expect(body.properties.validationErrors).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
  });

  it('answers 401 and 500 of every /v1 operation with the ErrorBody schema', () => {
    for (const [path, method, op] of operations()) {
      for (const status of ['401', '500']) {
        const schema = op?.responses?.[status]?.content?.['application/json']?.schema;
        expect(schema?.$ref, `${method.toUpperCase()} ${path} ${status}`).toBe('#/components/schemas/ErrorBody');
      }
    }
  });

  it('documents 413 and 415 for the multipart operations', () => {
    for (const [path, method] of [['/v1/knowledge-bases', 'post'], ['/v1/knowledge-bases/{kbId}', 'patch']] as const) {
      const responses = doc.paths?.[path]?.[method]?.responses ?? {};
      expect(Object.keys(responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
  });

  it.each([
    ['/v1/knowledge-bases', 'post'],
    ['/v1/knowledge-bases/{kbId}', 'patch'],
  ])('documents the multipart form fields of %s %s', (path, method) => {
    const body = doc.paths?.[path]?.[method]?.requestBody;
    const schema = resolve(body?.content?.['multipart/form-data']?.schema);
    expect(schema, 'a multipart/form-data request body').toBeDefined();
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['knowledge_base_name', 'knowledge_base_texts', 'knowledge_base_urls', 'knowledge_base_files']),
    );
    expect(schema.properties.knowledge_base_name.maxLength).toBe(512);
    expect(schema.properties.knowledge_base_files.type).toBe('array');
    expect(schema.properties.knowledge_base_files.items).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('documents kbId as a path parameter of 1 to 64 characters', () => {
    const params = doc.paths?.['/v1/knowledge-bases/{kbId}']?.get?.parameters ?? [];
    const kbId = params.find((p: any) => p.name === 'kbId');
    expect(kbId).toMatchObject({ in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } });
  });

  it('documents page and size as query parameters of both list operations', () => {
    for (const path of ['/v1/agents', '/v1/knowledge-bases']) {
      const names = (doc.paths?.[path]?.get?.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      expect(names.sort(), path).toEqual(['page', 'size']);
    }
  });

  it('documents the page wrapper fields of the agent list', () => {
    const schema = resolve(doc.paths?.['/v1/agents']?.get?.responses?.['200']?.content?.['application/json']?.schema);
    expect(Object.keys(schema.properties).sort()).toEqual(['data', 'hasNext', 'hasPrevious', 'page', 'size', 'totalCount', 'totalPages']);
  });

  it('names the webhook limit with the configured value', () => {
    const description = doc.paths?.['/v1/webhooks']?.post?.description as string;
    expect(description).toContain(`MAX_WEBHOOKS_PER_WORKSPACE (${h.config.MAX_WEBHOOKS_PER_WORKSPACE})`);
  });

  it('describes an error status the same way on every operation', () => {
    const seen = new Map<string, string>();
    for (const [path, method, op] of operations()) {
      for (const [status, res] of Object.entries(op?.responses ?? {}) as [string, any][]) {
        if (Number(status) < 400) continue;
        const first = seen.get(status) ?? res.description;
        seen.set(status, first);
        expect(res.description, `${method} ${path} ${status}`).toBe(first);
      }
    }
    expect(seen.get('413')).toContain('MAX_FILE_BYTES');
  });

  it('documents the QA issue with its qaRuleSnapshot', () => {
    const schema = resolve(doc.paths?.['/v1/qa-issues/{qaIssueId}']?.get?.responses?.['200']?.content?.['application/json']?.schema);
    expect(Object.keys(schema.properties)).toContain('qaRuleSnapshot');
    expect(resolve(schema.properties.qaRuleSnapshot).properties).toHaveProperty('expectedValue');
  });
});

describe('/docs', () => {
  it('serves HTML whose referenced assets all answer 200', async () => {
    const res = await h.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.sort()).toEqual(['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    for (const ref of refs) {
      const asset = await h.app.request(ref);
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get('content-type'), ref).toMatch(ref.endsWith('.css') ? /^text\/css/ : /javascript/);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(0);
    }
  });

  it('points Swagger UI at /openapi.json', async () => {
    expect(await (await h.app.request('/docs/init.js')).text()).toContain('/openapi.json');
  });
});

describe('health', () => {
  it('answers /healthz with 200 without a key', async () => {
    const res = await h.app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('answers /readyz with 200 while Redis is reachable', async () => {
    const res = await h.app.request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });
});
