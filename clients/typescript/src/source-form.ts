/** A file to upload: its name and bytes (the service decides the type from the content). */
export interface UploadFile {
  name: string;
  data: Uint8Array | Blob;
  /** Declared type; only `.md`/`text/markdown` tells Markdown apart from plain text. */
  type?: string;
}

/** A source's metadata: flat, string, number and boolean values (at most 32 keys, 4096 bytes as JSON). */
export type Metadata = Record<string, string | number | boolean>;

/** A text source: a string, or a titled text with metadata. */
export type TextSource = string | { title?: string; text: string; metadata?: Metadata };

/** A URL source: the URL, or the URL with metadata. */
export type UrlSource = string | { url: string; metadata?: Metadata };

/** A site source: its pages (from its sitemap, else by its links) become URL sources. */
export interface SiteSource {
  /** A page to start from, or a sitemap (`…/sitemap.xml`, gzip too). */
  url: string;
  /** Pages to add at most (default 100, at most the deployment's CRAWL_MAX_PAGES). */
  maxPages?: number;
  /** Links followed from the start page (default 3, at most 10). */
  maxDepth?: number;
  /** Only paths matching one of these globs (`*` within a segment, `**` across, `?` one character). */
  include?: string[];
  /** No path matching one of these globs. */
  exclude?: string[];
  /** `auto` (default): sitemaps, else links; `only`: sitemaps only; `off`: links only. */
  sitemap?: 'auto' | 'only' | 'off';
}

/** What POST and PATCH of a knowledge base take, each field as the form contract names it. */
export interface SourceFormInput {
  /** The name (required on create; a rename on update). */
  name?: string;
  texts?: TextSource[];
  urls?: UrlSource[];
  sites?: SiteSource[];
  files?: UploadFile[];
  /** Fetch every URL source again this often (hours, 0 to 720; 0 turns it off). */
  autoRefreshHours?: number;
  /** Most tokens in a chunk; a change re-chunks every ready source in the background. */
  chunkMaxTokens?: number;
  /** Tokens repeated between neighbouring chunks (at most half of the maximum). */
  chunkOverlapTokens?: number;
}

/** Each input field and the form field it becomes, in the order they are sent. */
const FIELDS = {
  name: 'knowledge_base_name',
  texts: 'knowledge_base_texts',
  urls: 'knowledge_base_urls',
  sites: 'knowledge_base_sites',
  autoRefreshHours: 'auto_refresh_hours',
  chunkMaxTokens: 'chunk_max_tokens',
  chunkOverlapTokens: 'chunk_overlap_tokens',
  files: 'knowledge_base_files',
} as const satisfies Record<keyof SourceFormInput, string>;

const isField = (key: string): key is keyof SourceFormInput => Object.hasOwn(FIELDS, key);

/**
 * The multipart form of POST and PATCH: the name and numbers as strings,
 * texts, URLs and sites as JSON array strings, one `knowledge_base_files`
 * part per file, in the order given (which is the order of the sources).
 * A key it does not know throws a `TypeError` rather than being left out
 * (a caller in JavaScript, or an object built elsewhere, gets no silent drop).
 */
export function sourceForm(input: SourceFormInput): FormData {
  const unknown = Object.keys(input).filter((k) => !isField(k));
  if (unknown.length > 0) throw new TypeError(`unknown source field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; allowed: ${Object.keys(FIELDS).join(', ')}`);
  const form = new FormData();
  for (const key of Object.keys(FIELDS) as (keyof SourceFormInput)[]) {
    const value = input[key];
    if (value === undefined) continue;
    if (key === 'files') {
      for (const f of value as UploadFile[]) {
        const blob = f.data instanceof Blob ? f.data : new Blob([f.data as Uint8Array<ArrayBuffer>], f.type ? { type: f.type } : {});
        form.append(FIELDS.files, blob, f.name);
      }
    } else if (Array.isArray(value)) {
      if (value.length > 0) form.append(FIELDS[key], JSON.stringify(value));
    } else {
      form.append(FIELDS[key], String(value));
    }
  }
  return form;
}
