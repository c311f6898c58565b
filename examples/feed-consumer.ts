/**
 * Mirrors a knowledge base's chunks into a local index (a JSON file of chunks
 * by id, standing in for a vector store) and prints what changed.
 * `followChanges` loads every chunk first, then follows the change feed from
 * the cursor the listing gave; after a 410 (the cursor is older than the feed
 * keeps) it loads the listing again with `reset`; after knowledge_base.deleted
 * (the feed's last event, read by any cursor however old) it ends. The index
 * is saved with its cursor after each page, so a restart carries on where it
 * stopped; Ctrl-C stops it.
 *
 *   API=http://localhost:3000 KEY=<api key> npx tsx examples/feed-consumer.ts <kbId> [index-file]
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createKbClient, type ChangeEvent } from '@kb-ingest/client';

const [kbId, file = `${process.argv[2]}.mirror.json`] = process.argv.slice(2);
if (!kbId) throw new Error('usage: feed-consumer.ts <kbId> [index-file]');
const kb = createKbClient({ baseUrl: process.env.API ?? 'http://localhost:3000', apiKey: process.env.KEY ?? '' });

type Chunk = Extract<ChangeEvent, { type: 'chunk.upserted' }>['chunk'];
interface Mirror {
  cursor?: string;
  chunks: Record<string, Chunk>;
}
// The index and its cursor are saved together: a cursor without the chunks it follows is no use.
const mirror: Mirror = await readFile(file, 'utf8').then((t) => JSON.parse(t) as Mirror, () => ({ chunks: {} }));

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

for await (const page of kb.followChanges(kbId, { after: mirror.cursor, signal: stop.signal })) {
  if (page.reset) {
    mirror.chunks = {};
    console.log('loading every chunk');
  }
  for (const e of page.events) {
    if (e.type === 'chunk.upserted') mirror.chunks[e.chunk.id] = e.chunk;
    else if (e.type === 'chunk.deleted') delete mirror.chunks[e.chunkId];
    else if (e.type === 'knowledge_base.deleted') mirror.chunks = {};
    const what = e.type === 'chunk.upserted' ? `${e.chunk.id} "${e.chunk.text.slice(0, 50).replace(/\s+/g, ' ')}"` : e.type === 'chunk.deleted' ? e.chunkId : e.kbId;
    console.log(`${e.type} ${what}`);
  }
  if (page.cursor !== undefined) {
    mirror.cursor = page.cursor;
    await writeFile(file, JSON.stringify(mirror));
  }
  if (page.caughtUp) console.log(`caught up: ${Object.keys(mirror.chunks).length} chunks`);
  if (page.deleted) console.log('the knowledge base was deleted: every chunk dropped');
}
