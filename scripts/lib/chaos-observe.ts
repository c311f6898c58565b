/** What a chaos run asks the API for, as a client would: knowledge bases made, then watched and read back. */
import type { SourceCounts } from '../../shared/schemas/knowledge-base.js';
import type { FinalSource } from './chaos-check.js';

/** POSTs an empty knowledge base and returns its id. */
export async function createKb(base: string, key: string, name: string): Promise<string> {
  const form = new FormData();
  form.set('knowledge_base_name', name);
  const res = await fetch(`${base}/v1/knowledge-bases`, { method: 'POST', body: form, headers: { 'X-API-Key': key } });
  if (res.status !== 201) throw new Error(`create knowledge base: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { kbId: string }).kbId;
}

/** GETs JSON with the key; undefined when no 200 came after `tries` attempts a second apart. */
export async function getJson<T>(base: string, key: string, path: string, tries = 1): Promise<T | undefined> {
  for (let i = 0; i < tries; i++) {
    try {
      const res = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(30_000) });
      if (res.status === 200) return (await res.json()) as T;
      await res.arrayBuffer();
    } catch {
      // no answer: try again
    }
    if (i + 1 < tries) await new Promise((r) => setTimeout(r, 1000));
  }
  return undefined;
}

/** Polls until no knowledge base has a pending or processing source; false past the timeout. */
export async function waitSettled(base: string, key: string, kbIds: string[], timeoutMs: number, say: (line: string) => void): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let lastSaid = 0;
  for (;;) {
    let busy = 0;
    let readable = true;
    for (const kbId of kbIds) {
      const kb = await getJson<{ sourceCounts: Record<string, number> }>(base, key, `/v1/knowledge-bases/${kbId}`);
      if (!kb) readable = false;
      else busy += (kb.sourceCounts.pending ?? 0) + (kb.sourceCounts.processing ?? 0);
    }
    if (readable && busy === 0) return true;
    if (Date.now() > deadline) return false;
    if (Date.now() - lastSaid > 10_000) {
      say(`${readable ? busy : '?'} sources pending or processing`);
      lastSaid = Date.now();
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Every source of every knowledge base, through the API; each ready one's text is read too. */
export async function readFinalState(base: string, key: string, kbIds: string[]): Promise<Map<string, FinalSource[] | undefined>> {
  type Doc = { documentId: string; type: string; content: string; title?: string | null; status: string; error?: { code?: string } };
  const final = new Map<string, FinalSource[] | undefined>();
  for (const kbId of kbIds) {
    const sources: FinalSource[] = [];
    for (let page = 0; ; page++) {
      const body = await getJson<{ data: Doc[]; totalPages: number }>(base, key, `/v1/knowledge-bases/${kbId}/documents?page=${page}&size=100`, 5);
      if (!body) throw new Error(`could not read the sources of ${kbId}`);
      for (const d of body.data) {
        const source: FinalSource = { documentId: d.documentId, type: d.type, content: d.content, title: d.title, status: d.status, ...(d.error?.code ? { errorCode: d.error.code } : {}) };
        if (d.status === 'ready') {
          const path = `/v1/knowledge-bases/${kbId}/documents/${d.documentId}`;
          const doc = await getJson<{ text: string | null; chunkCount?: number }>(base, key, path, 5);
          source.hasText = typeof doc?.text === 'string' && doc.text.length > 0;
          const chunks = await getJson<{ totalCount?: number }>(base, key, `${path}/chunks?size=1`, 5);
          source.chunksMissing = (chunks?.totalCount ?? 0) < (doc?.chunkCount ?? 0);
        }
        sources.push(source);
      }
      if (page + 1 >= body.totalPages) break;
    }
    final.set(kbId, sources);
  }
  return final;
}

/** Each knowledge base's `sourceCounts` as the API reports them; undefined when it is gone. */
export async function readCounts(base: string, key: string, kbIds: string[]): Promise<Map<string, SourceCounts | undefined>> {
  const counts = new Map<string, SourceCounts | undefined>();
  for (const kbId of kbIds) {
    const kb = await getJson<{ sourceCounts: SourceCounts }>(base, key, `/v1/knowledge-bases/${kbId}`, 5);
    counts.set(kbId, kb?.sourceCounts);
  }
  return counts;
}
