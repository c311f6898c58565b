import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from '../redis.js';

/**
 * The store's Lua commands: one file per command under `lua/`, each opening
 * with a header that lists its KEYS, ARGV and results, and sharing helpers
 * from `lua/includes/` through `--- @include "name"` lines (BullMQ's layout).
 * They are registered on a connection with ioredis `defineCommand`, which
 * runs them by SHA and loads them again after a Redis restart.
 */
export const COMMANDS = {
  kbCommitSources: { file: 'commitSources', keys: 4 },
  kbDeleteKb: { file: 'deleteKb', keys: 4 },
  kbDeleteDoc: { file: 'deleteDoc', keys: 9 },
  kbStartDoc: { file: 'startDoc', keys: 3 },
  kbFinishDoc: { file: 'finishDoc', keys: 7 },
  kbRetryDoc: { file: 'retryDoc', keys: 4 },
  kbRepairDoc: { file: 'repairDoc', keys: 8 },
  kbRefreshDoc: { file: 'refreshDoc', keys: 3 },
  kbSetProgress: { file: 'setProgress', keys: 2 },
  kbUnmarkActive: { file: 'unmarkActive', keys: 1 },
  catalogImport: { file: 'importCatalog', keys: 2 },
  webhookReserve: { file: 'reserveWebhook', keys: 1 },
  webhookDelete: { file: 'deleteWebhook', keys: 2 },
  webhookRecordDelivery: { file: 'recordDelivery', keys: 2 },
  hostAcquireSlot: { file: 'acquireHostSlot', keys: 1 },
  hostStartFetch: { file: 'startHostFetch', keys: 1 },
} as const;

export type CommandName = keyof typeof COMMANDS;
type Arg = string | number | Buffer;

/** A connection with the store's commands defined on it. */
export type StoreRedis = RedisClient & { [K in CommandName]: (...keysThenArgs: Arg[]) => Promise<unknown[]> };

// Compiled code runs from dist/, where the build copies lua/ beside this module.
export const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));
const INCLUDE = /^--- @include "([\w-]+)"\s*$/gm;

function load(name: string): string {
  const path = `${LUA_DIR}${name}.lua`;
  if (!existsSync(path)) throw new Error(`Lua script ${path} is missing (run npm run build)`);
  const included = new Set<string>();
  return readFileSync(path, 'utf8').replace(INCLUDE, (_line, inc: string) => {
    if (included.has(inc)) return '';
    included.add(inc);
    return readFileSync(`${LUA_DIR}includes/${inc}.lua`, 'utf8');
  });
}

const SOURCES = Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name, { lua: load(c.file), keys: c.keys }]));

/** Defines the store's commands on `redis` (once per connection) and returns it typed. */
export function withCommands(redis: RedisClient): StoreRedis {
  const typed = redis as StoreRedis;
  if (typeof (typed as Partial<StoreRedis>).kbCommitSources !== 'function') {
    for (const [name, { lua, keys }] of Object.entries(SOURCES)) redis.defineCommand(name, { lua, numberOfKeys: keys });
  }
  return typed;
}
