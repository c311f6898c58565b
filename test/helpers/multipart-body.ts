/**
 * Builders for the multipart bodies of `POST` and `PATCH /v1/knowledge-bases`.
 * Parts keep the order they are given in, so tests can check that sources
 * come back in part order.
 */

/** A text field or a file part. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; data: Uint8Array | string; type?: string };

/** A FormData with the parts in the given order (repeated names allowed). */
export function multipartForm(parts: FormPart[]): FormData {
  const form = new FormData();
  for (const part of parts) {
    if ('value' in part) form.append(part.name, part.value);
    else form.append(part.name, new Blob([part.data], part.type ? { type: part.type } : {}), part.filename);
  }
  return form;
}

export const nameField = (value: string, field: 'knowledge_base_name' | 'name' = 'knowledge_base_name'): FormPart => ({
  name: field,
  value,
});

/** `knowledge_base_texts`: one field holding a JSON array string. */
export const textsField = (items: unknown): FormPart => ({ name: 'knowledge_base_texts', value: JSON.stringify(items) });

/** `knowledge_base_urls`: one field holding a JSON array string. */
export const urlsField = (items: unknown): FormPart => ({ name: 'knowledge_base_urls', value: JSON.stringify(items) });

/** A file part, by default named `knowledge_base_files`. */
export function filePart(
  filename: string,
  data: Uint8Array | string,
  opts: { field?: string; type?: string } = {},
): FormPart {
  return { name: opts.field ?? 'knowledge_base_files', filename, data, ...(opts.type ? { type: opts.type } : {}) };
}

/** `size` bytes of printable ASCII text, so type detection says TXT. */
export function textBytes(size: number): Buffer {
  const line = Buffer.from('The quick brown fox jumps over the lazy dog 0123456789.\n');
  const buf = Buffer.allocUnsafe(size);
  for (let off = 0; off < size; off += line.length) line.copy(buf, off, 0, Math.min(line.length, size - off));
  return buf;
}
