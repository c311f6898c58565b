/** A file to upload: its name and bytes (the service decides the type from the content). */
export interface UploadFile {
  name: string;
  data: Uint8Array | Blob;
  /** Declared type; only `.md`/`text/markdown` tells Markdown apart from plain text. */
  type?: string;
}

/** A text source: a string, or a titled text. */
export type TextSource = string | { title?: string; text: string };

/** What POST and PATCH of a knowledge base take. */
export interface SourceFormInput {
  /** The name (required on create; a rename on update). */
  name?: string;
  texts?: TextSource[];
  urls?: string[];
  files?: UploadFile[];
  /** Fetch every URL source again this often (hours, 0 to 720; 0 turns it off). */
  autoRefreshHours?: number;
}

/**
 * The multipart form of POST and PATCH: `knowledge_base_texts` and
 * `knowledge_base_urls` as JSON array strings, one `knowledge_base_files`
 * part per file, in the order given (which is the order of the sources).
 */
export function sourceForm(input: SourceFormInput): FormData {
  const form = new FormData();
  if (input.name !== undefined) form.append('knowledge_base_name', input.name);
  if (input.texts?.length) form.append('knowledge_base_texts', JSON.stringify(input.texts));
  if (input.urls?.length) form.append('knowledge_base_urls', JSON.stringify(input.urls));
  if (input.autoRefreshHours !== undefined) form.append('auto_refresh_hours', String(input.autoRefreshHours));
  for (const f of input.files ?? []) {
    const blob = f.data instanceof Blob ? f.data : new Blob([f.data as Uint8Array<ArrayBuffer>], f.type ? { type: f.type } : {});
    form.append('knowledge_base_files', blob, f.name);
  }
  return form;
}
