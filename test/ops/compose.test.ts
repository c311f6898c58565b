import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../shared/runtime/config.js';
import { buildDist, runUntilStopped } from '../helpers/container-command.js';
import { configurationTable } from '../helpers/doc-tables.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  container_name?: string;
  ports?: unknown[];
  profiles?: string[];
  depends_on?: Record<string, { condition?: string }>;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** A command as argv; a string command is split on blanks as compose does for the exec form it builds. */
const argv = (command: string | string[] | undefined): string[] => (typeof command === 'string' ? command.trim().split(/\s+/) : (command ?? []));

/** The argv of an npm script that runs one program directly (`node dist/api/server.js`). */
const scriptArgv = (name: string): string[] => (scripts[name] ?? '').trim().split(/\s+/);

/** A service's environment as name → value, from either compose form. */
function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0]!, e.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** What compose substitutes for a value when the shell sets nothing: `${X:-d}` and `${X-d}` give d, `${X}` gives ''. */
function composeDefault(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_, _name: string, fallback?: string) => fallback ?? '');
}

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** Dockerfile stages with their instructions (continuation lines joined, comments dropped). */
function dockerStages(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      const m = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(args);
      stages.push({ from: m?.[1] ?? '', ...(m?.[2] ? { name: m[2] } : {}), body: [] });
    } else {
      stages.at(-1)?.body.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

/** Exec-form (JSON array) or shell-form arguments of an instruction. */
const instructionArgs = (args: string): string[] => (args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/));

/** COPY's sources and destination, without its flags; undefined sources for `--from` copies. */
function copySources(args: string): { fromStage: boolean; sources: string[]; dest: string } {
  const tokens = args.startsWith('[') ? instructionArgs(args) : args.split(/\s+/);
  const flags = tokens.filter((t) => t.startsWith('--'));
  const rest = tokens.filter((t) => !t.startsWith('--'));
  return { fromStage: flags.some((f) => f.startsWith('--from=')), sources: rest.slice(0, -1), dest: rest.at(-1) ?? '' };
}

/** Whether a context path is excluded by .dockerignore (its simple patterns: names and `*` globs). */
function dockerIgnored(path: string): boolean {
  const file = join(ROOT, '.dockerignore');
  if (!existsSync(file)) return false;
  const clean = path.replace(/^\.\//, '').replace(/\/$/, '');
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
    .some((pattern) => {
      const re = new RegExp(`^${pattern.replace(/\/$/, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(?:/|$)`);
      return re.test(clean);
    });
}

/** Values loadConfig accepts for variables compose leaves empty, where any string is not one. */
const PROBES: Record<string, string> = {
  URL_FETCH_ALLOW_CIDRS: '127.0.0.0/8',
  SANDBOX_RECYCLE_RSS_MB: '256',
  SANDBOX_ADDRESS_SPACE_MB: '0',
  METRICS_TOKEN: 'probe-token-0123456789',
  ADMIN_TOKEN: 'probe-admin-token-0123456789abcdef',
};
const probeValue = (name: string): string => PROBES[name] ?? 'probe';

/** Only the API serves HTTP: its port, the board and /metrics. */
const HTTP_ONLY = {
  PORT: 'a worker serves no HTTP',
  HOST: 'a worker serves no HTTP',
  BULL_BOARD_USER: 'the API serves Bull Board',
  BULL_BOARD_PASSWORD: 'the API serves Bull Board',
  METRICS_REQUIRE_AUTH: 'the API serves /metrics',
  METRICS_TOKEN: 'the API serves /metrics',
  ADMIN_TOKEN: 'the API serves /v1/admin',
};
const SINGLE_REDIS = { REDIS_CLUSTER_NODES: 'these services use the one redis service (REDIS_URL); the cluster profile sets the nodes instead' };
const CLUSTER = { REDIS_URL: 'REDIS_CLUSTER_NODES names the cluster, and a URL beside it would be ignored' };

/**
 * The settings each app service deliberately does not get, with the reason.
 * Every other setting of shared/runtime/config.ts and docs/configuration.md must be
 * in its environment, so an operator can set it through compose.
 */
const NOT_FORWARDED: Record<string, Record<string, string>> = {
  api: SINGLE_REDIS,
  worker: { ...SINGLE_REDIS, ...HTTP_ONLY },
  'api-cluster': CLUSTER,
  'worker-cluster': { ...CLUSTER, ...HTTP_ONLY },
};

describe('docker-compose.yml', () => {
  let compose: Compose;
  beforeAll(() => {
    // Compose files use YAML 1.1 merge keys (`<<: *env`).
    compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
  });

  it('parses and names exactly the services redis, api and worker outside any profile', () => {
    const always = Object.entries(compose.services).filter(([, s]) => !s.profiles?.length);
    expect(always.map(([name]) => name).sort()).toEqual(['api', 'redis', 'worker']);
  });

  it('runs redis with appendonly yes and maxmemory-policy noeviction', () => {
    const args = argv(compose.services.redis!.command);
    expect(args[0]).toBe('redis-server');
    const flag = (name: string): string | undefined => args[args.indexOf(`--${name}`) + 1];
    expect(args).toContain('--appendonly');
    expect(flag('appendonly')).toBe('yes');
    expect(args).toContain('--maxmemory-policy');
    expect(flag('maxmemory-policy')).toBe('noeviction');
  });

  it('keeps redis data in a named volume mounted at /data', () => {
    const volumes = compose.services.redis!.volumes ?? [];
    const mounts = volumes.map((v) => (typeof v === 'string' ? { source: v.split(':')[0], target: v.split(':')[1] } : v));
    const data = mounts.find((m) => m.target === '/data');
    expect(data, 'a volume mounted at /data').toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data!.source);
  });

  it('gives redis a healthcheck that the other services wait on', () => {
    const hc = compose.services.redis!.healthcheck;
    expect(hc?.disable).not.toBe(true);
    expect(argv(hc?.test).join(' ')).toMatch(/redis-cli.*ping/);
    for (const name of ['api', 'worker']) {
      const dependsOn = (compose.services[name] as { depends_on?: Record<string, { condition?: string }> }).depends_on;
      expect(dependsOn?.redis?.condition, `${name} waits for a healthy redis`).toBe('service_healthy');
    }
  });

  it('gives every worker a healthcheck running the compiled bin/worker-health.ts, which the image has', () => {
    for (const name of ['worker', 'worker-cluster']) {
      const hc = compose.services[name]!.healthcheck;
      expect(hc?.disable, name).not.toBe(true);
      expect(argv(hc?.test), name).toEqual(['CMD', 'node', 'dist/bin/worker-health.js']);
    }
    // The image compiles bin/ into dist/bin/ (tsconfig.build.json) and copies dist.
    expect(read('bin/worker-health.ts')).toContain('checkWorkerHealth');
    expect(read('tsconfig.build.json')).toContain('"bin"');
    expect(read('Dockerfile')).toMatch(/COPY bin \.\/bin/);
  });

  it('gives the worker no container_name and no ports, so --scale worker=N works', () => {
    const worker = compose.services.worker!;
    expect(worker).not.toHaveProperty('container_name');
    expect(worker).not.toHaveProperty('ports');
  });

  it('runs node directly, in exec form, on the entry points of npm run start:api and start:worker', () => {
    for (const [service, script] of [['api', 'start:api'], ['worker', 'start:worker']] as const) {
      const command = compose.services[service]!.command;
      expect(Array.isArray(command), `${service}: command is an exec-form list`).toBe(true);
      expect(argv(command)[0], `${service}: no npm or shell between the engine and node`).toBe('node');
      expect(argv(command), `${service}: same entry point as npm run ${script}`).toEqual(scriptArgv(script));
    }
  });

  it('sets only variables docs/configuration.md lists, with the same defaults', () => {
    const table = configurationTable();
    expect(table.size).toBeGreaterThan(10);
    for (const [service, s] of Object.entries(compose.services)) {
      if (service === 'redis') continue;
      for (const [name, value] of Object.entries(environmentOf(s))) {
        expect([...table.keys()], `${service}: ${name} is in docs/configuration.md`).toContain(name);
        const documented = table.get(name);
        const given = composeDefault(value);
        if (documented !== undefined && given !== '') {
          expect(given, `${service}: default of ${name}`).toBe(documented);
        }
      }
    }
  });

  it('forwards every setting of shared/runtime/config.ts and docs/configuration.md to the api and the worker, but those listed with a reason', () => {
    const text = read('docker-compose.yml');
    // The defaults loadConfig fills in, and the settings documented without one (REDIS_URL, the board's credentials...).
    const settings = new Set([...Object.keys(loadConfig({})).filter((k) => /^[A-Z][A-Z0-9_]*$/.test(k)), ...configurationTable().keys()]);
    expect(settings.size).toBeGreaterThan(30);
    for (const [service, skipped] of Object.entries(NOT_FORWARDED)) {
      const env = environmentOf(compose.services[service]!);
      const missing = [...settings].filter((name) => !(name in env) && !(name in skipped));
      expect(missing, `${service}: not in docker-compose.yml: ${missing.join(', ')}`).toEqual([]);
      // An exception stays true: the service really lacks it, and it is a setting at all.
      for (const name of Object.keys(skipped)) {
        expect(settings, `${service}: ${name} is a setting`).toContain(name);
        expect(env, `${service}: ${name} is listed as not forwarded`).not.toHaveProperty(name);
      }
    }
    expect(text).toMatch(/--maxmemory\s*\n\s*- \S+/);
  });

  it('forwards the sandbox limits empty by default, so they follow EXTRACT_MEMORY_MB', () => {
    for (const service of ['worker', 'worker-cluster']) {
      const env = environmentOf(compose.services[service]!);
      for (const name of ['SANDBOX_RECYCLE_RSS_MB', 'SANDBOX_ADDRESS_SPACE_MB']) {
        expect(env[name], `${service}: ${name} is forwarded`).toBeDefined();
        expect(composeDefault(env[name]!), `${service}: ${name} has no fixed default`).toBe('');
      }
      const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, composeDefault(v)])));
      expect(config.SANDBOX_RECYCLE_RSS_MB).toBe(loadConfig({}).SANDBOX_RECYCLE_RSS_MB);
      expect(config.SANDBOX_ADDRESS_SPACE_MB).toBe(loadConfig({}).SANDBOX_ADDRESS_SPACE_MB);
    }
  });

  it('sets only variables loadConfig accepts, with values it accepts when nothing is overridden', () => {
    for (const [service, s] of Object.entries(compose.services)) {
      if (service === 'redis') continue;
      const env = Object.fromEntries(Object.entries(environmentOf(s)).map(([k, v]) => [k, composeDefault(v)]));
      const config = loadConfig(env) as unknown as Record<string, unknown>;
      for (const [name, value] of Object.entries(env)) {
        if (value !== '') expect(config[name], `${service}: loadConfig keeps ${name}`).toBeDefined();
      }
      // Variables left empty by default (the board's credentials) must still be names loadConfig knows.
      const empty = Object.keys(env).filter((k) => env[k] === '');
      const filled = loadConfig({ ...env, ...Object.fromEntries(empty.map((k) => [k, probeValue(k)])) }) as unknown as Record<string, unknown>;
      for (const name of empty) expect(String(filled[name]), `${service}: loadConfig knows ${name}`).toBe(probeValue(name));
    }
  });
});

describe('docker-compose.yml, cluster profile', () => {
  let compose: Compose;
  let inProfile: [string, Service][];
  beforeAll(() => {
    compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
    inProfile = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('cluster'));
  });
  const nodes = (): [string, Service][] => inProfile.filter(([, s]) => argv(s.command)[0] === 'redis-server');

  it('has six cluster-enabled Redis nodes with AOF on, noeviction and a volume each', () => {
    expect(nodes()).toHaveLength(6);
    const volumes = new Set<string>();
    for (const [name, s] of nodes()) {
      const args = argv(s.command);
      const flag = (f: string): string | undefined => (args.includes(`--${f}`) ? args[args.indexOf(`--${f}`) + 1] : undefined);
      expect(flag('cluster-enabled'), name).toBe('yes');
      expect(flag('appendonly'), name).toBe('yes');
      expect(flag('maxmemory-policy'), name).toBe('noeviction');
      const data = (s.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target])).find(([, target]) => target === '/data');
      expect(data, `${name} keeps /data in a volume`).toBeDefined();
      expect(Object.keys(compose.volumes ?? {})).toContain(data![0]);
      volumes.add(data![0]!);
    }
    expect(volumes.size, 'no two nodes share a volume').toBe(6);
  });

  it('creates the cluster once with redis-cli: every node, one replica per master', () => {
    const init = inProfile.filter(([, s]) => argv(s.command).join(' ').includes('--cluster create'));
    expect(init).toHaveLength(1);
    const [, service] = init[0]!;
    const script = argv(service.command).join(' ');
    for (const [name] of nodes()) expect(script).toContain(`${name}:6379`);
    expect(script).toMatch(/--cluster-replicas 1\b/);
    expect(script).toContain('--cluster-yes');
    for (const [name] of nodes()) expect(service.depends_on?.[name]?.condition, `waits for ${name}`).toBe('service_healthy');
  });

  it('gives its API and worker REDIS_CLUSTER_NODES naming every node, no REDIS_URL, and starts them after the cluster exists', () => {
    const init = inProfile.find(([, s]) => argv(s.command).join(' ').includes('--cluster create'))![0];
    const apps = inProfile.filter(([, s]) => argv(s.command)[0] === 'node');
    expect(apps.map(([, s]) => argv(s.command)).sort()).toEqual([scriptArgv('start:api'), scriptArgv('start:worker')].sort());
    for (const [name, s] of apps) {
      const env = environmentOf(s);
      expect(env, name).not.toHaveProperty('REDIS_URL');
      const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, composeDefault(v)])));
      expect(config.redisClusterNodes?.map((n) => n.host).sort(), name).toEqual(nodes().map(([n]) => n).sort());
      expect(s.depends_on?.[init]?.condition, `${name} waits for the cluster`).toBe('service_completed_successfully');
    }
  });
});

describe('Dockerfile', () => {
  let stages: Stage[];
  beforeAll(() => {
    stages = dockerStages(read('Dockerfile'));
  });

  it('runs the runtime stage as a non-root USER', () => {
    const runtime = stages.at(-1)!;
    const users = runtime.body.filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]);
    expect(users.length, 'a USER instruction in the last stage').toBeGreaterThan(0);
    expect(['root', '0']).not.toContain(users.at(-1));
    const cmdAt = runtime.body.findIndex((i) => i.op === 'CMD');
    const userAt = runtime.body.map((i) => i.op).lastIndexOf('USER');
    expect(userAt).toBeLessThan(cmdAt);
  });

  it('checks in the runtime stage that prlimit, which sandbox children start through, is there', () => {
    const runtime = stages.at(-1)!;
    expect(runtime.from, 'a Debian-based node image, where util-linux (prlimit) is essential').toMatch(/^node:\S*-(bookworm|trixie|bullseye)(-slim)?$/);
    const runs = runtime.body.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /^prlimit\b|\bcommand -v prlimit\b|\btest -x \S*prlimit\b/.test(r)), runs.join('\n')).toBe(true);
  });

  it('starts the runtime stage with node directly, in exec form, on the entry point of npm run start:api', () => {
    const cmd = stages.at(-1)!.body.filter((i) => i.op === 'CMD').at(-1);
    expect(cmd, 'a CMD in the last stage').toBeDefined();
    expect(cmd!.args.startsWith('['), 'exec form: no /bin/sh -c between the engine and node').toBe(true);
    expect(instructionArgs(cmd!.args)).toEqual(scriptArgv('start:api'));
  });

  it('copies only files and folders that exist in the build context and are not dockerignored', () => {
    const copies = stages.flatMap((s) => s.body.filter((i) => i.op === 'COPY' || i.op === 'ADD').map((i) => copySources(i.args)));
    const fromContext = copies.filter((c) => !c.fromStage).flatMap((c) => c.sources);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const src of fromContext) {
      expect(existsSync(join(ROOT, src)), `COPY ${src} exists`).toBe(true);
      expect(dockerIgnored(src), `COPY ${src} is not excluded by .dockerignore`).toBe(false);
    }
  });

  it('copies into the build stage every folder tsconfig.build.json compiles', () => {
    const build = stages.find((s) => s.body.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
    expect(build, 'a stage that runs npm run build').toBeDefined();
    const copied = build!.body.filter((i) => i.op === 'COPY').flatMap((i) => copySources(i.args).sources.map((p) => p.replace(/^\.\//, '').replace(/\/$/, '')));
    const tsconfig = JSON.parse(read('tsconfig.build.json')) as { extends?: string; include?: string[] };
    expect(copied).toContain('tsconfig.build.json');
    if (tsconfig.extends) expect(copied).toContain(tsconfig.extends.replace(/^\.\//, ''));
    for (const folder of tsconfig.include ?? []) expect(copied, `build stage copies ${folder}`).toContain(folder);
  });

  it('has a source file for every entry point the image runs', () => {
    const runtimeCmd = stages.at(-1)!.body.filter((i) => i.op === 'CMD').at(-1)!;
    const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
    const commands = [instructionArgs(runtimeCmd.args), argv(compose.services.api!.command), argv(compose.services.worker!.command)];
    for (const command of commands) {
      const target = /^(dist\/\S+)\.js$/.exec(command[1] ?? '')?.[1];
      expect(target, `${command.join(' ')} runs node dist/….js`).toBeDefined();
      expect(existsSync(join(ROOT, `${target!.replace(/^dist\//, '')}.ts`)), `${target}.js is built from a source file`).toBe(true);
    }
  });
});

/*
 * What `docker compose stop` does, without a Docker engine: the exact command
 * of each container (from the parsed files, with the compose environment and
 * a throwaway Redis) gets SIGTERM, and must finish its graceful shutdown with
 * nothing left running. A command that puts npm in front of node fails here:
 * npm's shell does not pass the signal on and node keeps running.
 */
describe('stopping a container command', () => {
  let redis: RedisServerHandle;
  beforeAll(async () => {
    redis = await startRedisServer();
    // The image runs what `npm run build` compiles, so the test does too.
    await buildDist(ROOT);
  }, 120_000);
  afterAll(async () => {
    await redis?.stop();
  });

  const compose = (): Compose => parse(read('docker-compose.yml'), { merge: true }) as Compose;
  const cmdOf = (): string[] => instructionArgs(dockerStages(read('Dockerfile')).at(-1)!.body.filter((i) => i.op === 'CMD').at(-1)!.args);
  const cases: [string, () => { argv: string[]; env: Record<string, string>; ready: string }][] = [
    ['the Dockerfile CMD', () => ({ argv: cmdOf(), env: environmentOf(compose().services.api!), ready: 'api listening' })],
    ['the compose api command', () => ({ argv: argv(compose().services.api!.command), env: environmentOf(compose().services.api!), ready: 'api listening' })],
    ['the compose worker command', () => ({ argv: argv(compose().services.worker!.command), env: environmentOf(compose().services.worker!), ready: 'worker started' })],
  ];

  it.each(cases)('%s shuts down gracefully on SIGTERM (exit 0, "shutting down" logged) and leaves no process behind', async (_name, container) => {
    const { argv: command, env, ready } = container();
    const defaults = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, composeDefault(v)]));
    const result = await runUntilStopped({
      cwd: ROOT,
      argv: command,
      env: { ...defaults, REDIS_URL: redis.url, REDIS_KEY_PREFIX: `stop${process.pid}`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      ready,
    });
    expect(result.leftBehind, 'processes still running after the command exited').toEqual([]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.messages).toContain('shutting down');
    expect(result.messages.indexOf('shutting down')).toBeGreaterThan(result.messages.indexOf(ready));
  }, 60_000);
});
