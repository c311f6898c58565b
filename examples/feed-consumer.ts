/**
 * Follows a knowledge base's change feed into a local index (a Map by chunk
 * id, standing in for a vector store) and prints what changed. Starts from
 * the chunk listing, then reads the feed from the cursor the listing gave;
 * on a 410 (the cursor is older than the feed keeps) it loads the listing again;
 * on knowledge_base.deleted (the feed's last event, read by any cursor
 * however old) it drops every chunk of the knowledge base and stops.
 *
 *   API=http://localhost:3000 KEY=<api key> npx tsx examples/feed-consumer.ts <kbId>
 */
const api = process.env.API ?? 'http://localhost:3000';
const headers = { 'X-API-Key': process.env.KEY ?? '' };
const kbId = process.argv[2];
if (!kbId) throw new Error('usage: feed-consumer.ts <kbId>');

type Chunk = { id: string; documentId: string; text: string };
type Event =
  | { type: 'chunk.upserted'; chunk: Chunk }
  | { type: 'chunk.deleted'; chunkId: string; documentId: string }
  | { type: 'knowledge_base.deleted'; kbId: string };
const index = new Map<string, Chunk>();

async function get(path: string): Promise<Response> {
  const res = await fetch(`${api}/v1/knowledge-bases/${kbId}/${path}`, { headers });
  if (!res.ok && res.status !== 410) throw new Error(`${res.status} ${await res.text()}`);
  return res;
}

/** Loads every chunk; returns the feed cursor to follow from. */
async function resync(): Promise<string> {
  index.clear();
  let after = '';
  let changesCursor = '';
  do {
    const page = (await (await get(`chunks?size=100${after ? `&after=${after}` : ''}`)).json()) as { data: Chunk[]; nextCursor: string | null; changesCursor: string };
    for (const c of page.data) index.set(c.id, c);
    changesCursor ||= page.changesCursor;
    after = page.nextCursor ?? '';
  } while (after);
  console.log(`loaded ${index.size} chunks`);
  return changesCursor;
}

let cursor = await resync();
for (;;) {
  const res = await get(`changes?after=${cursor}&size=500`);
  if (res.status === 410) {
    cursor = await resync();
    continue;
  }
  const page = (await res.json()) as { data: Event[]; nextCursor: string; hasMore: boolean };
  for (const e of page.data) {
    if (e.type === 'knowledge_base.deleted') {
      index.clear();
      console.log(`knowledge_base.deleted ${e.kbId}: every chunk dropped -> ${index.size} chunks`);
      process.exit(0);
    }
    if (e.type === 'chunk.upserted') index.set(e.chunk.id, e.chunk);
    else if (e.type === 'chunk.deleted') index.delete(e.chunkId);
    else continue; // an event type this consumer does not know
    const id = e.type === 'chunk.upserted' ? e.chunk.id : e.chunkId;
    console.log(`${e.type} ${id} (${e.type === 'chunk.upserted' ? e.chunk.text.slice(0, 60).replace(/\s+/g, ' ') : e.documentId}) -> ${index.size} chunks`);
  }
  cursor = page.nextCursor;
  if (!page.hasMore) await new Promise((r) => setTimeout(r, 2000));
}
