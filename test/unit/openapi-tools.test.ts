import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.js';
import { SCHEMA_FILE, generatedTypes } from '../../scripts/openapi-types.js';

// The document is walked as plain JSON; its shape is what is under test.
let doc: any;

beforeAll(async () => {
  doc = await openApiDocument();
});

describe('the served /openapi.json, checked by the tools integrators use', () => {
  it('passes redocly lint with the recommended rules, with no error and no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(listed).toEqual([]);
  });

  it('passes swagger-parser validate, every $ref resolved', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('generates TypeScript with openapi-typescript, the same as the build generated for the client', async () => {
    const generated = await generatedTypes(structuredClone(doc));
    expect(generated).toContain('export interface paths');
    const kept = await readFile(SCHEMA_FILE, 'utf8');
    // A route or schema changed and bin/build.mjs did not see it: its SCHEMA_INPUTS miss a source of the document.
    expect(kept === generated, 'clients/typescript/src/schema.d.ts is stale: see SCHEMA_INPUTS in bin/build.mjs').toBe(true);
  });
});

describe('what a generated client needs from the document', () => {
  const ops = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );

  it('gives every operation a unique operationId and a tag other than the default', () => {
    const ids = ops().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(ops().flatMap(({ op }) => op.tags ?? []));
    expect(tags.size).toBeGreaterThanOrEqual(4);
  });

  it('types page and size as integers with their bounds', () => {
    const params = doc.paths['/v1/knowledge-bases'].get.parameters;
    expect(params.find((p: any) => p.name === 'page').schema).toMatchObject({ type: 'integer', minimum: 0 });
    expect(params.find((p: any) => p.name === 'size').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('declares the response headers: ETag, Idempotent-Replayed, Retry-After, X-Request-Id and the rate limit', () => {
    const kb = doc.paths['/v1/knowledge-bases/{kbId}'];
    expect(Object.keys(kb.get.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining']));
    expect(Object.keys(kb.patch.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Idempotent-Replayed']));
    expect(Object.keys(kb.patch.responses['409'].headers)).toContain('Retry-After');
    expect(Object.keys(kb.delete.responses['412'].headers)).toContain('ETag');
    expect(Object.keys(doc.components.headers)).toEqual(expect.arrayContaining(['ETag', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed']));
  });

  it('takes If-None-Match on GET and If-Match on PATCH and both DELETEs of the knowledge-base routes', () => {
    const headerNames = (op: any) => (op.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase());
    expect(headerNames(doc.paths['/v1/knowledge-bases/{kbId}'].get)).toContain('if-none-match');
    expect(headerNames(doc.paths['/v1/knowledge-bases/{kbId}'].patch)).toContain('if-match');
    expect(headerNames(doc.paths['/v1/knowledge-bases/{kbId}'].delete)).toContain('if-match');
    expect(headerNames(doc.paths['/v1/knowledge-bases/{kbId}/documents/{documentId}'].delete)).toContain('if-match');
  });

  it('describes each webhook event body in the OpenAPI 3.1 webhooks section', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(['knowledge_base.changed', 'knowledge_base.settled', 'site.discovered', 'source.failed', 'source.ready', 'webhook.test']);
    const body = doc.webhooks['source.ready'].post.requestBody.content['application/json'].schema;
    expect(body.$ref).toBe('#/components/schemas/WebhookEvent');
  });

  it('closes the Tool schema where the source description shows its fields: voice_transfer_call, and no other field', () => {
    const schemas = doc.components.schemas;
    expect(schemas.Tool.oneOf).toEqual([{ $ref: '#/components/schemas/VoiceTransferCallTool' }, { $ref: '#/components/schemas/OtherTool' }]);
    const transfer = schemas.VoiceTransferCallTool;
    expect(transfer).toMatchObject({ type: 'object', required: ['type'], additionalProperties: false });
    expect(transfer.properties.type).toMatchObject({ const: 'voice_transfer_call' });
    expect(Object.keys(transfer.properties).sort()).toEqual(
      ['extensionNumber', 'instruction', 'nodeId', 'toolName', 'transferSettings', 'transferTo', 'transferToRouting', 'type'],
    );
    const settings = transfer.properties.transferSettings;
    expect(settings.additionalProperties).toBe(false);
    expect(settings.properties.ringingDuration.type).toBe('number');
    expect(settings.properties.waitForParticipantAnswer.type).toBe('boolean');
    expect(Object.keys(settings.properties)).toHaveLength(10);
    // Any other type is open, and cannot be a transfer tool that escaped the closed schema.
    expect(schemas.OtherTool).toMatchObject({ required: ['type'], properties: { type: { not: { const: 'voice_transfer_call' } } } });
    expect(schemas.OtherTool.additionalProperties).not.toBe(false);
  });

  it('keeps the form fields JSON contentSchema free of references to a missing root $defs', () => {
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
  });
});
