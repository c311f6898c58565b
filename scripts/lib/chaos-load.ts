import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { buildDocx } from '../../test/fixtures/docx.js';
import { buildPdf } from '../../test/fixtures/pdf.js';
import type { ChaosOrigin, OriginPage } from './chaos-origin.js';
import type { SeededRandom } from './seeded-random.js';

/** A file the load may upload: from the corpus or generated. */
interface FileItem {
  name: string;
  /** The name without the request's tag. */
  base: string;
  bytes: Uint8Array;
  sha256: string;
}

type Item = { kind: 'text'; text: string; title?: string } | { kind: 'url'; url: string } | { kind: 'file'; file: FileItem };

export interface LoadOptions {
  base: string;
  apiKey: string;
  kbIds: string[];
  origin: ChaosOrigin;
  /** Corpus files to upload now and then (may be empty). */
  corpusPaths: string[];
  /** Concurrent clients, each sending one PATCH at a time. */
  clients: number;
  /** Largest pause between one client's requests; the smallest is a third of it. */
  maxPauseMs: number;
}

export interface LoadStats {
  sent: number;
  accepted: number;
  /** Refused requests by status (`network` when no answer came). */
  refused: Record<string, number>;
  /** Requests sent again with their Idempotency-Key after a refusal. */
  retried: number;
  /** Accepted requests sent again with the same Idempotency-Key, and those whose answer differed. */
  replays: number;
  replayMismatches: string[];
  /** Source ids named by accepted answers, by knowledge base. */
  acceptedIds: Map<string, Set<string>>;
  /** Accepted items by kind. */
  acceptedItems: Record<Item['kind'], number>;
  /** Items of an accepted request that its answer did not list. */
  missingFromAnswer: string[];
}

interface SourceView {
  documentId: string;
  type: string;
  content: string;
  title?: string | null;
  sizeBytes?: number;
}

/**
 * The PATCH load of a chaos run: each client picks a knowledge base and sends
 * one to three new sources (texts, URLs to the loopback origin, files), with
 * an Idempotency-Key on some, until `signal` aborts. Every accepted source id
 * is recorded; a keyed request refused with a 5xx, 408, 429 or no answer is
 * sent again like a client would, and some accepted keyed requests are
 * replayed to check the answer stays the same.
 */
export async function runLoad(opts: LoadOptions, rngs: SeededRandom[], signal: AbortSignal): Promise<LoadStats> {
  const stats: LoadStats = {
    sent: 0,
    accepted: 0,
    refused: {},
    retried: 0,
    replays: 0,
    replayMismatches: [],
    acceptedIds: new Map(opts.kbIds.map((id) => [id, new Set<string>()])),
    acceptedItems: { text: 0, url: 0, file: 0 },
    missingFromAnswer: [],
  };
  // Uploaded files by knowledge base and SHA-256: a second upload of the same bytes is the first source.
  const filesSeen = new Map<string, string>();
  const corpus = opts.corpusPaths.filter((p) => statSync(p).isFile());
  await Promise.all(rngs.slice(0, opts.clients).map((rng, client) => clientLoop(client, rng)));
  return stats;

  async function clientLoop(client: number, rng: SeededRandom): Promise<void> {
    const sentTexts = new Map<string, Item[]>();
    for (let n = 0; !signal.aborted; n++) {
      const kbId = rng.pick(opts.kbIds);
      const items = Array.from({ length: rng.int(1, 3) }, (_, i) => makeItem(rng, `${client}-${n}-${i}`, sentTexts.get(kbId)));
      sentTexts.set(kbId, [...(sentTexts.get(kbId) ?? []), ...items.filter((it) => it.kind === 'text')].slice(-20));
      const idemKey = rng.chance(0.3) ? `chaos-${rng.seed}-${client}-${n}` : undefined;
      await patchWithRetries(kbId, items, idemKey, rng.chance(0.25));
      await sleep(rng.int(Math.floor(opts.maxPauseMs / 3), opts.maxPauseMs), signal);
    }
  }

  async function patchWithRetries(kbId: string, items: Item[], idemKey: string | undefined, replay: boolean): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) stats.retried += 1;
      const res = await patch(kbId, items, idemKey);
      if (res.status === 200) {
        const ids = record(kbId, items, res.files);
        if (replay && idemKey) await checkReplay(kbId, items, idemKey, ids);
        return;
      }
      const retriable = res.status === 'network' || res.status === 408 || res.status === 429 || (typeof res.status === 'number' && res.status >= 500);
      if (!idemKey || !retriable || signal.aborted) return;
      await sleep(1000, signal);
    }
  }

  async function checkReplay(kbId: string, items: Item[], idemKey: string, ids: string[]): Promise<void> {
    stats.replays += 1;
    const res = await patch(kbId, items, idemKey);
    if (res.status !== 200) return; // refused (Redis away): nothing to compare, and counted as refused
    const again = record(kbId, items, res.files, false);
    if (!res.replayed || again.join() !== ids.join()) {
      stats.replayMismatches.push(`${kbId} key ${idemKey}: replayed=${res.replayed}, ids ${ids.join(',')} then ${again.join(',')}`);
    }
  }

  async function patch(kbId: string, items: Item[], idemKey: string | undefined): Promise<{ status: number | 'network'; files: SourceView[]; replayed: boolean }> {
    const form = new FormData();
    const texts = items.flatMap((it) => (it.kind === 'text' ? [it.title === undefined ? it.text : { title: it.title, text: it.text }] : []));
    const urls = items.flatMap((it) => (it.kind === 'url' ? [it.url] : []));
    if (texts.length) form.set('knowledge_base_texts', JSON.stringify(texts));
    if (urls.length) form.set('knowledge_base_urls', JSON.stringify(urls));
    for (const it of items) if (it.kind === 'file') form.append('knowledge_base_files', new Blob([it.file.bytes]), it.file.name);
    stats.sent += 1;
    try {
      const res = await fetch(`${opts.base}/v1/knowledge-bases/${kbId}`, {
        method: 'PATCH',
        body: form,
        headers: { 'X-API-Key': opts.apiKey, ...(idemKey ? { 'Idempotency-Key': idemKey } : {}) },
        signal: AbortSignal.timeout(120_000),
      });
      const body = (await res.json().catch(() => ({}))) as { files?: SourceView[] };
      if (res.status === 200) stats.accepted += 1;
      else stats.refused[res.status] = (stats.refused[res.status] ?? 0) + 1;
      return { status: res.status, files: body.files ?? [], replayed: res.headers.get('idempotent-replayed') === 'true' };
    } catch {
      stats.refused.network = (stats.refused.network ?? 0) + 1;
      return { status: 'network', files: [], replayed: false };
    }
  }

  /** Finds each item's source in the answer and records its id. */
  function record(kbId: string, items: Item[], files: SourceView[], count = true): string[] {
    const ids: string[] = [];
    for (const it of items) {
      let found: SourceView | undefined;
      if (it.kind === 'text') found = files.find((f) => f.type === 'text' && f.content === it.text && (it.title === undefined || f.title === it.title));
      else if (it.kind === 'url') found = files.find((f) => f.type === 'url' && f.content === it.url);
      else {
        found = files.find((f) => f.type === 'file' && f.content === it.file.name);
        // The same bytes again: the knowledge base keeps the source it has, under its first name.
        const seen = filesSeen.get(`${kbId}\0${it.file.sha256}`);
        if (!found && seen) found = files.find((f) => f.documentId === seen);
        // ... which another client may have sent a moment ago.
        found ??= files.find((f) => f.type === 'file' && f.sizeBytes === it.file.bytes.length && f.content.endsWith(`-${it.file.base}`));
        if (found) filesSeen.set(`${kbId}\0${it.file.sha256}`, found.documentId);
      }
      if (!found) {
        stats.missingFromAnswer.push(`${kbId}: ${it.kind} ${it.kind === 'file' ? it.file.name : it.kind === 'url' ? it.url : it.text.slice(0, 40)}`);
        continue;
      }
      stats.acceptedIds.get(kbId)!.add(found.documentId);
      if (count) stats.acceptedItems[it.kind] += 1;
      ids.push(found.documentId);
    }
    return ids;
  }

  function makeItem(rng: SeededRandom, tag: string, earlierTexts: Item[] | undefined): Item {
    const kind = rng.weighted<Item['kind']>([['text', 35], ['url', 35], ['file', 30]]);
    if (kind === 'text') {
      // Now and then the same text again: the knowledge base keeps the one source it has.
      if (earlierTexts?.length && rng.chance(0.05)) return rng.pick(earlierTexts);
      const text = `Note ${tag}: the clinic opens at ${rng.int(7, 10)}:00 and closes at ${rng.int(16, 20)}:00; bring your card (${rng.int(1, 1e9)}).`;
      return rng.chance(0.5) ? { kind, text } : { kind, text, title: `Note ${tag}` };
    }
    if (kind === 'url') {
      const page = rng.weighted<OriginPage>([['html', 30], ['text', 20], ['slow', 25], ['flaky', 15], ['missing', 10]]);
      return { kind, url: opts.origin.url(page, rng.int(1, 1e9), rng.int(500, 6000)) };
    }
    if (corpus.length && rng.chance(0.5)) {
      const path = rng.pick(corpus);
      const bytes = readFileSync(path);
      const base = path.split('/').slice(-1)[0]!;
      return { kind, file: { name: `${tag}-${base}`, base, bytes, sha256: sha256(bytes) } };
    }
    return { kind, file: generatedFile(rng, tag) };
  }
}

/** A small TXT, HTML, Markdown, PDF or DOCX file whose text names `tag`, so its bytes are new. */
function generatedFile(rng: SeededRandom, tag: string): FileItem {
  const line = `Document ${tag}: opening hours are nine to five, ${rng.int(1, 1e9)} patients served.`;
  const format = rng.pick(['txt', 'html', 'md', 'pdf', 'docx'] as const);
  const bytes =
    format === 'txt' ? Buffer.from(`${line}\n\nParking is free.\n`)
    : format === 'html' ? Buffer.from(`<!doctype html><html><head><title>${tag}</title></head><body><h1>${tag}</h1><p>${line}</p></body></html>`)
    : format === 'md' ? Buffer.from(`# Document ${tag}\n\n${line}\n\n- parking\n- cafeteria\n`)
    : format === 'pdf' ? buildPdf({ pages: [`${line}\nParking is free.`], title: `Document ${tag}` })
    : buildDocx([{ heading: `Document ${tag}` }, { para: line }]);
  const name = `${tag}-gen.${format}`;
  return { name, base: name, bytes, sha256: sha256(bytes) };
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
