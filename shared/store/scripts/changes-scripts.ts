import { feedArgs } from '../../feed/feed-entries.js';
import { defineScript } from './script.js';

/** A page of a knowledge base's change feed after a stream id, trimmed to retention first. */
export const readChangesScript = defineScript({
  name: 'kbReadChanges',
  file: 'readChanges',
  keys: ['meta', 'stream', 'info'],
  build: (i: { workspaceId: string; kbId: string; after: string; size: number }, k) => ({
    keys: { meta: k.kb(i.kbId), stream: k.changes(i.kbId), info: k.changesInfo(i.kbId) },
    args: { workspaceId: i.workspaceId, after: i.after, size: i.size, feed: feedArgs(k, i.kbId) },
  }),
  replies: { ok: { head: 'str', events: 'rest' }, missing: {}, forbidden: {}, expired: { floor: 'str' } },
});
