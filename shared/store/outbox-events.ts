/**
 * What a script that changes a source, a site or a knowledge base appends to
 * its knowledge base's outbox, as the script's caller builds it: the outbox
 * arguments and the events whose data only the caller knows. The relay's side
 * is `outbox.ts`.
 */
import type { KeySpace } from './keys.js';
import type { SourceRef } from '../sources/source-ref.js';
import type { SiteOutcome } from './site-records.js';

/** Entries one knowledge base's outbox holds at most before its oldest unrelayed one is dropped (and counted). */
export const OUTBOX_MAX_ENTRIES = 10_000;

/** How long the outbox of a deleted knowledge base stays for the relay, seconds. */
export const OUTBOX_KEEP_SECONDS = 3 * 86_400;

/** What a script that may append events is given (see the outbox Lua include). */
export interface OutboxArgs {
  stream: string;
  info: string;
  meta: string;
  kbId: string;
  maxEntries: number;
  keepSeconds: number;
  /** The events' createdAt (ISO). */
  now: string;
  /** The workspace, when the script cannot read it from the meta (a delete of the knowledge base). */
  workspaceId?: string;
}

/** The outbox arguments of `kbId`'s scripts. */
export function outboxArgs(k: KeySpace, kbId: string, workspaceId?: string): OutboxArgs {
  const now = new Date().toISOString();
  return { stream: k.outbox(kbId), info: k.outboxInfo(kbId), meta: k.kb(kbId), kbId, now, maxEntries: OUTBOX_MAX_ENTRIES, keepSeconds: OUTBOX_KEEP_SECONDS, ...(workspaceId !== undefined && { workspaceId }) };
}

/** An event whose data the caller builds (what a script appends when its change happens). */
export interface OutboxEvent {
  type: 'source.ready' | 'source.failed' | 'site.discovered';
  /** What its id is derived from: eventId's parts joined with '/'. */
  key: string;
  /** Its data as sent, JSON. */
  data: string;
}

/** The source.ready or source.failed of a run's end; its id derived from the run as ever (eventId(kbId, documentId, run, type)). */
export function sourceEndEvent(ref: SourceRef, status: 'ready' | 'failed', error?: { code: string; message: string }): OutboxEvent {
  const type = status === 'ready' ? 'source.ready' : 'source.failed';
  const data: Record<string, unknown> = { kbId: ref.kbId, documentId: ref.documentId, status };
  if (status === 'failed' && error) data.error = { code: error.code, message: error.message };
  return { type, key: [ref.kbId, ref.documentId, ref.run, type].join('/'), data: JSON.stringify(data) };
}

/** The site.discovered of a discovery's end; its id derived from the site's run. */
export function siteDiscoveredEvent(kbId: string, siteId: string, run: number, outcome: SiteOutcome): OutboxEvent {
  const data: Record<string, unknown> = { kbId, siteId, status: outcome.state, pagesFound: outcome.pagesFound, pagesAdded: outcome.pagesAdded, truncated: outcome.truncated };
  if (outcome.truncatedReason) data.truncatedReason = outcome.truncatedReason;
  if (outcome.warnings?.length) data.warnings = outcome.warnings;
  if (outcome.error) data.error = outcome.error;
  return { type: 'site.discovered', key: [kbId, siteId, run, 'site.discovered'].join('/'), data: JSON.stringify(data) };
}
