import { execFile, spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/main.js';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { generatedPages, SiteServer } from '../helpers/site-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorker, waitForDocument } from '../helpers/worker-harness.js';

const run = promisify(execFile);
// The compiled CLI, as `npx kb-ingest` runs it: `npm run build` first.
const CLI = 'dist/cli/main.js';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

let served: ServedApi;
let worker: RunningWorker;
let env: NodeJS.ProcessEnv;
let dir: string;

beforeAll(async () => {
  // Private addresses allowed for the loopback site of `sites add`.
  served = await serveApi({ URL_FETCH_ALLOW_PRIVATE: 'true', URL_FETCH_HOST_SPACING_MS: '0' });
  worker = await startTestWorker(served.h);
  env = { PATH: process.env.PATH, KB_INGEST_URL: `http://127.0.0.1:${served.port}`, KB_INGEST_API_KEY: await served.h.key('ws-cli') };
  dir = await mkdtemp(join(tmpdir(), 'kb-cli-'));
  await mkdir(join(dir, 'guides'));
  await writeFile(join(dir, 'hours.txt'), 'We open at nine and close at five.\n');
  await writeFile(join(dir, 'guides', 'returns.md'), '# Returns\n\nReturns take 30 days.\n');
  await writeFile(join(dir, 'guides', 'picture.pdf'), PNG);
  await writeFile(join(dir, 'guides', 'empty.txt'), '');
  await writeFile(join(dir, '.hidden'), 'not pushed');
});
afterAll(async () => {
  await worker?.close();
  await served?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI to its end; a non-zero exit is returned, not thrown. */
async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...env, ...extraEnv }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('kb-ingest push, status and chunks against the running API', () => {
  let kbId: string;

  it('pushes a folder in batches, waits until it settles, and lists the refused file with its code', async () => {
    const res = await cli(['push', dir, '--name', 'Folder', '--batch-files', '1']);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/batch 3\/3/);
    expect(res.stdout).toMatch(/guides\/picture\.pdf\s+unsupported_media_type/);
    // The service would call an empty file unsupported: it is not sent, and is named as empty.
    expect(res.stdout).toMatch(/guides\/empty\.txt\s+empty_file\s+The file is empty \(0 bytes\)/);
    expect(res.stdout).toContain('2 ready, 0 failed');
    // The bytes of each batch, counted as its body went out (the form's own bytes too).
    expect(res.stderr).toMatch(/^batch 3\/3: uploading 35 B$/m);
    const sent = /^batch 3\/3: 1 files sent \((\d+) B\) to kb_/m.exec(res.stderr);
    expect(Number(sent?.[1])).toBeGreaterThan(35);
    kbId = /in (kb_[\w-]+)/.exec(res.stdout)![1]!;
    const kb = await served.h.store.kbs.get(kbId);
    expect(kb?.sources.map((s) => s.content).sort()).toEqual(['hours.txt', 'returns.md']);
  });

  it('adds nothing twice when the same push runs again', async () => {
    const res = await cli(['push', dir, '--name', 'Folder', '--batch-files', '1']);
    expect(res.stdout).toContain(`in ${kbId}`);
    expect((await served.h.store.kbs.get(kbId))?.sources).toHaveLength(2);
  });

  it('shows status and a document chunks', async () => {
    const status = await cli(['status', kbId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/2 ready, 0 failed/);
    // A row names the file, not the title the service read from inside it ("Returns").
    const returns = (await served.h.store.kbs.get(kbId))!.sources.find((s) => s.content === 'returns.md')!;
    expect(returns.title).toBe('Returns');
    expect(status.stdout).toMatch(/ready +returns\.md$/m);
    expect(status.stdout).not.toMatch(/ Returns$/m);
    const doc = (await served.h.store.kbs.get(kbId))!.sources.find((s) => s.content === 'returns.md')!;
    const chunks = await cli(['chunks', kbId, doc.documentId]);
    expect(chunks.stdout).toContain('Returns take 30 days.');
  });

  it('says what is missing without an API key, and names a missing knowledge base', async () => {
    const noKey = await run(process.execPath, [CLI, 'status', 'kb_x'], { env: { PATH: process.env.PATH } }).catch((e: { code: number; stderr: string }) => e);
    expect((noKey as { code: number }).code).toBe(2);
    expect((noKey as { stderr: string }).stderr).toContain('KB_INGEST_API_KEY');
    const missing = await cli(['status', 'kb_missing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('kb_missing');
  });
});

describe('kb-ingest search and sites add', () => {
  let kbId: string;

  beforeAll(async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'Searched');
    form.set('knowledge_base_texts', JSON.stringify([{ title: 'Refund policy', text: '# Refunds\n\nRefunds are paid within thirty days of the return.' }, 'Opening hours are nine to five.']));
    form.append('knowledge_base_files', new Blob(['# Shipping\n\n## Abroad\n\nParcels abroad & refunds take longer.\n'], { type: 'text/markdown' }), 'shipping.md');
    const res = await served.h.app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': env.KB_INGEST_API_KEY! } });
    kbId = ((await res.json()) as { kbId: string }).kbId;
    expect((await cli(['wait', kbId])).code).toBe(0);
  });

  it('prints the ranked hits: score, the document, the heading path and the snippet with the match marked', async () => {
    const res = await cli(['search', kbId, 'refunds']);
    expect(res.code, res.stderr).toBe(0);
    const hits = res.stdout.trim().split('\n\n');
    expect(hits).toHaveLength(2);
    expect(hits.join('\n')).toMatch(/^1\. \d+\.\d\d {2}(Refund policy|shipping\.md)\n/);
    const shipping = hits.find((h) => h.includes('shipping.md'))!;
    expect(shipping).toMatch(/^\d\. \d+\.\d\d {2}shipping\.md\n {3}Shipping\n {3}.*Parcels abroad & \*\*refunds\*\* take longer\./);
    expect(hits.find((h) => h.includes('Refund policy'))).toContain('**Refunds** are paid');
  });

  it('--top and --json: the service\'s answer as it is', async () => {
    const res = await cli(['search', kbId, 'refunds', '--top', '1', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const body = JSON.parse(res.stdout) as { data: { score: number; chunk: { documentId: string } }[] };
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.score).toBeGreaterThan(0);
    expect((await cli(['search', kbId, 'refunds', '--top', '0'])).code).toBe(2);
    expect((await cli(['search', kbId, 'zebra'])).stdout).toBe('no match\n');
  });

  it('adds a site and shows its discovery until it is done', async () => {
    const site = new SiteServer({ pages: generatedPages(3), robots: [], sitemap: [...generatedPages(3).keys()] });
    await site.start();
    try {
      const res = await cli(['sites', 'add', kbId, `${site.origin}/`, '--max-pages', '2', '--sitemap', 'only', '--interval', '0.1']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/^site site_\S+ added to kb_/m);
      expect(res.stdout).toMatch(/^site_\S+ discovering: /m);
      expect(res.stdout).toMatch(/^site_\S+ done: \d+ pages found, 2 added, stopped early {2}http:\/\/127\.0\.0\.1:\d+\/?$/m);
      const kb = await served.h.store.kbs.get(kbId);
      expect(kb?.sources.filter((s) => s.type === 'url')).toHaveLength(2);
      expect((await cli(['sites', 'add', kbId, `${site.origin}/`, '--sitemap', 'sometimes'])).code).toBe(2);
    } finally {
      await site.stop();
    }
  });
});

describe('kb-ingest help, usage errors and a service that is down', () => {
  it('--help and -h show the program\'s and each command\'s help with the exit codes, without a key', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await cli(args, { KB_INGEST_API_KEY: '' });
      expect(res.code, args.join(' ')).toBe(0);
      expect(res.stdout).toMatch(/^usage: kb-ingest <command>/);
      expect(res.stdout).toMatch(/^ {2}3 {2}the service could not be reached/m);
    }
    for (const command of ['push', 'status', 'chunks', 'wait', 'search', 'sites', 'watch']) {
      const res = await cli([command, '--help']);
      expect(res.code, command).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^usage: kb-ingest ${command} `));
      expect(res.stdout).toContain('exit codes:');
    }
    expect((await cli(['help', 'search'])).stdout).toMatch(/^usage: kb-ingest search KBID/);
  });

  it('a wrong option or command is a usage error (2) that points to --help', async () => {
    const res = await cli(['status', 'kb_x', '--frobnicate']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("Unknown option '--frobnicate'");
    expect(res.stderr).toContain('kb-ingest --help');
    expect((await cli(['frobnicate'])).code).toBe(2);
  });

  it('names the address it could not reach and why, and exits 3', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const res = await cli(['status', 'kb_x'], { KB_INGEST_URL: `http://127.0.0.1:${port}` });
    expect(res.code).toBe(3);
    expect(res.stderr).toBe(
      `kb-ingest: cannot reach http://127.0.0.1:${port} (ECONNREFUSED: connection refused). Is the service running? Set KB_INGEST_URL to its address if it runs elsewhere.\n`,
    );
  });
});

describe('kb-ingest watch: the change feed', () => {
  let kbId: string;
  let cursorFile: string;

  /** Adds a text source through the API and waits until it is ready. */
  async function addText(title: string, text: string): Promise<string> {
    const form = new FormData();
    form.set('knowledge_base_texts', JSON.stringify([{ title, text }]));
    const res = await served.h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'PATCH', body: form, headers: { 'X-API-Key': env.KB_INGEST_API_KEY! } });
    const body = (await res.json()) as { files: { documentId: string; title: string }[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const documentId = body.files.find((f) => f.title === title)!.documentId;
    expect((await waitForDocument(served.h, env.KB_INGEST_API_KEY!, kbId, documentId)).status).toBe('ready');
    return documentId;
  }

  beforeAll(async () => {
    const form = new FormData();
    form.set('knowledge_base_name', 'Watched');
    const res = await served.h.app.request('/v1/knowledge-bases', { method: 'POST', body: form, headers: { 'X-API-Key': env.KB_INGEST_API_KEY! } });
    kbId = ((await res.json()) as { kbId: string }).kbId;
    cursorFile = join(dir, 'watch.cursor');
    await addText('Before', 'Written before the watch began.');
  });

  it('starts from now, then prints what changed since the cursor it kept, once each', async () => {
    const first = await cli(['watch', kbId, '--once', '--cursor-file', cursorFile]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('from now');
    const kept = (await readFile(cursorFile, 'utf8')).trim();

    const doc = await addText('After', 'Opening hours changed to eight.');
    const second = await cli(['watch', kbId, '--once', '--cursor-file', cursorFile]);
    expect(second.stdout).toMatch(new RegExp(`^chunk\\.upserted  chk_\\S+ ${doc} "Opening hours changed to eight\\."\n$`));
    expect((await readFile(cursorFile, 'utf8')).trim()).not.toBe(kept);
    expect((await cli(['watch', kbId, '--once', '--cursor-file', cursorFile])).stdout).toBe('');

    // The same events from the first cursor, as JSON lines.
    const json = await cli(['watch', kbId, '--once', '--json', '--after', kept]);
    const events = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events).toEqual([expect.objectContaining({ type: 'chunk.upserted', chunk: expect.objectContaining({ documentId: doc }) })]);
  });

  it('follows the feed as it grows and stops on Ctrl-C at the cursor reached', async () => {
    const child = spawn(process.execPath, [CLI, 'watch', kbId, '--interval', '0.2', '--cursor-file', cursorFile], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const doc = await addText('Live', 'Seen while watching.');
      await waitFor('the watch to print the new chunk', async () => (stdout.includes(doc) ? true : undefined));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stdout).toContain('"Seen while watching."');
      expect(stderr).toMatch(/stopped at cursor c2\.\S+ \(resume with --after c2\.\S+\)/);
      expect(stderr).toContain((await readFile(cursorFile, 'utf8')).trim());
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('resyncs from the chunk listing when its cursor is older than the feed keeps (410), then follows on', async () => {
    const old = (await readFile(cursorFile, 'utf8')).trim();
    await addText('Later', 'Added while nobody watched.');
    // Retention trimmed everything up to the newest event: the kept cursor is now too old.
    const newest = await served.h.redis.xrevrange(served.h.store.keys.changes(kbId), '+', '-', 'COUNT', 1);
    await served.h.redis.hset(served.h.store.keys.changesInfo(kbId), 'floor', newest[0]![0]);
    const res = await cli(['watch', kbId, '--once', '--after', old]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('(410)');
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toBe('resync');
    // Every chunk of the knowledge base, as upserts: the four texts.
    expect(lines.slice(1).map((l) => l.split(' ')[0])).toEqual(['chunk.upserted', 'chunk.upserted', 'chunk.upserted', 'chunk.upserted']);
    expect(res.stdout).toContain('Added while nobody watched.');
  });

  it('prints knowledge_base.deleted, forgets its cursor and exits 0 when the knowledge base was deleted, even past its cursor\'s retention', async () => {
    const old = (await readFile(cursorFile, 'utf8')).trim();
    await addText('Last', 'Written just before the deletion.');
    const del = await served.h.app.request(`/v1/knowledge-bases/${kbId}`, { method: 'DELETE', headers: { 'X-API-Key': env.KB_INGEST_API_KEY! } });
    expect(del.status).toBe(204);
    // The cursor kept is from before the events the deletion dropped: a 410 before, when the listing was a 404.
    const res = await cli(['watch', kbId, '--once', '--cursor-file', cursorFile]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`knowledge_base.deleted ${kbId}\n`);
    expect(res.stderr).toContain('was deleted');
    await expect(readFile(cursorFile, 'utf8')).rejects.toThrow(/ENOENT/);
    const json = await cli(['watch', kbId, '--once', '--json', '--after', old]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ type: 'knowledge_base.deleted', kbId });
  });
});
