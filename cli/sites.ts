import { setTimeout as sleep } from 'node:timers/promises';
import { KbApiError, type KbClient, type components } from '../clients/typescript/src/index.js';

type Site = components['schemas']['Site'];

export interface SiteAddOptions {
  kbId: string;
  url: string;
  maxPages?: number;
  maxDepth?: number;
  sitemap?: 'auto' | 'only' | 'off';
  /** Show the discovery's progress until it ends (default true). */
  wait?: boolean;
  /** Pause between two reads of the site while waiting (ms). */
  intervalMs?: number;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream;
}

/** One line of a site: status, pages found and added, and what stopped it early. */
export function siteLine(s: Site): string {
  const cut = s.truncated ? `, stopped early${s.truncatedReason ? ` (${s.truncatedReason})` : ''}` : '';
  const error = s.error ? `: ${s.error.code} ${s.error.message}` : '';
  return `${s.siteId} ${s.status}: ${s.pagesFound} pages found, ${s.pagesAdded} added${cut}${error}  ${s.url}`;
}

/**
 * Adds a site source (`PATCH …` with `knowledge_base_sites`), then reads the
 * site until its discovery is done or failed, showing the pages found and
 * added. Returns the exit code: 0 when done, 1 when the discovery failed.
 */
export async function addSite(client: KbClient, opts: SiteAddOptions): Promise<number> {
  const before = await client.getKnowledgeBase(opts.kbId);
  const known = new Set((before.sites ?? []).map((s) => s.siteId));
  const spec = {
    url: opts.url,
    ...(opts.maxPages !== undefined && { maxPages: opts.maxPages }),
    ...(opts.maxDepth !== undefined && { maxDepth: opts.maxDepth }),
    ...(opts.sitemap !== undefined && { sitemap: opts.sitemap }),
  };
  const form = new FormData();
  form.append('knowledge_base_sites', JSON.stringify([spec]));
  const r = await client.api.PATCH('/v1/knowledge-bases/{kbId}', { params: { path: { kbId: opts.kbId } }, body: form as never, bodySerializer: (b: unknown) => b as FormData });
  if (!r.response.ok || !r.data) throw new KbApiError(r.response.status, r.error as never, r.response.headers);
  const added = (r.data.sites ?? []).find((s) => !known.has(s.siteId)) ?? (r.data.sites ?? []).find((s) => s.url === opts.url);
  if (!added) throw new Error(`the service answered without the site ${opts.url}`);
  let site: Site = added;
  opts.err.write(`site ${site.siteId} added to ${opts.kbId}\n`);
  if (opts.wait === false) {
    opts.out.write(`${site.siteId}\n`);
    return 0;
  }
  let shown = '';
  for (;;) {
    const line = siteLine(site);
    if (opts.out.isTTY) opts.out.write(`\r\x1b[2K${line}`);
    else if (line !== shown) opts.out.write(`${line}\n`);
    shown = line;
    if (site.status !== 'discovering') break;
    await sleep(opts.intervalMs ?? 1_000);
    const next: { data?: Site; error?: unknown; response: Response } = await client.api.GET('/v1/knowledge-bases/{kbId}/sites/{siteId}', { params: { path: { kbId: opts.kbId, siteId: site.siteId } } });
    if (!next.response.ok || !next.data) throw new KbApiError(next.response.status, next.error as never, next.response.headers);
    site = next.data;
  }
  if (opts.out.isTTY) opts.out.write('\n');
  for (const w of site.warnings ?? []) opts.out.write(`warning ${w.code}: ${w.message} (${w.url})\n`);
  if (site.status === 'done') opts.out.write(`its pages are URL sources now: follow them with kb-ingest wait ${opts.kbId}\n`);
  return site.status === 'failed' ? 1 : 0;
}
