import type { SourceCounts } from '../../shared/schemas/knowledge-base.js';
import { emptyCounts, isActiveStatus, SOURCE_STATUSES } from '../../shared/sources/lifecycle.js';

/** One source as the API lists it at the end of a chaos run. */
export interface FinalSource {
  documentId: string;
  type: string;
  content: string;
  title?: string | null;
  status: string;
  /** `error.code` of a failed source. */
  errorCode?: string;
  /** For a ready source: its document was read and has non-empty `text`. */
  hasText?: boolean;
  /** For a ready source: its chunk list holds fewer chunks than its `chunkCount` says. */
  chunksMissing?: boolean;
}


export interface ChaosCheckInput {
  /** Source ids the API accepted (named in a 200 answer to a PATCH), by knowledge base. */
  accepted: ReadonlyMap<string, ReadonlySet<string>>;
  /** Each knowledge base's sources at the end; undefined when the knowledge base is gone. */
  final: ReadonlyMap<string, readonly FinalSource[] | undefined>;
  /** Each knowledge base's `sourceCounts` at the end, to hold against its sources. */
  counts?: ReadonlyMap<string, SourceCounts | undefined>;
}

/** What a chaos run ended with. Ids are written `kbId/documentId`. */
export interface ChaosVerdict {
  accepted: number;
  ready: number;
  failed: number;
  failedByCode: Record<string, number>;
  /** Accepted, but not in its knowledge base at the end. */
  lost: string[];
  /** Listed more than once, in one knowledge base or in several. */
  duplicated: string[];
  /** A text (same title) or URL present twice in one knowledge base. */
  duplicatedContent: string[];
  /** Still pending or processing. */
  unsettled: string[];
  failedWithoutCode: string[];
  readyWithoutText: string[];
  readyWithoutChunks: string[];
  /** Knowledge bases whose reported counts differ from their sources' statuses (`kbId: reported != listed`). */
  countsDisagree: string[];
  /** Present at the end but never named in an accepted answer (a request refused after its commit, for example). */
  unacknowledged: number;
  ok: boolean;
}

/**
 * Decides a chaos run from the accepted ids and the final state alone: every
 * accepted source is in its knowledge base exactly once, nothing is pending or
 * processing, every failed source says why, every ready one has its text and
 * all its chunks, and each knowledge base counts its sources as they are.
 */
export function checkChaosRun(input: ChaosCheckInput): ChaosVerdict {
  const v: ChaosVerdict = {
    accepted: 0,
    ready: 0,
    failed: 0,
    failedByCode: {},
    lost: [],
    duplicated: [],
    duplicatedContent: [],
    unsettled: [],
    failedWithoutCode: [],
    readyWithoutText: [],
    readyWithoutChunks: [],
    countsDisagree: [],
    unacknowledged: 0,
    ok: false,
  };
  const whereListed = new Map<string, string[]>();
  const present = new Map<string, Map<string, FinalSource>>();
  for (const [kbId, sources] of input.final) {
    const byId = new Map<string, FinalSource>();
    const contents = new Map<string, string>();
    present.set(kbId, byId);
    for (const s of sources ?? []) {
      const id = `${kbId}/${s.documentId}`;
      whereListed.set(s.documentId, [...(whereListed.get(s.documentId) ?? []), id]);
      if (byId.has(s.documentId)) continue;
      byId.set(s.documentId, s);
      if (s.type === 'text' || s.type === 'url') {
        const fingerprint = `${s.type}\0${s.type === 'text' ? (s.title ?? '') : ''}\0${s.content}`;
        const first = contents.get(fingerprint);
        if (first) v.duplicatedContent.push(`${first} = ${id}`);
        else contents.set(fingerprint, id);
      }
      if (isActiveStatus(s.status)) v.unsettled.push(id);
      else if (s.status === 'failed' && !s.errorCode) v.failedWithoutCode.push(id);
      else if (s.status === 'ready' && s.hasText !== true) v.readyWithoutText.push(id);
      else if (s.status === 'ready' && s.chunksMissing === true) v.readyWithoutChunks.push(id);
    }
    const reported = input.counts?.get(kbId);
    if (reported && sources) {
      const listed = emptyCounts();
      for (const s of byId.values()) if (s.status in listed) listed[s.status as keyof SourceCounts] += 1;
      const show = (c: SourceCounts): string => SOURCE_STATUSES.map((status) => c[status]).join('/');
      if (show(reported) !== show(listed)) v.countsDisagree.push(`${kbId}: ${show(reported)} != ${show(listed)}`);
    }
  }
  for (const [documentId, places] of whereListed) {
    if (places.length > 1) v.duplicated.push(`${documentId} (${places.length} times: ${[...new Set(places.map((p) => p.split('/')[0]))].join(', ')})`);
  }

  const acceptedIds = new Set<string>();
  for (const [kbId, ids] of input.accepted) {
    for (const documentId of ids) {
      acceptedIds.add(`${kbId}/${documentId}`);
      v.accepted += 1;
      const s = present.get(kbId)?.get(documentId);
      if (!s) {
        v.lost.push(`${kbId}/${documentId}`);
        continue;
      }
      if (s.status === 'ready') v.ready += 1;
      if (s.status === 'failed') {
        v.failed += 1;
        const code = s.errorCode ?? '(none)';
        v.failedByCode[code] = (v.failedByCode[code] ?? 0) + 1;
      }
    }
  }
  for (const [kbId, byId] of present) {
    for (const documentId of byId.keys()) if (!acceptedIds.has(`${kbId}/${documentId}`)) v.unacknowledged += 1;
  }
  v.ok =
    v.lost.length === 0 &&
    v.duplicated.length === 0 &&
    v.duplicatedContent.length === 0 &&
    v.unsettled.length === 0 &&
    v.failedWithoutCode.length === 0 &&
    v.readyWithoutText.length === 0 &&
    v.readyWithoutChunks.length === 0 &&
    v.countsDisagree.length === 0;
  return v;
}
