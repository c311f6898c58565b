import type { Readable } from 'node:stream';
import { PayloadTooLargeError, ValidationError } from '../../shared/errors.js';
import { unknownFieldMessage } from '../../shared/field-suggestion.js';
import { FORM_FIELD, FORM_FILE_FIELDS, FORM_TEXT_FIELDS, MAX_TEXT_FIELDS_BYTES } from '../../shared/schemas/source-form.js';
import { BodyMeter, type BodyMeterLimits } from './body-meter.js';
import type { PartTap, RawForm } from './multipart.js';

/** A JSON body of POST or PATCH: the text fields of the form, with room for JSON's own punctuation. */
export const MAX_JSON_BODY_BYTES = MAX_TEXT_FIELDS_BYTES + 64 * 1024;

/** The keys a JSON body may have: the form's fields but the file parts. */
const JSON_FIELDS = FORM_TEXT_FIELDS;
const ARRAY_FIELDS = new Set<string>([FORM_FIELD.texts, FORM_FIELD.urls, FORM_FIELD.sites]);
const STRING_FIELDS = new Set<string>([FORM_FIELD.name, FORM_FIELD.nameAlias]);
const FILE_FIELDS = new Set<string>(FORM_FILE_FIELDS);
const FILES_MESSAGE = 'files are sent as multipart/form-data parts; a JSON body holds texts, URLs, sites and settings';

/** JSON with its object keys sorted, at every depth: the same body in another key order reads the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Reads a whole body through the meter (413 past `maxBytes`, 408 below the minimum rate). */
async function readMetered(body: Readable, limits: BodyMeterLimits): Promise<Buffer> {
  const meter = new BodyMeter(body, limits);
  body.pipe(meter);
  const pieces: Buffer[] = [];
  try {
    for await (const piece of meter) pieces.push(piece as Buffer);
  } finally {
    body.unpipe(meter);
    meter.destroy();
  }
  return Buffer.concat(pieces);
}

/**
 * Reads the JSON body of POST or PATCH into the fields the multipart form
 * would carry, so both shapes go through one validation (`readSourceForm`)
 * with the same messages: `knowledge_base_texts` and the other arrays are
 * JSON arrays here rather than strings holding one, and the numbers may be
 * numbers. Unknown keys are a 400 naming the nearest known one, as for form
 * fields. The body is bounded by `limits.maxBytes` (MAX_REQUEST_BYTES) and
 * {@link MAX_JSON_BODY_BYTES}, whichever is less. `tap` gets the body as canonical JSON, the Idempotency-Key
 * fingerprint, once it was read whole and its keys are known ones.
 */
export async function readJsonSourceBody(body: Readable, limits: BodyMeterLimits, tap?: PartTap): Promise<RawForm> {
  const maxBytes = Math.min(limits.maxBytes, MAX_JSON_BODY_BYTES);
  let text: string;
  try {
    text = (await readMetered(body, { ...limits, maxBytes })).toString('utf8');
  } catch (err) {
    if (err instanceof PayloadTooLargeError) throw new PayloadTooLargeError(`A JSON body may hold at most ${maxBytes} bytes; send files as multipart/form-data`);
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError({ request: 'the body must be a JSON object' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError({ request: 'the body must be a JSON object' });

  const fields = new Map<string, string>();
  const errors: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (FILE_FIELDS.has(key)) errors[key] = FILES_MESSAGE;
    else if (!JSON_FIELDS.includes(key)) errors[key] = unknownFieldMessage(key, JSON_FIELDS);
    else if (ARRAY_FIELDS.has(key)) {
      if (Array.isArray(v)) fields.set(key, JSON.stringify(v));
      else errors[key] = 'must be a JSON array';
    } else if (STRING_FIELDS.has(key)) {
      if (typeof v === 'string') fields.set(key, v);
      else errors[key] = 'must be a string';
    } else if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string') {
      // The setting's own schema judges the value, with the form's message.
      fields.set(key, String(v));
    } else errors[key] = 'must be a whole number';
  }
  if (fields.has(FORM_FIELD.nameAlias)) {
    if (fields.has(FORM_FIELD.name)) errors[FORM_FIELD.name] = 'must be sent once';
    else fields.set(FORM_FIELD.name, fields.get(FORM_FIELD.nameAlias)!);
    fields.delete(FORM_FIELD.nameAlias);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  tap?.field('application/json', canonicalJson(value));
  tap?.complete();
  return { fields, files: [] };
}
