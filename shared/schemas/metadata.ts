import { z } from 'zod';
import { strictFieldsError } from '../field-suggestion.js';

/** Most keys in one source's metadata. */
export const MAX_METADATA_KEYS = 32;
/** Largest metadata, as compact JSON in UTF-8 bytes. */
export const MAX_METADATA_BYTES = 4096;
/** Longest metadata key, in characters. */
export const MAX_METADATA_KEY_CHARS = 128;

/**
 * A source's metadata: a flat object of string, number and boolean values,
 * at most {@link MAX_METADATA_KEYS} keys and {@link MAX_METADATA_BYTES}
 * bytes. Flat on purpose: it is copied onto every chunk and filtered on by
 * exact match in search, so nested values would have no meaning there.
 */
export const metadataSchema = z
  .record(
    z.string().min(1, 'keys must not be empty').max(MAX_METADATA_KEY_CHARS, `keys must be at most ${MAX_METADATA_KEY_CHARS} characters`),
    z.union([z.string(), z.number().refine(Number.isFinite, 'numbers must be finite'), z.boolean()], {
      error: 'values must be strings, numbers or booleans',
    }),
  )
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `at most ${MAX_METADATA_KEYS} keys`)
  .refine((m) => Buffer.byteLength(JSON.stringify(m), 'utf8') <= MAX_METADATA_BYTES, `at most ${MAX_METADATA_BYTES} bytes as JSON`)
  .meta({
    id: 'Metadata',
    description: `Flat object of string, number and boolean values; at most ${MAX_METADATA_KEYS} keys and ${MAX_METADATA_BYTES} bytes as JSON`,
    example: { team: 'support', year: 2026, public: true },
  });
export type Metadata = z.infer<typeof metadataSchema>;

/** Body of PATCH .../documents/{documentId}: the source's metadata, replaced as a whole. */
export const documentPatchSchema = z.strictObject({ metadata: metadataSchema }, { error: strictFieldsError('must be a JSON object with metadata') }).meta({ id: 'DocumentPatch' });
