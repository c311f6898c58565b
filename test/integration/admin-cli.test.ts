import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashApiKey } from '../../shared/ids.js';
import { connectRedis, createRedis, type RedisClient } from '../../shared/redis/redis.js';
import { createStore } from '../../shared/store/index.js';
import { freePort, keysUnder } from '../helpers/redis-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = join(root, 'examples/catalog.json');
const prefixes: string[] = [];
let redis: RedisClient;
let dir: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Each test gets its own key prefix, so "nothing was loaded" is checkable. */
function freshPrefix(): string {
  const prefix = `tcli${randomBytes(5).toString('hex')}`;
  prefixes.push(prefix);
  return prefix;
}

/** The compiled admin CLI, as `npm run admin` runs it (`npm run build` first): a start in tenths of a second, not the seconds tsx takes to compile it. */
const ADMIN = 'dist/bin/admin.js';

function admin(prefix: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const childEnv = { ...process.env, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix, ...env };
  return new Promise((resolve) => {
    execFile(process.execPath, [ADMIN, ...args], { cwd: root, env: childEnv }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every key under the prefix with its type and full value. */
async function dump(prefix: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of await keysUnder(redis, prefix)) {
    const type = await redis.type(key);
    if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'zset') out[key] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'string') out[key] = await redis.get(key);
    else out[key] = `unexpected type ${type}`;
  }
  return out;
}

const storeFor = (prefix: string) => createStore(redis, { prefix, blobTtlSeconds: 60 });
const noStack = (run: Run): void => expect(run.stderr).not.toMatch(/\n\s+at /);

beforeAll(async () => {
  redis = createRedis(inject('redisUrl'), 'api');
  await connectRedis(redis);
  dir = await mkdtemp(join(tmpdir(), 'admin-cli-'));
});

afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await keysUnder(redis, prefix);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
  await rm(dir, { recursive: true, force: true });
});

describe('admin CLI keys', () => {
  it('create-key prints the record, then a key that authenticates as its last line', async () => {
    const prefix = freshPrefix();
    const run = await admin(prefix, ['create-key', '--workspace', 'ws_a', '--name', 'ops', '--read-only']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const record = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(record).toMatchObject({ workspaceId: 'ws_a', name: 'ops', readOnly: true });
    const principal = await storeFor(prefix).apiKeys.authenticate(lines[1] ?? '');
    expect(principal).toEqual({ keyId: record.keyId, workspaceId: 'ws_a', readOnly: true });
  });

  it('stores a key only as its SHA-256 hash: the plain key is in no Redis key name or value', async () => {
    const prefix = freshPrefix();
    const run = await admin(prefix, ['create-key', '--workspace', 'ws_h', '--name', 'hashed']);
    expect(run.code).toBe(0);
    const plain = run.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(plain.length).toBeGreaterThan(20);
    const stored = JSON.stringify(await dump(prefix));
    expect(stored).toContain(hashApiKey(plain));
    expect(stored).not.toContain(plain);
  });

  it('list-keys shows every key of the workspace but never the key or its hash', async () => {
    const prefix = freshPrefix();
    const created = await admin(prefix, ['create-key', '--workspace', 'ws_a']);
    const key = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    const run = await admin(prefix, ['list-keys', '--workspace', 'ws_a']);
    expect(run.code).toBe(0);
    const rows = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(['createdAt', 'keyId', 'name', 'readOnly', 'revoked']);
    expect(run.stdout).not.toContain(key);
    expect(run.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it('revoke-key makes the key stop authenticating and shows it as revoked', async () => {
    const prefix = freshPrefix();
    const created = await admin(prefix, ['create-key', '--workspace', 'ws_a']);
    const [recordLine, key = ''] = created.stdout.trimEnd().split('\n');
    const { keyId } = JSON.parse(recordLine ?? '') as { keyId: string };
    expect(await storeFor(prefix).apiKeys.authenticate(key)).not.toBeNull();

    const run = await admin(prefix, ['revoke-key', keyId]);
    expect(run).toMatchObject({ code: 0, stdout: `${JSON.stringify({ keyId, revoked: true })}\n` });
    expect(await storeFor(prefix).apiKeys.authenticate(key)).toBeNull();
    expect((await admin(prefix, ['list-keys', '--workspace', 'ws_a'])).stdout).toContain('"revoked":true');
  });

  it('revoke-key of an unknown id exits 1', async () => {
    const run = await admin(freshPrefix(), ['revoke-key', 'key_unknown']);
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: 'admin: no key with id key_unknown\n' });
  });
});

describe('admin CLI import', () => {
  it('loads the example with its 3 agents in file order, and a second import changes nothing', async () => {
    const prefix = freshPrefix();
    const first = await admin(prefix, ['import', example]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toEqual({ workspaceId: 'ws_demo', agents: 3, qaRules: 2, qaIssues: 3 });

    const file = JSON.parse(await readFile(example, 'utf8')) as { agents: { agentId: string }[] };
    const { items, total } = await storeFor(prefix).catalog.listAgents('ws_demo', 0, 10);
    expect(total).toBe(3);
    expect(items.map((a) => a.agentId)).toEqual(file.agents.map((a) => a.agentId));
    const issue = await storeFor(prefix).catalog.getQaIssue('qai_0002');
    expect(issue?.value.qaRuleSnapshot.qaRuleId).toBe('qar_no_final_repair_quote');

    const before = await dump(prefix);
    const second = await admin(prefix, ['import', example]);
    expect(second.code).toBe(0);
    expect(await dump(prefix)).toEqual(before);
  });

  it('loads nothing from an invalid file and names the field in stderr', async () => {
    const prefix = freshPrefix();
    const json = JSON.parse(await readFile(example, 'utf8')) as { agents: { agentSettings: Record<string, unknown> }[] };
    json.agents[2]!.agentSettings.llmTemperature = 'warm';
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify(json));

    const run = await admin(prefix, ['import', bad]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${bad}: agents[2].agentSettings.llmTemperature: expected number`);
    expect(run.stderr).toContain('nothing was imported (1 problem)');
    noStack(run);
    expect(await keysUnder(redis, prefix)).toEqual([]);
  });

  it('refuses ids that another workspace owns and loads nothing', async () => {
    const prefix = freshPrefix();
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ workspaceId: 'ws_other', agents: [{ agentId: 'agt_bike_chat', agentName: 'x' }] }));
    expect((await admin(prefix, ['import', other])).code).toBe(0);
    const before = await dump(prefix);

    const run = await admin(prefix, ['import', example]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agents[1].agentId: "agt_bike_chat" already belongs to another workspace');
    expect(await dump(prefix)).toEqual(before);
  });
});

describe('admin CLI errors', () => {
  it.each([
    [[]],
    [['help']],
    [['frobnicate']],
    [['create-key']],
    [['create-key', '--workspace', 'ws:bad']],
    [['list-keys', '--workspace', 'ws_a', '--bogus']],
    [['revoke-key']],
    [['import', 'a.json', 'b.json']],
  ])('exits 2 with usage on stderr for %j', async (args) => {
    const run = await admin(freshPrefix(), args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/usage/);
    noStack(run);
  });

  it('says in one line which Redis it cannot reach, without the password', async () => {
    const port = await freePort();
    const run = await admin(freshPrefix(), ['list-keys', '--workspace', 'ws_a'], { REDIS_URL: `redis://:s3cret@127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^admin: cannot connect to Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: .+\\n$`));
    expect(run.stderr).not.toContain('s3cret');
  });
});

describe('admin CLI quotas', () => {
  it('set-quota sets a workspace its own quotas, "default" drops one, and show-quota shows what applies', async () => {
    const prefix = freshPrefix();
    const env = { QUOTA_KNOWLEDGE_BASES: '5', QUOTA_SOURCES_IN_FLIGHT: '50' };
    const set = await admin(
      prefix,
      ['set-quota', '--workspace', 'ws_q', '--knowledge-bases', '0', '--sources-per-kb', '100', '--stored-bytes', '5000000000'],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      workspaceId: 'ws_q',
      quotas: { knowledgeBases: null, sourcesPerKnowledgeBase: 100, storedBytes: 5_000_000_000, sourcesInFlight: 50 },
      overrides: { knowledgeBases: 0, sourcesPerKnowledgeBase: 100, storedBytes: 5_000_000_000 },
      derivedBytes: { changeFeeds: 0, outboxes: 0, searchIndexes: 0 },
    });
    expect(await storeFor(prefix).quotas.get('ws_q')).toEqual({ knowledgeBases: 0, sourcesPerKnowledgeBase: 100, storedBytes: 5_000_000_000 });

    await admin(prefix, ['set-quota', '--workspace', 'ws_q', '--knowledge-bases', 'default', '--in-flight', '7'], env);
    const shown = await admin(prefix, ['show-quota', '--workspace', 'ws_q'], env);
    expect(JSON.parse(shown.stdout).quotas).toEqual({ knowledgeBases: 5, sourcesPerKnowledgeBase: 100, storedBytes: 5_000_000_000, sourcesInFlight: 7 });
  });

  it('set-quota refuses a value that is not a count, with exit 2 and nothing written', async () => {
    const prefix = freshPrefix();
    const run = await admin(prefix, ['set-quota', '--workspace', 'ws_q', '--knowledge-bases', 'many']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--knowledge-bases must be a count');
    noStack(run);
    expect(await dump(prefix)).toEqual({});
  });
});
