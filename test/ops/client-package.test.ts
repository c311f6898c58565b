import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The client package as a user gets it: `npm pack` in clients/typescript (its
 * prepack builds dist/), installed from the tarball into an empty folder, then
 * imported by Node and type-checked by tsc. Offline: openapi-fetch and its one
 * dependency are packed from the repository's node_modules and installed from
 * their tarballs beside the client's, as a registry would serve them, with
 * `--offline`, so nothing is fetched and the client's declared dependency range
 * is what npm resolves against.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = join(ROOT, 'clients/typescript');
const NPM_ENV = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

let dir: string;
let consumer: string;
let packed: { filename: string; files: { path: string }[] };

/** `npm pack --json` of `folder` into `dir`: the tarball's name and files. */
async function pack(folder: string, extra: string[] = []): Promise<{ filename: string; files: { path: string }[] }> {
  const { stdout } = await run('npm', ['pack', folder, '--pack-destination', dir, '--json', ...extra], { cwd: dir, env: NPM_ENV, maxBuffer: 16 * 1024 * 1024 });
  // Lifecycle scripts may print before the JSON report.
  return (JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[])[0]!;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kb-client-pack-'));
  packed = await pack(PACKAGE);
  const fetchTgz = await pack(join(ROOT, 'node_modules/openapi-fetch'), ['--ignore-scripts']);
  const helpersTgz = await pack(join(ROOT, 'node_modules/openapi-typescript-helpers'), ['--ignore-scripts']);
  consumer = join(dir, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...[packed, fetchTgz, helpersTgz].map((p) => join(dir, p.filename))], {
    cwd: consumer,
    env: NPM_ENV,
  });
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed client package', () => {
  it('holds the built ESM, its declarations with the generated schema, and no sources', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'dist/change-feed.js']));
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/@kb-ingest/client/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
  });

  it('imports under Node ESM and sends a typed request with its key', async () => {
    const seen: { url?: string; key?: string } = {};
    const server: Server = createServer((req, res) => {
      seen.url = req.url;
      seen.key = req.headers['x-api-key'] as string;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ workspaceId: 'ws_pack' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const script = [
        "import { createKbClient, unwrap, sourceForm, verifyWebhook, followChanges } from '@kb-ingest/client';",
        `const kb = createKbClient({ baseUrl: 'http://127.0.0.1:${(server.address() as AddressInfo).port}', apiKey: 'kbi_pack' });`,
        "const usage = unwrap(await kb.api.GET('/v1/usage'));",
        "console.log(JSON.stringify({ usage, form: [...sourceForm({ sites: [{ url: 'https://example.com/' }] }).keys()], fns: [typeof verifyWebhook, typeof followChanges] }));",
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
      expect(JSON.parse(stdout)).toEqual({ usage: { workspaceId: 'ws_pack' }, form: ['knowledge_base_sites'], fns: ['function', 'function'] });
      expect(seen).toEqual({ url: '/v1/usage', key: 'kbi_pack' });
    } finally {
      server.close();
    }
  });

  it('type-checks a consumer against its declarations (routes, bodies and answers typed, not any)', async () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        // No @types/node: the declarations need only the fetch types of the DOM library.
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [], strict: true, noEmit: true, skipLibCheck: false },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `import { createKbClient, unwrap, type FeedPage, type KnowledgeBase, type paths } from '@kb-ingest/client';

const kb = createKbClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'kbi_x' });

export async function use(): Promise<KnowledgeBase> {
  const usage = unwrap(await kb.api.GET('/v1/usage'));
  const workspace: string = usage.workspaceId;
  // @ts-expect-error not a route of the API
  await kb.api.GET('/v1/nowhere');
  // @ts-expect-error a site source is an object with its url
  await kb.addSources('kb_1', { sites: ['https://example.com/'] });
  for await (const page of kb.followChanges('kb_1', { follow: false })) {
    const p: FeedPage = page;
    // @ts-expect-error an event's type is one of the feed's
    if (p.events[0]?.type === 'chunk.renamed') return Promise.reject(new Error('no such event'));
  }
  return kb.createKnowledgeBase({ name: workspace, sites: [{ url: 'https://example.com/docs/', sitemap: 'only' }], chunkMaxTokens: 256 });
}

export type Route = keyof paths;
`,
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(checked).toBe('');
  });
});
