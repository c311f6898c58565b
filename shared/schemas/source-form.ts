import { z } from 'zod';
import { checkSourceUrl } from '../url-policy.js';

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
  autoRefresh: 'auto_refresh_hours',
  files: 'knowledge_base_files',
  filesItems: 'knowledge_base_files.items',
} as const;

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
  { title: textTitle.optional(), text: textBody },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}; allowed: title, text` : undefined) },
);

/** An element of `knowledge_base_texts`: a string, or {"title", "text"}. */
export const textItemSchema = z.union([textBody, textObjectSchema]).meta({ id: 'TextSource' });

/** An element of `knowledge_base_urls`, normalized to its WHATWG `href`. */
export const urlItemSchema = z
  .string({ error: 'must be a string' })
  .refine(wellFormed, WELL_FORMED)
  .transform((raw, ctx) => {
    const checked = checkSourceUrl(raw);
    if (checked.ok) return checked.url;
    ctx.addIssue({ code: 'custom', message: checked.message });
    return z.NEVER;
  })
  .meta({ description: 'Absolute http or https URL, at most 2048 characters, without credentials' });

/** Longest auto-refresh period, hours (30 days). */
export const MAX_AUTO_REFRESH_HOURS = 720;

/** `auto_refresh_hours`: refresh every URL source of the knowledge base on this period; 0 turns it off. */
export const autoRefreshSchema = z
  .string()
  .regex(/^\d{1,3}$/, `must be a whole number from 0 to ${MAX_AUTO_REFRESH_HOURS}`)
  .transform(Number)
  .pipe(z.number().int().max(MAX_AUTO_REFRESH_HOURS, `must be a whole number from 0 to ${MAX_AUTO_REFRESH_HOURS}`))
  .meta({ description: `Fetch every URL source again every this many hours (1 to ${MAX_AUTO_REFRESH_HOURS}); 0 turns it off` });

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
  .meta({ description: 'File parts (also accepted as knowledge_base_files.items), repeated: PDF, TXT, HTML, Markdown, DOCX' });

const sourceFields = {
  [FORM_FIELD.texts]: jsonArrayField(
    textItemSchema,
    `JSON array string; each element is a string or {"title","text"} (text at most ${MAX_TEXT_BYTES} bytes)`,
    '["Opening hours are 9 to 5."]',
  ).optional(),
  [FORM_FIELD.urls]: jsonArrayField(urlItemSchema, 'JSON array string of absolute http(s) URLs', '["https://example.com/faq"]').optional(),
  [FORM_FIELD.autoRefresh]: z.string().optional().meta({ description: autoRefreshSchema.description, example: '24' }),
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
