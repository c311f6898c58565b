#!/usr/bin/env node
/**
 * Operator CLI: `npm run admin -- <command>`. Results go to stdout as JSON
 * lines; problems go to stderr, exit 2 for usage errors and 1 for failures.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { importCatalog } from './catalog-import.js';
import { loadConfig } from '../shared/runtime/config.js';
import { connectRedis, createRedis, describeTarget } from '../shared/redis/redis.js';
import { effectiveQuotas } from '../shared/quotas.js';
import type { QuotaName } from '../shared/store/quota-store.js';
import { idSchema } from '../shared/schemas/common.js';
import { createStore, type Store } from '../shared/store/index.js';

const USAGE = `usage: npm run admin -- <command>

commands:
  create-key --workspace W [--name N] [--read-only]
      make an API key; prints its record as JSON, then the key alone on the last line
  list-keys --workspace W
      one JSON line per key: keyId, name, createdAt, readOnly, revoked (never the key)
  revoke-key KEYID
      revoke a key; it stops working at once
  set-quota --workspace W [--knowledge-bases N] [--sources-per-kb N] [--stored-bytes N] [--in-flight N]
      set the workspace's own quotas: a count (bytes for --stored-bytes), 0 for unlimited,
      or "default" for the global QUOTA_* value again; prints the quotas that now apply
  show-quota --workspace W
      the workspace's quotas (its own where set, else the global defaults), its overrides, and
      the bytes its change feeds and search indexes take (derivedBytes)
  import FILE.json
      load {"workspaceId", "agents", "qaRules", "qaIssues"}; all or nothing
  help
      show this text

environment: REDIS_URL (default redis://127.0.0.1:6379) or REDIS_CLUSTER_NODES (host:port,...),
  REDIS_KEY_PREFIX (default kbi)`;

/** Bad command line: exit 2 with the usage text. Any other error exits 1 with its message alone. */
class UsageError extends Error {}

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Runs node's parseArgs, turning its errors into usage errors. */
function args<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
}

function onePositional(positionals: string[], command: string, name: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`${command} takes exactly one ${name}`);
  return positionals[0];
}

function validId(value: string | undefined, what: string): string {
  if (value === undefined) throw new UsageError(`${what} is required`);
  const parsed = idSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${what} ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return parsed.data;
}

async function withStore<T>(use: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const redis = createRedis(config, 'cli');
  // ioredis rejects connect() with a bare "Connection is closed."; the event has the cause.
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await connectRedis(redis);
  } catch (err) {
    // After a failed connect the client has ended; disconnecting again would leave
    // ioredis' 2 s socket-destroy timer keeping the process alive.
    if (redis.status !== 'end') redis.disconnect();
    throw new Error(`cannot connect to Redis at ${describeTarget(config)}: ${messageOf(lastError ?? err)}`);
  }
  try {
    return await use(createStore(redis, { prefix: config.REDIS_KEY_PREFIX, blobTtlSeconds: config.STAGING_TTL_SECONDS }));
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${messageOf(err)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${messageOf(err)}`);
  }
}

/** A quota on the command line: a count (0: unlimited), "default" (null: the global value), or absent. */
function quotaValue(value: string | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`${flag} must be a count (0 for unlimited) or "default"`);
  return Number(value);
}

/** The set-quota flags, by the quota each sets. */
const QUOTA_FLAGS = {
  knowledgeBases: 'knowledge-bases',
  sourcesPerKnowledgeBase: 'sources-per-kb',
  storedBytes: 'stored-bytes',
  sourcesInFlight: 'in-flight',
} as const satisfies Record<QuotaName, string>;

async function dispatch(command: string | undefined, rest: string[]): Promise<void> {
  switch (command) {
    case 'create-key': {
      const { values } = args(() =>
        parseArgs({
          args: rest,
          options: { workspace: { type: 'string' }, name: { type: 'string' }, 'read-only': { type: 'boolean' } },
        }),
      );
      const workspaceId = validId(values.workspace, '--workspace');
      const { record, key } = await withStore((s) => s.apiKeys.create(workspaceId, values.name ?? '', values['read-only'] ?? false));
      print({ keyId: record.keyId, workspaceId, name: record.name, readOnly: record.readOnly, createdAt: record.createdAt });
      process.stdout.write(`${key}\n`);
      return;
    }
    case 'list-keys': {
      const { values } = args(() => parseArgs({ args: rest, options: { workspace: { type: 'string' } } }));
      const workspaceId = validId(values.workspace, '--workspace');
      const records = await withStore((s) => s.apiKeys.list(workspaceId));
      for (const r of records) {
        const revoked = r.revokedAt !== undefined;
        print({ keyId: r.keyId, name: r.name, createdAt: r.createdAt, readOnly: r.readOnly, revoked, ...(revoked && { revokedAt: r.revokedAt }) });
      }
      return;
    }
    case 'revoke-key': {
      const { positionals } = args(() => parseArgs({ args: rest, options: {}, allowPositionals: true }));
      const keyId = validId(onePositional(positionals, 'revoke-key', 'KEYID'), 'KEYID');
      if (!(await withStore((s) => s.apiKeys.revoke(keyId)))) throw new Error(`no key with id ${keyId}`);
      print({ keyId, revoked: true });
      return;
    }
    case 'set-quota':
    case 'show-quota': {
      const { values } = args(() =>
        parseArgs({
          args: rest,
          options: {
            workspace: { type: 'string' },
            ...(command === 'set-quota' && Object.fromEntries(Object.values(QUOTA_FLAGS).map((f) => [f, { type: 'string' as const }]))),
          },
        }),
      );
      const workspaceId = validId(values.workspace, '--workspace');
      const v = values as Record<string, string | undefined>;
      const changes = Object.fromEntries(Object.entries(QUOTA_FLAGS).map(([name, flag]) => [name, quotaValue(v[flag], `--${flag}`)])) as Partial<
        Record<QuotaName, number | null>
      >;
      if (command === 'set-quota' && Object.values(changes).every((c) => c === undefined)) {
        throw new UsageError(`set-quota needs one of ${Object.values(QUOTA_FLAGS).map((f) => `--${f}`).join(', ')}`);
      }
      const config = loadConfig();
      const [overrides, derivedBytes] = await withStore(async (s) => [
        await (command === 'set-quota' ? s.quotas.set(workspaceId, changes) : s.quotas.get(workspaceId)),
        await s.quotas.derivedBytes(workspaceId),
      ] as const);
      print({ workspaceId, quotas: effectiveQuotas(config, overrides), overrides, derivedBytes });
      return;
    }
    case 'import': {
      const { positionals } = args(() => parseArgs({ args: rest, options: {}, allowPositionals: true }));
      const file = onePositional(positionals, 'import', 'FILE.json');
      const json = await readJson(file);
      const result = await withStore((s) => importCatalog(s.catalog, json));
      if (!result.ok) {
        for (const line of result.errors) process.stderr.write(`${file}: ${line}\n`);
        const n = result.errors.length;
        throw new Error(`${file}: nothing was imported (${n} problem${n === 1 ? '' : 's'})`);
      }
      print({ workspaceId: result.workspaceId, ...result.counts });
      return;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      throw new UsageError('');
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs one command and returns the exit code; never lets a stack trace out. */
async function main(argv: string[]): Promise<number> {
  try {
    await dispatch(argv[0], argv.slice(1));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(err.message ? `admin: ${err.message}\nrun "npm run admin -- help" for usage\n` : `${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`admin: ${messageOf(err)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
