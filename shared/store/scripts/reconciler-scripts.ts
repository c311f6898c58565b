import { feedArgs } from '../../feed/feed-entries.js';
import { outboxArgs } from '../outbox-events.js';
import { defineScript } from './script.js';

/** The error a torn ready source gets when its uploaded bytes are gone and it cannot run again. */
const UNRECOVERABLE = {
  code: 'internal',
  message: 'The extracted text was not saved completely and the uploaded file is no longer kept; upload it again',
};

/** Reconciler: mends an ended source the active index still lists (a write applied in part). */
export const repairSourceScript = defineScript({
  name: 'kbRepairSource',
  file: 'repairSource',
  lifecycle: { sources: 'repair' },
  keys: ['meta', 'active', 'sourceIds', 'record', 'text', 'blob', 'markdown', 'chunks', 'chunkIds'],
  build: (i: { kbId: string; documentId: string; now: string }, k) => ({
    keys: { meta: k.kb(i.kbId), active: k.active(i.kbId), sourceIds: k.sourceIds(i.kbId), ...k.sourceKeys(i.kbId, i.documentId) },
    args: { documentId: i.documentId, now: i.now, nowMs: Date.parse(i.now), recordPrefix: k.sourcePrefix(i.kbId), error: JSON.stringify(UNRECOVERABLE), feed: feedArgs(k, i.kbId), outbox: outboxArgs(k, i.kbId) },
  }),
  replies: {
    active: {},
    gone: {},
    unlisted: {},
    mended: { settled: 'int', counts: 'counts' },
    rerun: { run: 'int' },
    failed: { settled: 'int', counts: 'counts' },
  },
});

/** Reconciler: recounts a knowledge base whose counters do not add up to its sources (a torn commit). */
export const recountKbScript = defineScript({
  name: 'kbRecountKb',
  file: 'recountKb',
  keys: ['meta', 'sourceIds', 'active'],
  build: (i: { kbId: string; maxSources: number; nowMs: number }, k) => ({
    keys: { meta: k.kb(i.kbId), sourceIds: k.sourceIds(i.kbId), active: k.active(i.kbId) },
    args: { recordPrefix: k.sourcePrefix(i.kbId), maxSources: i.maxSources, nowMs: i.nowMs, outbox: outboxArgs(k, i.kbId) },
  }),
  replies: { consistent: {}, gone: {}, over_budget: { sources: 'int' }, recounted: { settled: 'int', listed: 'int', counts: 'counts' } },
});

/** Reconciler: drops a knowledge base from the active index unless it was marked again since it was read. */
export const unmarkActiveScript = defineScript({
  name: 'kbUnmarkActive',
  file: 'unmarkActive',
  keys: ['index'],
  build: (i: { kbId: string; markedMs: number }, k) => ({
    keys: { index: k.activeKbs() },
    args: { kbId: i.kbId, markedMs: String(i.markedMs) },
  }),
  replies: { ok: {}, kept: {} },
});
