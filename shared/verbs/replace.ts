import { NotFoundError } from '../errors.js';
import type { Logger } from '../runtime/logger.js';
import { sourceJobInfo, type SourceQueue } from '../queue/jobs.js';
import { publicSource, type NewSource } from '../store/kb-records.js';
import type { KbStore } from '../store/kb-store.js';
import type { ReplaceFields } from '../store/scripts/rerun-scripts.js';
import type { Source } from '../schemas/knowledge-base.js';
import type { SourceTarget } from '../sources/source-ref.js';

/** What replacing a source needs. */
export interface ReplaceDeps {
  kbs: KbStore;
  queue: SourceQueue;
  logger: Logger;
}

/** How a replace is committed: how long an uploaded file's bytes are kept, and the If-Match revision. */
export interface ReplaceOptions {
  blobTtlSeconds: number;
  ifRev?: number | undefined;
  now: string;
}

/** The record fields of a new version: its input only; its metadata stays the source's. */
function replaceFields(s: NewSource): ReplaceFields {
  if (s.type !== 'text' && s.type !== 'file') throw new Error(`a ${s.type} source cannot be a new version`);
  return {
    type: s.type,
    content: s.content,
    fingerprint: s.fingerprint,
    ...(s.title && { title: s.title }),
    ...(s.filename && { filename: s.filename }),
    ...(s.declaredType && { declaredType: s.declaredType }),
    ...(s.mimeType && { mimeType: s.mimeType }),
    ...(s.sizeBytes !== undefined && { sizeBytes: String(s.sizeBytes) }),
    ...(s.sha256 && { sha256: s.sha256 }),
  };
}

/**
 * Replaces a file or text source with `next`, a new version parsed as a new
 * source would be, keeping the source's documentId and metadata: the store
 * puts it back to pending under a new run (its text and chunks stay
 * readable until that run ends), and the run is enqueued. When the enqueue
 * fails the source stays pending and the reconciler enqueues it. Returns the
 * source as it is now, with the knowledge base's new revision.
 */
export async function replaceSource(deps: ReplaceDeps, target: SourceTarget, next: NewSource, opts: ReplaceOptions): Promise<{ source: Source; rev: number }> {
  const { run, rev } = await deps.kbs.replaceSource(
    target,
    { fields: replaceFields(next), stageKey: next.stageKey, ttl: opts.blobTtlSeconds, ifRev: opts.ifRev },
    opts.now,
  );
  try {
    await deps.queue.enqueue([{ ...target, run, ...sourceJobInfo(next) }]);
  } catch (err) {
    deps.logger.warn({ err, kbId: target.kbId, documentId: target.documentId }, 'enqueue failed; the reconciler will pick the source up');
  }
  const source = await deps.kbs.getSource(target.kbId, target.documentId);
  if (!source) throw new NotFoundError({ part: 'documentId', detail: `Document ${target.documentId} was not found in knowledge base ${target.kbId}` });
  return { source: publicSource(source), rev };
}
