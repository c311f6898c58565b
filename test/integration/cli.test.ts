import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/main.js';
import { serveApi, type ServedApi } from '../helpers/api-server.js';
import { startTestWorker } from '../helpers/worker-harness.js';

const run = promisify(execFile);
// The compiled CLI, as `npx kb-ingest` runs it: `npm run build` first.
const CLI = 'dist/cli/main.js';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

let served: ServedApi;
let worker: RunningWorker;
let env: NodeJS.ProcessEnv;
let dir: string;

beforeAll(async () => {
  served = await serveApi();
  worker = await startTestWorker(served.h);
  env = { PATH: process.env.PATH, KB_INGEST_URL: `http://127.0.0.1:${served.port}`, KB_INGEST_API_KEY: await served.h.key('ws-cli') };
  dir = await mkdtemp(join(tmpdir(), 'kb-cli-'));
  await mkdir(join(dir, 'guides'));
  await writeFile(join(dir, 'hours.txt'), 'We open at nine and close at five.\n');
  await writeFile(join(dir, 'guides', 'returns.md'), '# Returns\n\nReturns take 30 days.\n');
  await writeFile(join(dir, 'guides', 'picture.pdf'), PNG);
  await writeFile(join(dir, '.hidden'), 'not pushed');
});
afterAll(async () => {
  await worker?.close();
  await served?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI to its end; a non-zero exit is returned, not thrown. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, timeout: 60_000 });
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
    expect(res.stdout).toContain('2 ready, 0 failed');
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
