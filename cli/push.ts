import { readFile } from 'node:fs/promises';
import { KbApiError, type KbClient, type KnowledgeBase } from '../clients/typescript/src/index.js';
import { batchKey, batches, collectFiles, type BatchLimits, type LocalFile } from './files.js';
import { createProgress, failureTable } from './progress.js';
import type { BytesSent } from './transport.js';
import { createUploadProgress, formatBytes } from './upload-progress.js';

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
  /** The counter of the client's `fetch` (see `countingFetch`): the upload's progress is read from it. */
  sent?: BytesSent;
  /** Off a terminal, the least time between two upload progress lines (ms). */
  progressIntervalMs?: number;
}

/**
 * Uploads files and folders in batches that fit one request each. Every batch
 * carries an Idempotency-Key made from its target and content, so running the
 * same push again after an interruption adds nothing twice: batches already
 * sent are answered from the service's record. Then shows progress until
 * every source settles and prints the failures. Returns the exit code: 0 when
 * everything is ready, 1 when a source failed or a file was refused
 * (by the service, or here for being empty).
 */
export async function push(client: KbClient, opts: PushOptions): Promise<number> {
  const found = await collectFiles(opts.paths);
  if (found.length === 0) {
    opts.err.write('nothing to push: no files found\n');
    return 2;
  }
  // The service cannot tell an empty file's type and would call it unsupported: it is set aside here, named as empty.
  const refused: Refused[] = found.filter((f) => f.size === 0).map((f) => ({ name: f.name, code: 'empty_file', message: 'The file is empty (0 bytes): not uploaded.' }));
  const files = found.filter((f) => f.size > 0);
  const groups = batches(files, opts.limits);
  const targetName = 'kbId' in opts.target ? opts.target.kbId : `name:${opts.target.name}`;
  let kbId = 'kbId' in opts.target ? opts.target.kbId : undefined;
  let kb: KnowledgeBase | undefined;
  const upload = createUploadProgress(opts.err, opts.progressIntervalMs === undefined ? {} : { intervalMs: opts.progressIntervalMs });
  for (const [i, batch] of groups.entries()) {
    const label = `batch ${i + 1}/${groups.length}`;
    const before = opts.sent?.bytes ?? 0;
    const sent = await sendBatch(client, { target: opts.target, kbId, targetName, batch, refused, label, upload, bytes: opts.sent });
    if (sent) kb = sent;
    kbId = kb?.kbId ?? kbId;
    const bytes = opts.sent ? ` (${formatBytes(opts.sent.bytes - before)})` : '';
    upload.done(`${label}: ${batch.length} files sent${bytes} to ${kbId ?? '(nothing accepted)'}`);
  }
  if (refused.length > 0) {
    opts.out.write(`refused (not uploaded):\n${refused.map((r) => `  ${r.name}  ${r.code}  ${r.message}`).join('\n')}\n`);
  }
  if (kbId === undefined) return 1;
  if (opts.wait === false) {
    opts.out.write(`${kbId}\n`);
    return refused.length > 0 ? 1 : 0;
  }
  const progress = createProgress(opts.out);
  kb = await client.waitUntilSettled(kbId, { onPoll: (k) => progress.update(k), maxDelayMs: 2_000 });
  const failures = failureTable(kb);
  if (failures) opts.out.write(`\n${failures}\n`);
  opts.out.write(`${kb.sourceCounts.ready} ready, ${kb.sourceCounts.failed} failed in ${kb.kbId}\n`);
  return kb.sourceCounts.failed > 0 || refused.length > 0 ? 1 : 0;
}

/** A file the service refused at upload (413 or 415), with the reason it gave, or an empty file not sent. */
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
async function sendBatch(client: KbClient, b: BatchToSend) {
  const { target, kbId, targetName, batch, refused, upload, bytes } = b;
  let files = batch;
  while (files.length > 0) {
    const idempotencyKey = await batchKey(targetName, files);
    const input = { files: await Promise.all(files.map(async (f) => ({ name: f.name, data: new Uint8Array(await readFile(f.path)) }))) };
    upload.start(b.label, files.reduce((n, f) => n + f.size, 0));
    const from = bytes?.bytes ?? 0;
    if (bytes) bytes.listener = (n) => upload.update(n - from);
    try {
      return kbId === undefined
        ? await client.createKnowledgeBase({ ...input, name: (target as { name: string }).name }, { idempotencyKey })
        : await client.addSources(kbId, input, { idempotencyKey });
    } catch (err) {
      const part = err instanceof KbApiError && REFUSED_CODE[err.status] ? refusedPart(err) : undefined;
      if (part === undefined || !files[part.index]) throw err;
      refused.push({ name: files[part.index]!.name, code: REFUSED_CODE[(err as KbApiError).status]!, message: part.detail });
      files = files.filter((_, i) => i !== part.index);
    } finally {
      if (bytes) bytes.listener = undefined;
    }
  }
  return undefined;
}

/** One batch and where it goes, with the upload progress to draw while it is sent. */
interface BatchToSend {
  target: PushTarget;
  kbId: string | undefined;
  targetName: string;
  batch: LocalFile[];
  /** Files the service refuses are added here. */
  refused: Refused[];
  label: string;
  upload: ReturnType<typeof createUploadProgress>;
  bytes: BytesSent | undefined;
}

/** The file part a 413 or 415 names (`knowledge_base_files[2]`), if it names one. */
function refusedPart(err: KbApiError): { index: number; detail: string } | undefined {
  for (const [field, detail] of Object.entries(err.body?.validationErrors ?? {})) {
    const m = /^knowledge_base_files\[(\d+)\]$/.exec(field);
    if (m) return { index: Number(m[1]), detail };
  }
  return undefined;
}
