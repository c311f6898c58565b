import { strictFieldsError } from '../field-suggestion.js';
import { z } from 'zod';
import { CHUNK_FIELDS, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../chunking/chunk-settings.js';
import { checkSourceUrl } from '../net/url-policy.js';
import { metadataSchema } from './metadata.js';
import { MAX_SITES_PER_KB, siteItemSchema } from './site.js';

/**
 * The POST/PATCH form contract, declared once: the API validates each field
 * with these schemas and the OpenAPI document is generated from them.
 */

/** Longest knowledge-base name and text title, in characters (code points). */
export const MAX_NAME_CHARS = 512;
/** Largest single text source, in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 1024 * 1024;
/**
 * The name, texts and URL fields of one request together, in UTF-8 bytes.
 * busboy holds a field's value in memory, so this bounds what one request can
 * make the API buffer besides file bytes (which stream to Redis).
 */
export const MAX_TEXT_FIELDS_BYTES = 10 * 1024 * 1024;
/** validationErrors lists at most this many fields, then a count of the rest. */
export const MAX_REPORTED_ERRORS = 20;

/** Names of the multipart fields. */
export const FORM_FIELD = {
  name: 'knowledge_base_name',
  nameAlias: 'name',
  texts: 'knowledge_base_texts',
  urls: 'knowledge_base_urls',
  sites: 'knowledge_base_sites',
  autoRefresh: 'auto_refresh_hours',
  chunkMaxTokens: CHUNK_FIELDS.maxTokens,
  chunkOverlapTokens: CHUNK_FIELDS.overlapTokens,
  files: 'knowledge_base_files',
  filesItems: 'knowledge_base_files.items',
} as const;

/** The form's text fields (every field but the file parts): the fields of a multipart form read as text, and the keys a JSON body may have. */
export const FORM_TEXT_FIELDS: readonly string[] = [
  FORM_FIELD.name,
  FORM_FIELD.nameAlias,
  FORM_FIELD.texts,
  FORM_FIELD.urls,
  FORM_FIELD.sites,
  FORM_FIELD.autoRefresh,
  FORM_FIELD.chunkMaxTokens,
  FORM_FIELD.chunkOverlapTokens,
];

/** The form's file parts (the field and its `[]` spelling). */
export const FORM_FILE_FIELDS: readonly string[] = [FORM_FIELD.files, FORM_FIELD.filesItems];

// With the `u` flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);
const WELL_FORMED = 'must be well-formed Unicode (no lone surrogate code points)';
const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
};

/** `knowledge_base_name` (alias `name`). */
export const kbNameSchema = z
  .string()
  .refine(wellFormed, WELL_FORMED)
  .refine((s) => s.trim().length > 0, 'must not be empty')
  .refine((s) => codePoints(s) <= MAX_NAME_CHARS, `must be at most ${MAX_NAME_CHARS} characters`)
  .meta({ description: `Name (rename value on PATCH), 1 to ${MAX_NAME_CHARS} characters; alias \`name\``, minLength: 1, maxLength: MAX_NAME_CHARS });

const textBody = z
  .string({ error: 'text must be a string' })
  .refine(wellFormed, `text ${WELL_FORMED}`)
  .refine((s) => s.trim().length > 0, 'text must not be empty')
  .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_TEXT_BYTES, `text must be at most ${MAX_TEXT_BYTES} bytes`);

const textTitle = z
  .string({ error: 'title must be a string' })
  .refine(wellFormed, `title ${WELL_FORMED}`)
  .refine((s) => codePoints(s) <= MAX_NAME_CHARS, `title must be at most ${MAX_NAME_CHARS} characters`);

/** An element of `knowledge_base_texts` given as an object. */
export const textObjectSchema = z.strictObject(
  { title: textTitle.optional(), text: textBody, metadata: metadataSchema.optional() },
  { error: strictFieldsError() },
);

/** An element of `knowledge_base_texts`: a string, or {"title", "text"}. */
export const textItemSchema = z.union([textBody, textObjectSchema]).meta({ id: 'TextSource' });

/** A URL of `knowledge_base_urls`, normalized to its WHATWG `href`. */
export const urlStringSchema = z
  .string({ error: 'must be a string' })
  .refine(wellFormed, WELL_FORMED)
  .transform((raw, ctx) => {
    const checked = checkSourceUrl(raw);
    if (checked.ok) return checked.url;
    ctx.addIssue({ code: 'custom', message: checked.message });
    return z.NEVER;
  })
  .meta({ description: 'Absolute http or https URL, at most 2048 characters, without credentials' });

/** An element of `knowledge_base_urls` given as an object: the URL with the source's metadata. */
export const urlObjectSchema = z.strictObject(
  { url: urlStringSchema, metadata: metadataSchema.optional() },
  { error: strictFieldsError() },
);

/** An element of `knowledge_base_urls`: a URL string, or {"url", "metadata"}. */
export const urlItemSchema = z.union([urlStringSchema, urlObjectSchema]).meta({ id: 'UrlSource' });

/** Longest auto-refresh period, hours (30 days). */
export const MAX_AUTO_REFRESH_HOURS = 720;

/** `auto_refresh_hours`: refresh every URL source of the knowledge base on this period; 0 turns it off. */
export const autoRefreshSchema = z
  .string()
  .regex(/^\d{1,3}$/, `must be a whole number from 0 to ${MAX_AUTO_REFRESH_HOURS}`)
  .transform(Number)
  .pipe(z.number().int().max(MAX_AUTO_REFRESH_HOURS, `must be a whole number from 0 to ${MAX_AUTO_REFRESH_HOURS}`))
  .meta({ description: `Fetch every URL source again every this many hours (1 to ${MAX_AUTO_REFRESH_HOURS}); 0 turns it off` });

const WHOLE = /^\d{1,4}$/;

/** `chunk_max_tokens`: the knowledge base's chunk bound, from its form string. */
export const chunkMaxTokensSchema = z
  .string()
  .regex(WHOLE, `must be a whole number from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}`)
  .transform(Number)
  .pipe(z.number().int().min(MIN_CHUNK_TOKENS, `must be a whole number from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}`).max(MAX_CHUNK_TOKENS, `must be a whole number from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}`))
  .meta({
    description: `Most cl100k_base tokens in one chunk (${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS}); default the deployment's CHUNK_MAX_TOKENS. A change re-chunks every ready source in the background`,
  });

/** `chunk_overlap_tokens`: tokens repeated between neighbouring chunks; checked against the maximum by the verb. */
export const chunkOverlapTokensSchema = z
  .string()
  .regex(WHOLE, 'must be a whole number from 0 to half of chunk_max_tokens')
  .transform(Number)
  .meta({ description: "Tokens of a chunk's tail repeated at the start of the next (0 to half of chunk_max_tokens); default the deployment's CHUNK_OVERLAP_TOKENS" });

/**
 * A JSON Schema with its `$defs` written in place. An embedded `contentSchema`
 * has no `$id`, so a `#/$defs/...` reference in it would resolve against the
 * OpenAPI document's root, where no such definition is.
 */
export function inlineDefs(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return walk(defs[ref.slice('#/$defs/'.length)]);
    return Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$defs' && k !== '$schema').map(([k, v]) => [k, walk(v)]));
  };
  return walk(schema) as Record<string, unknown>;
}

/** A JSON-array form field, documented as a string holding JSON of `items[]`. */
function jsonArrayField(item: z.ZodType, description: string, example: string) {
  return z.string().meta({
    description,
    example,
    contentMediaType: 'application/json',
    contentSchema: inlineDefs(z.toJSONSchema(z.array(item), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
  });
}

const fileParts = z
  .array(z.string().meta({ format: 'binary' }))
  .meta({ description: 'File parts (also accepted as knowledge_base_files.items), repeated: PDF, TXT, HTML, Markdown, DOCX, and the formats ACCEPTED_FORMATS adds (PPTX, XLSX, ODS, CSV, EPUB, ODT)' });

const sourceFields = {
  [FORM_FIELD.texts]: jsonArrayField(
    textItemSchema,
    `JSON array string; each element is a string or {"title","text","metadata"} (text at most ${MAX_TEXT_BYTES} bytes)`,
    '["Opening hours are 9 to 5."]',
  ).optional(),
  [FORM_FIELD.urls]: jsonArrayField(
    urlItemSchema,
    'JSON array string of absolute http(s) URLs, each a string or {"url","metadata"}',
    '["https://example.com/faq", {"url": "https://example.com/prices", "metadata": {"team": "sales"}}]',
  ).optional(),
  [FORM_FIELD.sites]: jsonArrayField(
    siteItemSchema,
    `JSON array string of site sources (at most ${MAX_SITES_PER_KB} per knowledge base): each {"url", "maxPages", "maxDepth", "include", "exclude", "sitemap"}; its same-origin pages become URL sources with its siteId`,
    '[{"url":"https://example.com/docs/","maxPages":200,"exclude":["/docs/archive/**"]}]',
  ).optional(),
  [FORM_FIELD.autoRefresh]: z.string().optional().meta({ description: autoRefreshSchema.description, example: '24' }),
  [FORM_FIELD.chunkMaxTokens]: z.string().optional().meta({ description: chunkMaxTokensSchema.description, example: '512' }),
  [FORM_FIELD.chunkOverlapTokens]: z.string().optional().meta({ description: chunkOverlapTokensSchema.description, example: '64' }),
  [FORM_FIELD.files]: fileParts.optional(),
};

/** The multipart form of PATCH (every field optional, at least one required). */
export const knowledgeBaseUpdateFormSchema = z
  .object({ [FORM_FIELD.name]: kbNameSchema.optional(), ...sourceFields })
  .meta({ id: 'KnowledgeBaseUpdateForm' });

/** The multipart form of POST (`knowledge_base_name` required). */
export const knowledgeBaseCreateFormSchema = z
  .object({ [FORM_FIELD.name]: kbNameSchema, ...sourceFields })
  .meta({ id: 'KnowledgeBaseCreateForm' });

const jsonNumber = (schema: z.ZodType, example: number) =>
  z
    .number()
    .int()
    .optional()
    .meta({ description: `${schema.description ?? ''}; a whole number (a string of digits is read too)`, example });

/**
 * The same fields as a JSON body (`Content-Type: application/json`): the
 * arrays are JSON arrays rather than strings holding one, the settings
 * numbers; no files. Documents what `api/http/json-source-body.ts` reads,
 * which hands the fields to the form's own validation.
 */
const jsonSourceFields = {
  [FORM_FIELD.texts]: z.array(textItemSchema).optional().meta({ description: `Each element a string or {"title","text","metadata"} (text at most ${MAX_TEXT_BYTES} bytes)` }),
  [FORM_FIELD.urls]: z.array(urlItemSchema).optional().meta({ description: 'Absolute http(s) URLs, each a string or {"url","metadata"}' }),
  [FORM_FIELD.sites]: z.array(siteItemSchema).optional().meta({ description: `Site sources (at most ${MAX_SITES_PER_KB} per knowledge base)` }),
  [FORM_FIELD.autoRefresh]: jsonNumber(autoRefreshSchema, 24),
  [FORM_FIELD.chunkMaxTokens]: jsonNumber(chunkMaxTokensSchema, 512),
  [FORM_FIELD.chunkOverlapTokens]: jsonNumber(chunkOverlapTokensSchema, 64),
};

/** The JSON body of PATCH (every field optional, at least one required). */
export const knowledgeBaseUpdateJsonSchema = z
  .strictObject({ [FORM_FIELD.name]: kbNameSchema.optional(), ...jsonSourceFields })
  .meta({ id: 'KnowledgeBaseUpdateJson' });

/** The JSON body of POST (`knowledge_base_name` required). */
export const knowledgeBaseCreateJsonSchema = z
  .strictObject({ [FORM_FIELD.name]: kbNameSchema, ...jsonSourceFields })
  .meta({ id: 'KnowledgeBaseCreateJson' });

/** The multipart form of PUT .../documents/{documentId}: one new version, a file part or one text. */
export const documentReplaceFormSchema = z
  .object({ [FORM_FIELD.texts]: sourceFields[FORM_FIELD.texts], [FORM_FIELD.files]: sourceFields[FORM_FIELD.files] })
  .meta({ id: 'DocumentReplaceForm', description: `One ${FORM_FIELD.files} part, or ${FORM_FIELD.texts} with one element` });

/** The JSON body of PUT .../documents/{documentId}: one new text. */
export const documentReplaceJsonSchema = z
  .strictObject({ [FORM_FIELD.texts]: z.array(textItemSchema).length(1) })
  .meta({ id: 'DocumentReplaceJson', description: `${FORM_FIELD.texts} with one element, a string or {"title","text"}` });
