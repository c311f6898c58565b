import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import { chunkingTag, effectiveChunking } from '../../shared/chunking/chunk-settings.js';
import type { RechunkKbJob } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import { cutChunksInSandbox, cutContextOf, type SandboxExtract } from '../chunking/cut-chunks.js';

export interface RechunkDeps {
  kbs: KbStore;
  logger: Logger;
  /** The deployment's settings, for a knowledge base that never chose any. */
  chunkDefaults: ChunkSettings;
  /** The sandbox, where the Markdown is cut (see cutChunksInSandbox). */
  extract: SandboxExtract;
}

/** What a re-chunk did: sources whose chunks were replaced, and those left (busy, gone or already cut so). */
export interface RechunkSummary {
  rechunked: number;
  skipped: number;
}

/**
 * Cuts every ready source of a knowledge base again from its stored
 * Markdown (no re-extraction) with the knowledge base's settings. A job
 * whose settings are no longer the knowledge base's does nothing: the job of
 * the newer change does the work. A source already cut with these settings
 * is left alone, so a job run twice (a crash, a stall, a retry after a
 * source failed to be cut) costs only reads for what is done. A
 * source that is pending or processing gets chunks of the current settings
 * when its run ends (the processor checks), so it is skipped here. Until it
 * ends, the knowledge base's GET counts the ready sources still to cut
 * (`rechunkingSources`); when it has cut any, the knowledge base settles
 * (`knowledge_base.settled`), as it does when its last source in flight ends.
 */
export async function rechunkKnowledgeBase(deps: RechunkDeps, job: RechunkKbJob): Promise<RechunkSummary> {
  const summary: RechunkSummary = { rechunked: 0, skipped: 0 };
  const found = await deps.kbs.get(job.kbId);
  if (!found || found.meta.workspaceId !== job.workspaceId) return summary;
  const settings = effectiveChunking(found.meta.chunking, deps.chunkDefaults);
  if (settings.maxTokens !== job.maxTokens || settings.overlapTokens !== job.overlapTokens) return summary;
  const tag = chunkingTag(settings);
  const failed: string[] = [];
  let written: { from: string; to: string } | undefined;
  for (const source of found.sources) {
    if (source.status !== 'ready' || source.chunking === tag) {
      summary.skipped += 1;
      continue;
    }
    const markdown = await deps.kbs.getMarkdown(job.kbId, source.documentId);
    if (markdown === null) {
      summary.skipped += 1;
      continue;
    }
    let chunks;
    try {
      chunks = await cutChunksInSandbox(deps.extract, markdown, settings, cutContextOf(source));
    } catch (err) {
      // The others are still cut; the job then fails and its retry cuts what is left.
      failed.push(source.documentId);
      deps.logger.warn({ kbId: job.kbId, documentId: source.documentId, reason: err instanceof Error ? err.message : String(err) }, 'could not re-chunk a source');
      continue;
    }
    const { result, changes } = await deps.kbs.rechunkSourceReport({
      kbId: job.kbId,
      documentId: source.documentId,
      run: source.run,
      chunking: settings,
      defaultChunking: deps.chunkDefaults,
      chunks,
      markdown,
      now: new Date().toISOString(),
    });
    if (result === 'ok') summary.rechunked += 1;
    else summary.skipped += 1;
    if (changes) written = { from: written?.from ?? changes.from, to: changes.to };
  }
  // The end's script writes one knowledge_base.changed for the whole range (other writers' events in it
  // included; its id comes from where it ends) and, when the re-chunk is over, the knowledge base's settle
  // (unless a source is in flight, whose end settles it).
  if (written || (summary.rechunked > 0 && failed.length === 0)) {
    await deps.kbs.endRechunk(job.workspaceId, job.kbId, written, summary.rechunked > 0 && failed.length === 0);
  }
  if (failed.length > 0) throw new Error(`${failed.length} sources could not be re-chunked; the job is tried again`);
  if (summary.rechunked > 0) deps.logger.info({ kbId: job.kbId, ...summary, chunking: tag }, 're-chunked knowledge base');
  return summary;
}
