/**
 * Pushes a folder's files (and a note) into a new knowledge base, waits until
 * every source settles, and prints each source's status, with the reason of
 * those that failed. Running it again with the same arguments adds nothing
 * twice: the request carries an Idempotency-Key made from its content.
 *
 *   API=http://localhost:3000 KEY=<api key> npx tsx examples/push-and-wait.ts <folder> [name]
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createKbClient, KbApiError, type UploadFile } from '@kb-ingest/client';

const [folder, name = 'Pushed folder'] = process.argv.slice(2);
if (!folder) throw new Error('usage: push-and-wait.ts <folder> [name]');
const kb = createKbClient({ baseUrl: process.env.API ?? 'http://localhost:3000', apiKey: process.env.KEY ?? '' });

const files: UploadFile[] = [];
for (const entry of await readdir(folder, { withFileTypes: true })) {
  if (entry.isFile() && !entry.name.startsWith('.')) files.push({ name: entry.name, data: await readFile(join(folder, entry.name)) });
}
const digest = createHash('sha256').update(name);
for (const f of files) digest.update(f.name).update(f.data as Uint8Array);

try {
  const created = await kb.createKnowledgeBase(
    { name, files, texts: [{ title: 'About', text: `Files pushed from ${folder}.`, metadata: { origin: 'push-and-wait' } }] },
    { idempotencyKey: `push-${digest.digest('hex').slice(0, 32)}` },
  );
  console.log(`${created.kbId}: ${created.files.length} sources`);
  const settled = await kb.waitUntilSettled(created.kbId, {
    onPoll: (k) => console.log(`  ${k.status}: ${k.sourceCounts.ready} ready, ${k.sourceCounts.failed} failed, ${k.sourceCounts.pending + k.sourceCounts.processing} to go`),
  });
  for (const s of settled.files) console.log(`${s.status.padEnd(7)} ${s.title ?? s.content}${s.error ? ` (${s.error.code}: ${s.error.message})` : ''}`);
  process.exitCode = settled.status === 'ready' ? 0 : 1;
} catch (err) {
  // 413, 415 and 409 (a quota) name the file or the limit in the error body.
  if (err instanceof KbApiError) console.error(`refused: ${err.message}`);
  throw err;
}
