import { feedArgs } from '../../feed/feed-entries.js';
import { defineScript } from './script.js';

/** A page of a knowledge base's change feed after a stream id, trimmed to retention first. */
export const readChangesScript = defineScript({
  name: 'kbReadChanges',
  file: 'readChanges',
  keys: ['meta', 'stream', 'info'],
  build: (i: { workspaceId: string; kbId: string; after: string; size: number; maxBytes: number }, k) => ({
    keys: { meta: k.kb(i.kbId), stream: k.changes(i.kbId), info: k.changesInfo(i.kbId) },
    args: { workspaceId: i.workspaceId, after: i.after, size: i.size, maxBytes: i.maxBytes, feed: feedArgs(k, i.kbId) },
  }),
  replies: { ok: { head: 'str', events: { rows: ['id', 'kind', 'chunkId', 'documentId', 'chunk', 'source'] } }, missing: {}, forbidden: {}, expired: { floor: 'str' }, ahead: { head: 'str' } },
});

/** Trims a knowledge base's change feed to a byte bound (the workspace's bound passed by a write to it). */
export const trimFeedScript = defineScript({
  name: 'kbTrimFeed',
  file: 'trimFeed',
  keys: ['stream', 'info'],
  build: (i: { kbId: string; maxBytes: number }, k) => ({
    keys: { stream: k.changes(i.kbId), info: k.changesInfo(i.kbId) },
    args: { maxBytes: i.maxBytes, feed: feedArgs(k, i.kbId) },
  }),
  replies: { ok: { bytes: 'int' } },
});

/** Records one feed's bytes in its workspace's tally and gives the workspace's total. */
export const workspaceFeedBytesScript = defineScript({
  name: 'kbWorkspaceFeedBytes',
  file: 'workspaceFeedBytes',
  keys: ['tally', 'retained'],
  build: (i: { workspaceId: string; kbId: string; bytes: number; nowMs: number }, k) => ({
    keys: { tally: k.workspaceFeedBytes(i.workspaceId), retained: k.workspaceRetainedFeeds(i.workspaceId) },
    args: { kbId: i.kbId, bytes: i.bytes, nowMs: i.nowMs },
  }),
  replies: { ok: { total: 'int' } },
});
