/**
 * What a refresh of a ready URL source leaves when the page turns out the
 * same or cannot be fetched: the last good extraction stays, and a warning
 * says when a refresh failed (cleared by the next refresh that succeeds).
 */
import type { SourceWarning } from '../../shared/schemas/knowledge-base.js';
import type { SourceError } from '../../shared/source-errors.js';
import type { SourceOutcome, StoredSource } from '../../shared/store/kb-records.js';
import type { KbStore } from '../../shared/store/kb-store.js';

type ReadyOutcome = Extract<SourceOutcome, { status: 'ready' }>;

/** The source's warnings without a failed refresh's: what a refresh that fetched the page keeps. */
export function warningsAfterFetch(source: StoredSource): SourceWarning[] {
  return (source.warnings ?? []).filter((w) => w.code !== 'refresh_failed');
}

/** True when the run is a refresh of a source that was ready: its extraction is worth keeping. */
export function isRefreshOfReady(source: StoredSource): boolean {
  return source.type === 'url' && source.refreshFrom === 'ready';
}

/**
 * The outcome of a refresh of a ready source that failed for good: `ready`
 * with its text, Markdown and chunks as they were, and a `refresh_failed`
 * warning naming the failure. Undefined when there is nothing to keep (not a
 * refresh of a ready source, or its stored text is gone), so the source fails.
 */
export async function keptAfterFailedRefresh(kbs: KbStore, kbId: string, source: StoredSource, failure: SourceError): Promise<ReadyOutcome | undefined> {
  if (!isRefreshOfReady(source)) return undefined;
  const text = await kbs.getText(kbId, source.documentId);
  if (text === null) return undefined;
  const warning: SourceWarning = {
    code: 'refresh_failed',
    message: `The last refresh failed (${failure.code}: ${failure.message}); the text is from the fetch of ${source.checkedAt ?? source.updatedAt}`,
  };
  return { status: 'ready', text, unchanged: true, truncated: source.truncated === true, warnings: [...warningsAfterFetch(source), warning] };
}
