import { readFile } from 'node:fs/promises';
import { KbApiError, type KbClient, type KnowledgeBase } from '../clients/typescript/src/index.js';
import { batchKey, batches, collectFiles, type BatchLimits, type LocalFile } from './files.js';
import { createProgress, failureTable } from './progress.js';

/** Where `push` sends files: an existing knowledge base, or one made (or found again) by name. */
export type PushTarget = { kbId: string } | { name: string };

export interface PushOptions {
  target: PushTarget;
  paths: string[];
  limits: BatchLimits;
  /** Wait for every source to settle, drawing progress (default true). */
  wait?: boolean;
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

/**
 * Uploads files and folders in batches that fit one request each. Every batch
 * carries an Idempotency-Key made from its target and content, so running the
 * same push again after an interruption adds nothing twice: batches already
 * sent are answered from the service's record. Then shows progress until
 * every source settles and prints the failures. Returns the exit code: 0 when
 * everything is ready, 1 when a source failed.
 */
export async function push(client: KbClient, opts: PushOptions): Promise<number> {
  const files = await collectFiles(opts.paths);
  if (files.length === 0) {
    opts.err.write('nothing to push: no files found\n');
    return 2;
  }
  const groups = batches(files, opts.limits);
  const targetName = 'kbId' in opts.target ? opts.target.kbId : `name:${opts.target.name}`;
  let kbId = 'kbId' in opts.target ? opts.target.kbId : undefined;
  let kb: KnowledgeBase | undefined;
  const refused: Refused[] = [];
  for (const [i, batch] of groups.entries()) {
    const sent = await sendBatch(client, opts.target, kbId, targetName, batch, refused);
    if (sent) kb = sent;
    kbId = kb?.kbId ?? kbId;
    opts.err.write(`batch ${i + 1}/${groups.length}: ${batch.length} files sent to ${kbId ?? '(nothing accepted)'}\n`);
  }
  if (refused.length > 0) {
    opts.out.write(`refused by the service (not uploaded):\n${refused.map((r) => `  ${r.name}  ${r.code}  ${r.message}`).join('\n')}\n`);
  }
  if (opts.wait === false || kbId === undefined) {
    opts.out.write(`${kbId}\n`);
    return 0;
  }
  const progress = createProgress(opts.out);
  kb = await client.waitUntilSettled(kbId, { onPoll: (k) => progress.update(k), maxDelayMs: 2_000 });
  const failures = failureTable(kb);
  if (failures) opts.out.write(`\n${failures}\n`);
  opts.out.write(`${kb.sourceCounts.ready} ready, ${kb.sourceCounts.failed} failed in ${kb.kbId}\n`);
  return kb.sourceCounts.failed > 0 || refused.length > 0 ? 1 : 0;
}

/** A file the service refused at upload (413 or 415), with the reason it gave. */
interface Refused {
  name: string;
  code: string;
  message: string;
}

const REFUSED_CODE: Record<number, string> = { 413: 'file_too_large', 415: 'unsupported_media_type' };

/**
 * Sends one batch. A request is all or nothing, so when the service refuses
 * one file of it (413 or 415 naming the part), that file is noted and the
 * rest is sent again (under a new key, as its content changed).
 */
async function sendBatch(client: KbClient, target: PushTarget, kbId: string | undefined, targetName: string, batch: LocalFile[], refused: Refused[]) {
  let files = batch;
  while (files.length > 0) {
    const idempotencyKey = await batchKey(targetName, files);
    const input = { files: await Promise.all(files.map(async (f) => ({ name: f.name, data: new Uint8Array(await readFile(f.path)) }))) };
    try {
      return kbId === undefined
        ? await client.createKnowledgeBase({ ...input, name: (target as { name: string }).name }, { idempotencyKey })
        : await client.addSources(kbId, input, { idempotencyKey });
    } catch (err) {
      const part = err instanceof KbApiError && REFUSED_CODE[err.status] ? refusedPart(err) : undefined;
      if (part === undefined || !files[part.index]) throw err;
      refused.push({ name: files[part.index]!.name, code: REFUSED_CODE[(err as KbApiError).status]!, message: part.detail });
      files = files.filter((_, i) => i !== part.index);
    }
  }
  return undefined;
}

/** The file part a 413 or 415 names (`knowledge_base_files[2]`), if it names one. */
function refusedPart(err: KbApiError): { index: number; detail: string } | undefined {
  for (const [field, detail] of Object.entries(err.body?.validationErrors ?? {})) {
    const m = /^knowledge_base_files\[(\d+)\]$/.exec(field);
    if (m) return { index: Number(m[1]), detail };
  }
  return undefined;
}
