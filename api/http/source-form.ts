import type { z } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { newDocumentId, newSiteId } from '../../shared/ids.js';
import { MAX_SITES_PER_KB, siteItemSchema } from '../../shared/schemas/site.js';
import {
  FORM_FIELD,
  MAX_REPORTED_ERRORS,
  autoRefreshSchema,
  chunkMaxTokensSchema,
  chunkOverlapTokensSchema,
  kbNameSchema,
  textItemSchema,
  urlItemSchema,
} from '../../shared/schemas/source-form.js';
import type { ChunkSettingsChange } from '../../shared/chunking/chunk-settings.js';
import { sourceFingerprint } from '../../shared/store/kb-records.js';
import type { SourceForm } from '../../shared/verbs/knowledge-bases.js';
import type { RawForm } from './multipart.js';

export type { SourceForm };

/** How {@link readSourceForm} reads a form. */
export interface SourceFormOptions {
  /** Most sources one request may add (MAX_SOURCES_PER_REQUEST). */
  maxSources: number;
  /** The knowledge base name must be present (create); on update it is an optional rename. */
  requireName: boolean;
  /** Most pages one site may ask for (CRAWL_MAX_PAGES). Default 1,000. */
  maxSitePages?: number;
}

/**
 * Turns the parsed multipart fields into new sources, in the contract's order:
 * texts, then URLs, then files. Problems are collected so the client sees them
 * together in `validationErrors`, at most {@link MAX_REPORTED_ERRORS} of them.
 * An array longer than `maxSources` is refused before any element is looked at.
 */
export function readSourceForm(form: RawForm, { maxSources, requireName, maxSitePages = 1_000 }: SourceFormOptions): SourceForm {
  const errors = new FieldErrors();
  const out: SourceForm = { sources: [], sites: [] };

  const name = form.fields.get(FORM_FIELD.name);
  if (name !== undefined) {
    const parsed = kbNameSchema.safeParse(name);
    if (parsed.success) out.name = parsed.data;
    else errors.add(FORM_FIELD.name, firstMessage(parsed.error));
  } else if (requireName) {
    errors.add(FORM_FIELD.name, 'is required');
  }

  const autoRefresh = form.fields.get(FORM_FIELD.autoRefresh);
  if (autoRefresh !== undefined) {
    const parsed = autoRefreshSchema.safeParse(autoRefresh);
    if (parsed.success) out.autoRefreshHours = parsed.data;
    else errors.add(FORM_FIELD.autoRefresh, firstMessage(parsed.error));
  }

  const chunking: ChunkSettingsChange = {};
  const maxTokens = form.fields.get(FORM_FIELD.chunkMaxTokens);
  if (maxTokens !== undefined) {
    const parsed = chunkMaxTokensSchema.safeParse(maxTokens);
    if (parsed.success) chunking.maxTokens = parsed.data;
    else errors.add(FORM_FIELD.chunkMaxTokens, firstMessage(parsed.error));
  }
  const overlapTokens = form.fields.get(FORM_FIELD.chunkOverlapTokens);
  if (overlapTokens !== undefined) {
    const parsed = chunkOverlapTokensSchema.safeParse(overlapTokens);
    if (parsed.success) chunking.overlapTokens = parsed.data;
    else errors.add(FORM_FIELD.chunkOverlapTokens, firstMessage(parsed.error));
  }
  if (Object.keys(chunking).length > 0) out.chunking = chunking;

  const texts = jsonArray(form, FORM_FIELD.texts, maxSources, errors);
  texts.forEach((item, i) => {
    const parsed = textItemSchema.safeParse(item);
    if (!parsed.success) return errors.add(`${FORM_FIELD.texts}[${i}]`, textItemMessage(item, parsed.error));
    const { text, title, metadata } = typeof parsed.data === 'string' ? { text: parsed.data, title: undefined, metadata: undefined } : parsed.data;
    const source = { type: 'text' as const, content: text, ...(title ? { title } : {}) };
    out.sources.push({ documentId: newDocumentId(), ...source, fingerprint: sourceFingerprint(source), ...(metadata ? { metadata } : {}) });
  });
  const urls = jsonArray(form, FORM_FIELD.urls, maxSources, errors);
  urls.forEach((item, i) => {
    const parsed = urlItemSchema.safeParse(item);
    if (parsed.success) {
      const { url, metadata } = typeof parsed.data === 'string' ? { url: parsed.data, metadata: undefined } : parsed.data;
      const source = { type: 'url' as const, content: url };
      out.sources.push({ documentId: newDocumentId(), ...source, fingerprint: sourceFingerprint(source), ...(metadata ? { metadata } : {}) });
    } else errors.add(`${FORM_FIELD.urls}[${i}]`, urlItemMessage(item, parsed.error));
  });
  const sites = jsonArray(form, FORM_FIELD.sites, MAX_SITES_PER_KB, errors);
  sites.forEach((item, i) => {
    const parsed = siteItemSchema.safeParse(item);
    if (!parsed.success) return errors.add(`${FORM_FIELD.sites}[${i}]`, siteMessage(parsed.error));
    // The default of 100 pages is lowered to CRAWL_MAX_PAGES where that is less; an explicit larger number is an error.
    const given = (item as { maxPages?: unknown }).maxPages !== undefined;
    if (given && parsed.data.maxPages > maxSitePages) return errors.add(`${FORM_FIELD.sites}[${i}]`, `maxPages must be at most ${maxSitePages}`);
    out.sites.push({ siteId: newSiteId(), ...parsed.data, maxPages: Math.min(parsed.data.maxPages, maxSitePages) });
  });
  for (const f of form.files) {
    out.sources.push({
      documentId: newDocumentId(),
      type: 'file',
      content: f.filename,
      title: f.filename,
      filename: f.filename,
      mimeType: f.mimeType,
      sizeBytes: f.sizeBytes,
      stageKey: f.stage.key,
      sha256: f.sha256,
      fingerprint: sourceFingerprint({ type: 'file', content: f.filename, sha256: f.sha256 }),
      ...(f.declaredType ? { declaredType: f.declaredType } : {}),
    });
  }

  const count = texts.length + urls.length + form.files.length;
  if (count > maxSources) errors.add('sources', `at most ${maxSources} sources per request`);
  if (!requireName && out.name === undefined && out.autoRefreshHours === undefined && out.chunking === undefined && count === 0 && sites.length === 0 && errors.empty) {
    errors.add(
      'request',
      `send at least one of ${FORM_FIELD.name}, ${FORM_FIELD.texts}, ${FORM_FIELD.urls}, ${FORM_FIELD.sites}, ${FORM_FIELD.files}, ${FORM_FIELD.autoRefresh}, ${FORM_FIELD.chunkMaxTokens} or ${FORM_FIELD.chunkOverlapTokens}`,
    );
  }
  errors.throwIfAny();
  return out;
}

/** Field messages, capped so a hostile array cannot make the response huge. */
class FieldErrors {
  private readonly fields: Record<string, string> = {};
  private count = 0;

  get empty(): boolean {
    return this.count === 0;
  }

  add(field: string, message: string): void {
    this.count += 1;
    if (this.count <= MAX_REPORTED_ERRORS) this.fields[field] = message;
  }

  throwIfAny(): void {
    if (this.count === 0) return;
    const rest = this.count - MAX_REPORTED_ERRORS;
    if (rest > 0) this.fields.more = `${rest} more field error${rest === 1 ? '' : 's'} not listed`;
    throw new ValidationError(this.fields);
  }
}

function jsonArray(form: RawForm, field: string, maxItems: number, errors: FieldErrors): unknown[] {
  const raw = form.fields.get(field);
  if (raw === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    errors.add(field, 'must be a JSON array string');
    return [];
  }
  if (!Array.isArray(value)) {
    errors.add(field, 'must be a JSON array string');
    return [];
  }
  if (value.length > maxItems) {
    errors.add(field, `has ${value.length} elements; at most ${maxItems} sources per request`);
    return [];
  }
  return value;
}

/** A site element's first problem, named by its key (`url: must be ...`). */
function siteMessage(err: z.ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'is invalid';
  const at = issue.path.filter((p) => typeof p === 'string' || typeof p === 'number').join('.');
  return at ? `${at}: ${issue.message}` : issue.message;
}

function firstMessage(err: z.ZodError): string {
  return err.issues[0]?.message ?? 'is invalid';
}

/** The union's branch error that fits a URL element's JSON type. */
function urlItemMessage(item: unknown, err: z.ZodError): string {
  const issue = err.issues[0];
  if (issue?.code === 'invalid_union') {
    const branch = typeof item === 'string' ? 0 : typeof item === 'object' && item !== null && !Array.isArray(item) ? 1 : -1;
    const inner = branch >= 0 ? issue.errors[branch]?.[0] : undefined;
    if (!inner) return 'must be a string or an object with a string field url';
    return inner.path.length > 0 && inner.path[0] === 'metadata' ? `metadata: ${inner.message}` : inner.message;
  }
  return issue?.message ?? 'is invalid';
}

/** The union's branch error that fits the element's JSON type. */
function textItemMessage(item: unknown, err: z.ZodError): string {
  const issue = err.issues[0];
  if (issue?.code === 'invalid_union') {
    const branch = typeof item === 'string' ? 0 : typeof item === 'object' && item !== null && !Array.isArray(item) ? 1 : -1;
    const inner = branch >= 0 ? issue.errors[branch]?.[0] : undefined;
    if (!inner) return 'must be a string or an object with string fields title and text';
    return metadataPrefixed(inner);
  }
  return issue ? metadataPrefixed(issue) : 'is invalid';
}

/** An issue's message, saying so when it is about the element's metadata. */
function metadataPrefixed(issue: { path: PropertyKey[]; message: string }): string {
  return issue.path[0] === 'metadata' ? `metadata: ${issue.message}` : issue.message;
}
