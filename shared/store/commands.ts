import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from '../redis/redis.js';
import type { KeySpace } from './keys.js';
import { lifecycleLua } from './lifecycle-lua.js';
import type { ScriptLifecycle } from '../sources/lifecycle.js';
import { importCatalogScript } from './scripts/catalog-scripts.js';
import { readChangesScript, trimFeedScript, workspaceFeedBytesScript } from './scripts/changes-scripts.js';
import { boundWorkspaceFeeds } from './feed-bound.js';
import type { FeedArgs } from '../feed/feed-entries.js';
import { commitSourcesScript } from './scripts/commit-scripts.js';
import { deleteKbScript, deleteSourceScript, dropChunksScript, sweepKbScript } from './scripts/delete-scripts.js';
import { emitMetadataScript, setSourceMetadataScript } from './scripts/metadata-scripts.js';
import { emitChunksScript } from './scripts/emit-scripts.js';
import { rechunkSourceScript, settleKbScript } from './scripts/rechunk-scripts.js';
import { recountKbScript, repairSourceScript, unmarkActiveScript } from './scripts/reconciler-scripts.js';
import { refreshSourceScript, replaceSourceScript, retrySourceScript } from './scripts/rerun-scripts.js';
import { parseReply, type Reply, type ReplySpec, type ScriptDef } from './scripts/script.js';
import { acquireHostSlotScript, startHostFetchScript } from './scripts/host-scripts.js';
import { fairPrioritiesScript } from './scripts/fair-share-scripts.js';
import { claimIdempotencyKeyScript, completeIdempotencyKeyScript } from './scripts/idempotency-scripts.js';
import { claimLandedUrlScript, deleteSiteScript, finishSiteScript, reserveCrawlBudgetScript, restartSiteScript } from './scripts/site-scripts.js';
import { addKnowledgeBaseScript, reserveQuotaScript, settleQuotaScript } from './scripts/quota-scripts.js';
import { ackOutboxScript, unmarkOutboxScript } from './scripts/outbox-scripts.js';
import { finishSourceScript, finishTextsScript, setSourceProgressScript, startSourceScript, startTextsScript } from './scripts/worker-transition-scripts.js';
import {
  acquireWebhookSlotScript,
  deleteWebhookScript,
  enableWebhookScript,
  recordDeliveryScript,
  reserveWebhookScript,
  rotateWebhookSecretScript,
  updateWebhookScript,
} from './scripts/webhook-scripts.js';

/**
 * The store's Lua commands, each declared with its typed contract (see
 * `scripts/script.ts`). One file per command under `lua/`, each opening
 * with a header that lists its KEYS, ARGV and replies, and sharing helpers
 * from `lua/includes/` through `--- @include "name"` lines (BullMQ's layout).
 */
export const SCRIPTS = [
  commitSourcesScript,
  deleteKbScript,
  sweepKbScript,
  deleteSourceScript,
  dropChunksScript,
  startSourceScript,
  finishSourceScript,
  startTextsScript,
  finishTextsScript,
  setSourceProgressScript,
  rechunkSourceScript,
  settleKbScript,
  setSourceMetadataScript,
  emitMetadataScript,
  emitChunksScript,
  retrySourceScript,
  refreshSourceScript,
  replaceSourceScript,
  repairSourceScript,
  unmarkActiveScript,
  importCatalogScript,
  reserveWebhookScript,
  deleteWebhookScript,
  recordDeliveryScript,
  acquireWebhookSlotScript,
  rotateWebhookSecretScript,
  enableWebhookScript,
  updateWebhookScript,
  acquireHostSlotScript,
  startHostFetchScript,
  claimIdempotencyKeyScript,
  completeIdempotencyKeyScript,
  fairPrioritiesScript,
  finishSiteScript,
  restartSiteScript,
  deleteSiteScript,
  reserveCrawlBudgetScript,
  claimLandedUrlScript,
  readChangesScript,
  trimFeedScript,
  workspaceFeedBytesScript,
  recountKbScript,
  addKnowledgeBaseScript,
  reserveQuotaScript,
  settleQuotaScript,
  ackOutboxScript,
  unmarkOutboxScript,
] as const;

declare const STORE_COMMANDS: unique symbol;

/**
 * A connection with the store's commands defined on it: only {@link withCommands}
 * makes one, so a script is never run on a connection that lacks it.
 */
export type StoreRedis = RedisClient & { readonly [STORE_COMMANDS]: true };

// Compiled code runs from dist/, where the build copies lua/ beside this module.
export const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));
const INCLUDE = /^--- @include "([\w-]+)"\s*$/gm;

/** Includes made from TypeScript declarations rather than read from `lua/includes/`, for one script. */
const GENERATED: Record<string, (file: string, lifecycle: ScriptLifecycle) => string> = {
  lifecycle: (file, lifecycle) => lifecycleLua(lifecycle, file),
};

/** The text of an include, itself with its includes (each once per script). */
function expand(text: string, included: Set<string>, file: string, lifecycle: ScriptLifecycle): string {
  return text.replace(INCLUDE, (_line, inc: string) => {
    if (included.has(inc)) return '';
    included.add(inc);
    const body = GENERATED[inc]?.(file, lifecycle) ?? readFileSync(`${LUA_DIR}includes/${inc}.lua`, 'utf8');
    return expand(body, included, file, lifecycle);
  });
}

/** The lifecycle families a script file is declared with. */
export function declaredLifecycle(file: string): ScriptLifecycle {
  return (SCRIPTS as readonly { file: string; lifecycle?: ScriptLifecycle }[]).find((s) => s.file === file)?.lifecycle ?? {};
}

/**
 * A script's full Lua text, with its includes; its move helpers own the
 * moves of `lifecycle` (by default, those its declaration names).
 */
export function loadScript(file: string, lifecycle: ScriptLifecycle = declaredLifecycle(file)): string {
  const path = `${LUA_DIR}${file}.lua`;
  if (!existsSync(path)) throw new Error(`Lua script ${path} is missing (run npm run build)`);
  return expand(readFileSync(path, 'utf8'), new Set(), file, lifecycle);
}

const DEFINED = SCRIPTS.map((s) => ({ name: s.name, lua: loadScript(s.file), keys: s.keys.length }));

/** Defines the store's commands on `redis` (once per connection) and returns it typed. */
export function withCommands(redis: RedisClient): StoreRedis {
  if (typeof (redis as unknown as Record<string, unknown>)[SCRIPTS[0].name] !== 'function') {
    for (const { name, lua, keys } of DEFINED) redis.defineCommand(name, { lua, numberOfKeys: keys });
  }
  return redis as StoreRedis;
}

/**
 * Runs one declared script: builds its KEYS and payload from `input`, and
 * parses its reply by the declaration. After a script that wrote to a change
 * feed (a reply with a non-empty `feedTo`, or an `ok` of a writer that does
 * not report its range), holds the workspace's feeds under their bound.
 */
export async function runScript<In, K extends string, S extends ReplySpec>(
  redis: StoreRedis,
  keys: KeySpace,
  def: ScriptDef<In, K, S>,
  input: In,
): Promise<Reply<S>> {
  const command = (redis as unknown as Record<string, (...args: string[]) => Promise<unknown>>)[def.name]!;
  const { keys: named, args } = def.build(input, keys);
  // A script that may append to a knowledge base's outbox is marked in the relay's index first (see KeySpace.outboxKbs).
  const outbox = args.outbox as { kbId: string } | undefined;
  if (outbox) await redis.zincrby(keys.outboxKbs(), 1, outbox.kbId);
  const raw = await command.call(redis, ...def.keys.map((k) => named[k]), JSON.stringify(args));
  const reply = parseReply(def.name, def.replies, raw);
  if (args.feed !== undefined && def !== (readChangesScript as unknown) && wroteFeed(reply)) {
    // The write is done and must be reported as done: a failure here leaves the bound to the next write.
    await boundWorkspaceFeeds(redis, keys, args.feed as FeedArgs).catch(() => undefined);
  }
  return reply;
}

function wroteFeed(reply: { kind: string }): boolean {
  const to = (reply as { feedTo?: unknown }).feedTo;
  return to === undefined ? reply.kind === 'ok' : to !== '';
}
