import type { FeedArgs } from '../feed/feed-entries.js';
import type { KeySpace } from './keys.js';
import { trimFeedScript, workspaceFeedBytesScript } from './scripts/changes-scripts.js';
import { parseReply, scriptArgs, type ReplySpec, type ScriptDef } from './scripts/script.js';
import type { RedisClient } from '../redis/redis.js';

/**
 * Holds a workspace's change feeds together under CHANGES_WORKSPACE_MAX_BYTES,
 * after a script wrote to one of them. The feeds live on their knowledge
 * bases' slots and the tally on the workspace's, so this runs beside the
 * write (two short scripts, three when the bound is passed) rather than in
 * it: the feed just written records its bytes in the tally, and when the
 * workspace's total is past the bound that feed drops its oldest events by
 * the excess. Its readers then get the 410 and resync; no other workspace is
 * touched. Concurrent writes to several of a workspace's feeds may pass the
 * bound by what they wrote until the next write. Writes to one feed from one
 * process while its pass runs share the next pass (see coalesced).
 */
export function boundWorkspaceFeeds(redis: RedisClient, keys: KeySpace, feed: FeedArgs): Promise<void> {
  return coalesced(redis, feed.info, () => boundOnce(redis, keys, feed));
}

interface Running {
  done: Promise<void>;
  /** The run that starts after this one ends, shared by every write that came meanwhile. */
  next?: Promise<void>;
}

const running = new WeakMap<RedisClient, Map<string, Running>>();

/**
 * Runs `run` for `key`, or, while one runs, joins the single run that starts
 * after it: a batch of texts finishing at once into one feed holds it under
 * its bound with one or two passes, not one per text, and each caller still
 * returns only after a pass that began after its own write.
 */
export function coalesced(redis: RedisClient, key: string, run: () => Promise<void>): Promise<void> {
  let byKey = running.get(redis);
  if (!byKey) running.set(redis, (byKey = new Map()));
  const table = byKey;
  const start = (): Promise<void> => {
    const entry: Running = { done: Promise.resolve() };
    entry.done = run().finally(() => {
      if (table.get(key) === entry) table.delete(key);
    });
    table.set(key, entry);
    return entry.done;
  };
  const current = table.get(key);
  if (!current) return start();
  current.next ??= current.done.catch(() => undefined).then(start);
  return current.next;
}

async function boundOnce(redis: RedisClient, keys: KeySpace, feed: FeedArgs): Promise<void> {
  const [held, workspaceId] = await redis.hmget(feed.info, 'bytes', 'workspaceId');
  if (!workspaceId) return;
  const kbId = feed.kbId;
  const bytes = Number(held ?? 0) || 0;
  const { total } = await call(redis, keys, workspaceFeedBytesScript, { workspaceId, kbId, bytes, nowMs: Date.now() });
  const over = total - keys.changeRetention.workspaceMaxBytes;
  if (over <= 0) return;
  const trimmed = await call(redis, keys, trimFeedScript, { kbId, maxBytes: Math.max(0, bytes - over) });
  await call(redis, keys, workspaceFeedBytesScript, { workspaceId, kbId, bytes: trimmed.bytes, nowMs: Date.now() });
}

async function call<In, K extends string, S extends ReplySpec>(redis: RedisClient, keys: KeySpace, def: ScriptDef<In, K, S>, input: In) {
  const command = (redis as unknown as Record<string, (...args: string[]) => Promise<unknown>>)[def.name]!;
  const reply = parseReply(def.name, def.replies, await command.call(redis, ...scriptArgs(def, input, keys)));
  return reply as Extract<typeof reply, { kind: 'ok' }>;
}
