import { KbApiError, type KbClient, type components } from '../clients/typescript/src/index.js';

type SearchHit = components['schemas']['SearchHit'];
type SearchResult = components['schemas']['SearchResult'];

export interface SearchOptions {
  kbId: string;
  query: string;
  /** Hits wanted, best first (the service's default 10, at most 100). */
  top?: number;
  /** Print the service's answer as it is, one JSON document. */
  json?: boolean;
  out: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Runs `POST …/search` and prints the ranked hits. Returns the exit code: 0, also when nothing matched. */
export async function search(client: KbClient, opts: SearchOptions): Promise<number> {
  const r = await client.api.POST('/v1/knowledge-bases/{kbId}/search', {
    params: { path: { kbId: opts.kbId } },
    body: { query: opts.query, ...(opts.top !== undefined && { topK: opts.top }) } as components['schemas']['SearchRequest'],
  });
  if (!r.response.ok || !r.data) throw new KbApiError(r.response.status, r.error as never, r.response.headers);
  const result: SearchResult = r.data;
  if (opts.json) {
    opts.out.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  if (result.data.length === 0) {
    opts.out.write('no match\n');
    return 0;
  }
  const mark = opts.out.isTTY ? TTY_MARK : PLAIN_MARK;
  opts.out.write(`${result.data.map((hit, i) => hitLines(hit, i + 1, mark)).join('\n\n')}\n`);
  return 0;
}

/** How a matched word is shown: bold on a terminal, `**word**` elsewhere. */
export interface Mark {
  open: string;
  close: string;
}
export const TTY_MARK: Mark = { open: '\x1b[1m', close: '\x1b[22m' };
export const PLAIN_MARK: Mark = { open: '**', close: '**' };

/** A hit's document as a row names it: the file name, the URL, or the text's title. */
export function hitSource(hit: SearchHit): string {
  const c = hit.chunk;
  return c.filename ?? c.url ?? c.title ?? c.documentId;
}

/**
 * One hit: its rank, score and document, the heading path where the chunk
 * starts, and the snippet around the match with the matched words marked.
 */
export function hitLines(hit: SearchHit, rank: number, mark: Mark): string {
  const page = hit.chunk.pageStart !== undefined ? ` (p. ${hit.chunk.pageStart})` : '';
  const head = `${rank}. ${hit.score.toFixed(2)}  ${hitSource(hit)}${page}`;
  const path = hit.chunk.headings.length > 0 ? `\n   ${hit.chunk.headings.join(' > ')}` : '';
  return `${head}${path}\n   ${snippet(hit.highlight, mark)}`;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/** The service's highlight (HTML-escaped, `<mark>` around matched words) as terminal text on one line. */
export function snippet(highlight: string, mark: Mark): string {
  return highlight
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(<mark>|<\/mark>)/)
    .map((part) => (part === '<mark>' ? mark.open : part === '</mark>' ? mark.close : part.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (e) => ENTITIES[e]!)))
    .join('');
}
