import { fileURLToPath } from 'node:url';
import { createDeflateRaw } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../shared/source-errors.js';
import { extractInSandbox, SandboxPool, type SandboxLimits, type SandboxStats } from '../../worker/sandbox/sandbox.js';
import { buildDocx, docxParts } from '../fixtures/docx.js';
import { buildPdf } from '../fixtures/pdf.js';
import { buildZip } from '../fixtures/zip.js';
import { isAlive } from '../helpers/pids.js';

// Children run as TypeScript through tsx here, which costs start-up time and ~100 MB of RSS.
const limits: SandboxLimits = { timeoutMs: 20_000, memoryMb: 512, maxTextChars: 100_000, maxPdfPages: 10 };

async function run(promise: (observe: (s: SandboxStats) => void) => Promise<unknown>) {
  let stats: SandboxStats | undefined;
  const outcome = await promise((s) => (stats = s)).then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  return { ...outcome, stats: stats as SandboxStats };
}

/** A DOCX whose document.xml really inflates to `mb` MiB of spaces while its headers claim 4 kB. */
async function lyingBombDocx(mb: number): Promise<Uint8Array> {
  const deflate = createDeflateRaw({ level: 1 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let i = 0; i < mb; i++) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const parts = docxParts([{ para: 'bomb' }]).filter((p) => p.name !== 'word/document.xml');
  return buildZip([...parts, { name: 'word/document.xml', compressed: Buffer.concat(chunks), crc: 0, uncompressedSize: 4096 }]);
}

describe('extractInSandbox', () => {
  it('extracts a document in a child process and leaves no child behind', async () => {
    const docx = buildDocx([{ heading: 'Sandboxed' }, { para: 'Text from the child.' }], { title: 'Child Title' });
    const r = await run((observe) => extractInSandbox(docx, { filename: 'a.docx' }, limits, observe));
    expect(r.value).toMatchObject({ format: 'docx', title: 'Child Title', text: 'Sandboxed\n\nText from the child.', truncated: false });
    expect(r.stats).toMatchObject({ outcome: 'ok' });
    expect(r.stats.pid).not.toBe(process.pid);
    await expect.poll(() => isAlive(r.stats.pid), { timeout: 10_000 }).toBe(false);
  });

  it('re-creates an error thrown in the child as a SourceError with the same code', async () => {
    const pdf = buildPdf({ pages: ['secret'], encrypt: { userPassword: 'u', ownerPassword: 'o' } });
    const r = await run((observe) => extractInSandbox(pdf, { filename: 'a.pdf' }, limits, observe));
    expect(r.error).toBeInstanceOf(SourceError);
    expect(r.error).toMatchObject({ code: 'encrypted' });
    expect(r.stats.outcome).toBe('failed');
  });

  it('kills the child at the wall-clock limit and fails as timeout', async () => {
    // No child starts, loads its parsers and answers within 30 ms.
    const r = await run((observe) => extractInSandbox(buildPdf({ pages: ['x'] }), {}, { ...limits, timeoutMs: 30 }, observe));
    expect(r.error).toMatchObject({ code: 'timeout', message: expect.stringContaining('30 ms') });
    expect(r.stats.outcome).toBe('timeout');
    await expect.poll(() => isAlive(r.stats.pid), { timeout: 10_000 }).toBe(false);
  });

  it('kills a child whose ArrayBuffers outgrow the memory limit, which the heap cap alone misses', async () => {
    const childModule = fileURLToPath(new URL('../helpers/sandbox-test-child.ts', import.meta.url));
    const pool = new SandboxPool({ size: 1, limits: { ...limits, memoryMb: 300 }, childModule, warm: false });
    const r = await run((observe) => pool.extract(Buffer.from('alloc:700'), {}, observe)).finally(() => pool.close());
    expect(r.error).toMatchObject({ code: 'too_complex', message: expect.stringContaining('300 MB') });
    expect(r.stats.outcome).toBe('memory');
    expect(r.stats.peakRssMb).toBeGreaterThan(300);
    await expect.poll(() => isAlive(r.stats.pid), { timeout: 10_000 }).toBe(false);
  });

  it('stops a ZIP bomb whose headers lie about its size, and the parent carries on', async () => {
    const bomb = await lyingBombDocx(512);
    expect(bomb.length).toBeLessThan(3 * 1024 * 1024);
    const r = await run((observe) => extractInSandbox(bomb, { filename: 'bomb.docx' }, { ...limits, memoryMb: 300 }, observe));
    expect(r.error).toMatchObject({ code: 'too_complex' });
    // The extractor's inflate check refuses it before mammoth reads it; the memory cap is the backstop.
    expect(['failed', 'memory']).toContain(r.stats.outcome);
    await expect.poll(() => isAlive(r.stats.pid), { timeout: 10_000 }).toBe(false);

    const after = await extractInSandbox(buildDocx([{ para: 'still working' }]), {}, limits);
    expect(after.text).toBe('still working');
  }, 60_000);
});
