import { ValidationError } from '../shared/errors.js';
import { newDocumentId } from '../shared/ids.js';
import type { NewSource } from '../shared/store/kb-records.js';
import { checkSourceUrl } from '../shared/url-policy.js';
import type { RawForm } from './multipart.js';

/** Largest single text source, in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 1024 * 1024;
const MAX_NAME = 512;

export interface SourceForm {
  name?: string;
  sources: NewSource[];
}

/**
 * Turns the parsed multipart fields into new sources, in the contract's order:
 * texts, then URLs, then files. Every problem is collected so the client gets
 * all of them in one `validationErrors` map.
 */
export function readSourceForm(form: RawForm, maxSources: number, requireName: boolean): SourceForm {
  const errors: Record<string, string> = {};
  const out: SourceForm = { sources: [] };

  const name = form.fields.get('knowledge_base_name');
  if (name !== undefined) {
    if (name.trim().length === 0) errors.knowledge_base_name = 'must not be empty';
    else if ([...name].length > MAX_NAME) errors.knowledge_base_name = `must be at most ${MAX_NAME} characters`;
    else out.name = name;
  } else if (requireName) {
    errors.knowledge_base_name = 'is required';
  }

  for (const [i, item] of jsonArray(form, 'knowledge_base_texts', errors).entries()) {
    const at = `knowledge_base_texts[${i}]`;
    const parsed = textItem(item);
    if (typeof parsed === 'string') errors[at] = parsed;
    else out.sources.push({ documentId: newDocumentId(), type: 'text', content: parsed.text, ...(parsed.title ? { title: parsed.title } : {}) });
  }
  for (const [i, item] of jsonArray(form, 'knowledge_base_urls', errors).entries()) {
    const checked = checkSourceUrl(item);
    if (checked.ok) out.sources.push({ documentId: newDocumentId(), type: 'url', content: checked.url });
    else errors[`knowledge_base_urls[${i}]`] = checked.message;
  }
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
      ...(f.declaredType ? { declaredType: f.declaredType } : {}),
    });
  }

  if (out.sources.length > maxSources) errors.sources = `at most ${maxSources} sources per request`;
  if (!requireName && out.name === undefined && out.sources.length === 0 && Object.keys(errors).length === 0) {
    errors.request =
      'send at least one of knowledge_base_name, knowledge_base_texts, knowledge_base_urls or knowledge_base_files';
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return out;
}

function jsonArray(form: RawForm, field: string, errors: Record<string, string>): unknown[] {
  const raw = form.fields.get(field);
  if (raw === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    errors[field] = 'must be a JSON array string';
    return [];
  }
  if (!Array.isArray(value)) {
    errors[field] = 'must be a JSON array string';
    return [];
  }
  return value;
}

/** A text element: a string, or {"title": string, "text": string} and nothing else. */
function textItem(item: unknown): { title?: string; text: string } | string {
  let text: unknown = item;
  let title: unknown;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const keys = Object.keys(item);
    const extra = keys.filter((k) => k !== 'title' && k !== 'text');
    if (extra.length > 0) return `unknown key ${extra.map((k) => JSON.stringify(k)).join(', ')}; allowed: title, text`;
    ({ text, title } = item as Record<string, unknown>);
    if (title !== undefined && typeof title !== 'string') return 'title must be a string';
    if (typeof title === 'string' && [...title].length > MAX_NAME) return `title must be at most ${MAX_NAME} characters`;
  }
  if (typeof text !== 'string') return 'must be a string or an object with string fields title and text';
  if (text.trim().length === 0) return 'text must not be empty';
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) return `text must be at most ${MAX_TEXT_BYTES} bytes`;
  return typeof title === 'string' && title.length > 0 ? { title, text } : { text };
}
