/**
 * Hostile documents against the extractors, each built here in memory: ZIP and
 * PDF decompression bombs, external references, XML entity tricks, page, image
 * and text scale, and parser-hostile HTML and Markdown. Where only the child
 * process can bound the damage they run through `extractInSandbox` under the
 * worker's own limits (config defaults), in the compiled children the worker
 * runs (dist/, when it is up to date; see compiledSandbox); every such case checks the error
 * code, that the run ended within the wall-clock limit, and that the next
 * extraction in a fresh child still works. `TEST_BOMB_FIGURES=1` prints the
 * outcome, wall time and peak RSS of each sandboxed run.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../shared/runtime/config.js';
import { extractText, type Extraction } from '../../worker/extractors/index.js';
import { buildDocx, docxParts, docxWithEntries, docxWithPrototypeStyles } from '../fixtures/docx.js';
import { pdfOfDenseText, pdfWithContent, pdfWithHugeImage, pdfWithRemoteReferences } from '../fixtures/hostile-pdf.js';
import { buildPdf } from '../fixtures/pdf.js';
import { buildZip, deflateRun, type RawZipInput, type ZipInput } from '../fixtures/zip.js';
import { startCanary, type Canary } from '../helpers/canary-server.js';
import { BOMB_TEST_MS, compiledSandbox, figures, sandboxedRuns, WORKER_LIMITS, type SandboxedRun } from '../helpers/sandboxed-run.js';

// Every getDocument call of the in-process extractor is recorded (the real one still runs).
const pdfjs = vi.hoisted(() => ({ calls: [] as Record<string, unknown>[] }));
vi.mock('pdfjs-dist/legacy/build/pdf.mjs', async (importOriginal) => {
  const real = await importOriginal<typeof import('pdfjs-dist/legacy/build/pdf.mjs')>();
  return {
    ...real,
    getDocument: (params: Parameters<typeof real.getDocument>[0]) => {
      pdfjs.calls.push({ ...(params as Record<string, unknown>) });
      return real.getDocument(params);
    },
  };
});

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const config = loadConfig({});
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const sandbox = await compiledSandbox();
const { runSandboxed, expectParentCarriesOn } = sandboxedRuns(sandbox);

afterAll(() => {
  // Wall time and peak RSS of each bomb.
  if (process.env.TEST_BOMB_FIGURES) console.table(figures);
});

/** The parts of a small valid DOCX with `replace` swapping or adding parts by name. */
function docxWith(replace: ReadonlyArray<ZipInput | RawZipInput>, body = 'Ordinary text'): Uint8Array {
  const names = new Set(replace.map((p) => p.name));
  return buildZip([...docxParts([{ para: body }]).filter((p) => !names.has(p.name)), ...replace]);
}

describe('DOCX zip bombs', () => {
  let spaces: { compressed: Buffer; crc: number };
  beforeAll(async () => {
    spaces = await deflateRun(GiB, 0x20);
  }, 120_000);

  it('refuses a DOCX whose document.xml declares 1 GiB of spaces (about 1 MB deflated) from its ZIP directory, without inflating it', async () => {
    const bomb = docxWith([{ name: 'word/document.xml', compressed: spaces.compressed, crc: spaces.crc, uncompressedSize: GiB }]);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const run = await runSandboxed('C2 DOCX, 1 GiB declared', bomb, { filename: 'bomb.docx' });
    expect(run.error).toMatchObject({ code: 'too_complex', retryable: false, message: expect.stringContaining('1024 MB') });
    expect(run.stats.outcome).toBe('failed');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('stops the same 1 GiB bomb when its headers claim 4 kB, before it fills the memory limit', async () => {
    const bomb = docxWith([{ name: 'word/document.xml', compressed: spaces.compressed, crc: spaces.crc, uncompressedSize: 4096 }]);
    const run = await runSandboxed('C2 DOCX, 1 GiB declared 4 kB', bomb, { filename: 'bomb.docx' });
    expect(run.error).toMatchObject({ code: 'too_complex', retryable: false });
    expect(run.stats.outcome).toBe('failed');
    expect(run.stats.peakRssMb).toBeLessThan(WORKER_LIMITS.memoryMb);
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('refuses a DOCX of 50,000 tiny entries from the entry count', async () => {
    const bomb = docxWithEntries(50_000);
    const run = await runSandboxed('C2 DOCX, 50,000 entries', bomb, { filename: 'many.docx' });
    expect(run.error).toMatchObject({ code: 'too_complex', retryable: false, message: expect.stringMatching(/holds 50\d{3} files/) });
    expect(run.stats.outcome).toBe('failed');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('reads a DOCX that carries a 1 GiB zip bomb as an embedded package without inflating the inner archive', async () => {
    const inner = docxWith([{ name: 'word/document.xml', compressed: spaces.compressed, crc: spaces.crc, uncompressedSize: 4096 }]);
    const [document, rels] = docxParts([{ para: 'Outer text' }]).filter((p) => p.name === 'word/document.xml' || p.name === 'word/_rels/document.xml.rels');
    const outer = docxWith([
      { name: 'word/document.xml', data: String(document!.data).replace('</w:body>', '<w:altChunk r:id="rIdInner"/></w:body>') },
      {
        name: 'word/_rels/document.xml.rels',
        data: String(rels!.data).replace(
          '</Relationships>',
          '<Relationship Id="rIdInner" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="embeddings/inner.docx"/></Relationships>',
        ),
      },
      { name: 'word/embeddings/inner.docx', data: inner, deflate: false },
      { name: 'word/media/image1.zip', data: inner },
    ]);
    const run = await runSandboxed('C2 DOCX, nested 1 GiB bomb', outer, { filename: 'outer.docx' });
    expect(run.error).toBeUndefined();
    expect(run.value?.text).toBe('Outer text');
    expect(run.stats.outcome).toBe('ok');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);
});

describe('DOCX external files and styles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-bombs-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('never reads an external image whose target is /dev/zero, and ends within the time limit', async () => {
    const docx = buildDocx([{ para: 'Before' }, { externalImage: 'file:///dev/zero' }, { externalImage: '/dev/zero' }, { para: 'After' }]);
    const run = await runSandboxed('C3 DOCX, external /dev/zero', docx, { filename: 'zero.docx' });
    expect(run.value?.text).toBe('Before\n\nAfter');
    expect(run.stats.outcome).toBe('ok');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('runs a mammoth that reads styles without prototype pollution (1.12.2 or later)', () => {
    const version = (createRequire(import.meta.url)('mammoth/package.json') as { version: string }).version;
    const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
    expect(major * 1e6 + minor * 1e3 + patch, `mammoth ${version}`).toBeGreaterThanOrEqual(1_012_002);
  });

  it('leaves Object.prototype as it was after a document whose style ids are __proto__, constructor and prototype', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const r = await extractText(docxWithPrototypeStyles(), { maxTextChars: 100_000, maxPdfPages: 10 });
    expect(r.text).toContain('Styled __proto__');
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).externalFileAccess).toBeUndefined();
  });

  it('reads no external file in a document converted after a style-polluting one in the same child', async () => {
    const secret = join(dir, 'secret.txt');
    await writeFile(secret, 'SECRET-MARKER-7f3a');
    const pool = new sandbox.SandboxPool({ size: 1, limits: WORKER_LIMITS, warm: false, maxJobs: 10 });
    try {
      const pids: (number | undefined)[] = [];
      const first = await pool.extract(docxWithPrototypeStyles(), { filename: 'styles.docx' }, (s) => pids.push(s.pid));
      expect(first.text).toContain('Styled constructor');
      const docx = buildDocx([{ para: 'Second' }, { externalImage: `file://${secret}` }, { externalImage: secret }]);
      const second = await pool.extract(docx, { filename: 'second.docx' }, (s) => pids.push(s.pid));
      expect(pids[1], 'both documents ran in one child').toBe(pids[0]);
      expect(second.text).toBe('Second');
      expect(second.markdown).not.toContain('SECRET');
    } finally {
      await pool.close();
    }
  }, BOMB_TEST_MS);
});

describe('XML entities in DOCX parts', () => {
  let canary: Canary;
  let dir: string;
  let hostsLines: string[];
  beforeAll(async () => {
    canary = await startCanary();
    dir = await mkdtemp(join(tmpdir(), 'kb-bombs-'));
    await writeFile(join(dir, 'marker.txt'), 'ENTITY-FILE-MARKER-91c2');
    const hosts = await readFile('/etc/hosts', 'utf8').catch(() => '');
    hostsLines = hosts.split('\n').map((l) => l.trim()).filter((l) => l.length > 8 && !l.startsWith('#'));
  });
  afterAll(async () => {
    await canary.close();
    await rm(dir, { recursive: true, force: true });
  });

  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const laughs = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const cases = ['an external http entity', 'an external parameter entity', 'an external DTD', 'file entities (/etc/hosts and a local file)', 'a billion laughs'] as const;
  const doctypes = (root: string): Record<(typeof cases)[number], [string, string]> => ({
    'an external http entity': [`<!DOCTYPE ${root} [<!ENTITY net SYSTEM "${canary.url('/entity')}">]>`, '&net;'],
    'an external parameter entity': [`<!DOCTYPE ${root} [<!ENTITY % remote SYSTEM "${canary.url('/dtd')}"> %remote;]>`, 'plain'],
    'an external DTD': [`<!DOCTYPE ${root} SYSTEM "${canary.url('/doctype.dtd')}">`, 'plain'],
    'file entities (/etc/hosts and a local file)': [
      `<!DOCTYPE ${root} [<!ENTITY hosts SYSTEM "file:///etc/hosts"><!ENTITY marker SYSTEM "file://${join(dir, 'marker.txt')}">]>`,
      '&hosts; &marker;',
    ],
    'a billion laughs': [`<!DOCTYPE ${root} [${laughs}]>`, '&lol9;'],
  });

  const documentXml = (dtd: string, ref: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>${dtd}<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Entity ${ref} here</w:t></w:r></w:p></w:body></w:document>`;
  const coreXml = (dtd: string, ref: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>${dtd}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Entity ${ref} here</dc:title></cp:coreProperties>`;

  function expectNothingResolved(extraction: Extraction | undefined): void {
    const out = `${extraction?.markdown ?? ''}\n${extraction?.title ?? ''}`;
    expect(out.length).toBeLessThan(10_000);
    expect(out).not.toContain('ENTITY-FILE-MARKER');
    expect(out).not.toContain('lollollol');
    for (const line of hostsLines) expect(out).not.toContain(line);
    expect(canary.connections()).toBe(0);
  }

  for (const name of cases) {
    it(`fetches nothing, reads no file and expands nothing for ${name} in word/document.xml (mammoth's xmldom)`, async () => {
      const [dtd, ref] = doctypes('w:document')[name];
      const run = await runSandboxed(`C4 document.xml, ${name}`, docxWith([{ name: 'word/document.xml', data: documentXml(dtd, ref) }]), { filename: 'entities.docx' });
      // xmldom resolves no entity it was not given: the part is either refused or read without them.
      if (run.error) expect(run.error.code).toBe('corrupt');
      else expect(run.stats.outcome).toBe('ok');
      expectNothingResolved(run.value);
      await expectParentCarriesOn(run);
    }, BOMB_TEST_MS);
  }

  it('fetches nothing, reads no file and expands nothing for any of these in docProps/core.xml (the title reader)', async () => {
    for (const name of cases) {
      const [dtd, ref] = doctypes('cp:coreProperties')[name];
      const r = await extractText(docxWith([{ name: 'docProps/core.xml', data: coreXml(dtd, ref) }]), { maxTextChars: 100_000, maxPdfPages: 1 });
      expect(r.text, name).toBe('Ordinary text');
      expectNothingResolved(r);
    }
  });
});

describe('PDF decompression bombs', () => {
  let zeros: Buffer;
  beforeAll(async () => {
    zeros = (await deflateRun(GiB, 0, 'zlib')).compressed;
  }, 120_000);

  const chains = [
    ['/FlateDecode', 'one FlateDecode'],
    ['[/FlateDecode /FlateDecode]', 'FlateDecode twice'],
  ] as const;
  for (const [filter, label] of chains) {
    it(`stops a PDF whose page content inflates to 1 GiB of zeros through ${label}, as too_complex or timeout, not retried`, async () => {
      const content = filter.startsWith('[') ? deflateSync(zeros, { level: 9 }) : zeros;
      const pdf = pdfWithContent(content, filter);
      expect(pdf.length).toBeLessThan(2 * MiB);
      // A smaller memory limit than the worker's reaches the same end sooner.
      const run = await runSandboxed(`C5 PDF, 1 GiB of zeros, ${label}`, pdf, { filename: 'bomb.pdf' }, { ...WORKER_LIMITS, memoryMb: 512 });
      expect(['too_complex', 'timeout']).toContain(run.error?.code);
      expect(run.error?.retryable).toBe(false);
      expect(['memory', 'timeout', 'failed']).toContain(run.stats.outcome);
      await expectParentCarriesOn(run);
    }, BOMB_TEST_MS);
  }
});

describe('PDF scale', () => {
  it('reads only maxPdfPages of a 10,000-page PDF and marks it truncated', async () => {
    // Words that differ from page to page, so no line looks like a running header.
    const words = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'heath', 'inlet', 'juniper', 'kelp', 'larch', 'maple', 'nettle', 'oak', 'pine', 'quartz', 'rowan', 'sedge', 'thyme'];
    const pdf = buildPdf({ pages: Array.from({ length: 10_000 }, (_, i) => `Entry ${i + 1} is about ${words[i % 20]} and ${words[Math.floor(i / 20) % 20]}.`) });
    const run = await runSandboxed('C7 PDF, 10,000 pages (200 read)', pdf, { filename: 'long.pdf' }, { ...WORKER_LIMITS, maxPdfPages: 200 });
    expect(run.value).toMatchObject({ pageCount: 10_000, truncated: true });
    expect(run.value?.text).toContain('Entry 200 is about thyme and juniper.');
    expect(run.value?.text).not.toContain('Entry 201 ');
    expect(run.value?.warnings?.map((w) => w.code)).toContain('truncated');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('reads the text of a PDF with a 60000 x 60000 image page without decoding the image', async () => {
    const pdf = pdfWithHugeImage(60_000, 60_000);
    const run = await runSandboxed('C7 PDF, 60000 x 60000 image', pdf, { filename: 'picture.pdf' });
    expect(run.value).toMatchObject({ pageCount: 2, text: 'A page of ordinary text before the picture. It has enough letters not to look scanned.' });
    expect(run.stats.outcome).toBe('ok');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('stops reading a PDF whose text passes maxTextChars and marks it truncated', async () => {
    // About 45 million characters from 70 kB.
    const pages = 2000;
    const pdf = pdfOfDenseText(pages);
    const maxTextChars = 200_000;
    const run = await runSandboxed('C7 PDF, 45 M characters (200,000 kept)', pdf, { filename: 'wordy.pdf' }, { ...WORKER_LIMITS, maxTextChars });
    expect(run.error).toBeUndefined();
    expect(run.value).toMatchObject({ pageCount: pages, truncated: true });
    expect(run.value!.text.length).toBeLessThanOrEqual(maxTextChars);
    expect(run.value!.markdown.length).toBeLessThanOrEqual(maxTextChars);
    expect(run.value?.warnings?.map((w) => w.code)).toContain('truncated');
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);
});

describe('PDF active content and self-fetching', () => {
  let canary: Canary;
  beforeAll(async () => {
    canary = await startCanary();
  });
  afterAll(() => canary.close());

  it('gives pdf.js the bytes only, never a URL, with eval off and an image size limit', async () => {
    pdfjs.calls.length = 0;
    await extractText(buildPdf({ pages: ['Options check'] }), { maxTextChars: 1000, maxPdfPages: 1 });
    expect(pdfjs.calls).toHaveLength(1);
    const params = pdfjs.calls[0]!;
    expect(params.data).toBeInstanceOf(Uint8Array);
    expect(params.url).toBeUndefined();
    expect(params.isEvalSupported).toBe(false);
    expect(params.maxImageSize).toBeGreaterThan(0);
    expect(Number.isFinite(params.maxImageSize)).toBe(true);
    for (const key of ['cMapUrl', 'standardFontDataUrl']) expect(String(params[key])).not.toMatch(/^[a-z]+:\/\//i);
  });

  it('follows no link, action, remote font or external stream of a PDF', async () => {
    const pdf = pdfWithRemoteReferences((path) => canary.url(path));
    const run = await runSandboxed('C8 PDF, links, actions, remote font', pdf, { filename: 'links.pdf' });
    expect(run.error).toBeUndefined();
    expect(run.value?.text).toContain('Links and remote things are never followed.');
    expect(canary.connections()).toBe(0);
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);
});

describe('HTML and Markdown parser DoS', () => {
  let canary: Canary;
  beforeAll(async () => {
    canary = await startCanary();
  });
  afterAll(() => canary.close());

  // 20 MB with a million elements also ends within the limits (about 30 s and 960 MB here), too close to them for a test.
  it('ends 5 MB of HTML with 250,000 elements within the limits, and the parent carries on', async () => {
    const html = `<!doctype html><html><head><title>Big</title></head><body>${'<p class=r>words</p>'.repeat(250_000)}</body></html>`;
    const bytes = utf8(html);
    expect(bytes.length).toBeGreaterThan(5_000_000);
    expect(bytes.length).toBeLessThanOrEqual(config.MAX_FILE_BYTES);
    const run = await runSandboxed('C9 HTML, 5 MB, 250,000 elements', bytes, { filename: 'big.html' });
    // Read whole, in seconds: a lookup quadratic in the body's children once ran it into the time limit.
    expect(run.error).toBeUndefined();
    expect(run.value?.text.match(/words/g)).toHaveLength(250_000);
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  it('fetches nothing an HTML page references: refresh, base, images, styles, scripts, frames, objects', async () => {
    const u = (path: string) => canary.url(path);
    const html = `<!doctype html><html><head><meta http-equiv="refresh" content="0;url=${u('/refresh')}"><base href="${u('/')}">
      <link rel="stylesheet" href="${u('/style.css')}"><link rel="preload" as="image" href="${u('/preload.png')}"><link rel="import" href="${u('/import.html')}">
      <style>@import url("${u('/import.css')}"); body { background: url(${u('/bg.png')}) }</style><script src="${u('/app.js')}"></script></head>
      <body style="background-image: url(${u('/inline.png')})"><img src="${u('/img.png')}" srcset="${u('/img-2x.png')} 2x"><img src="relative.png">
      <picture><source srcset="${u('/source.webp')}"></picture><iframe src="${u('/frame')}"></iframe><object data="${u('/object')}"></object>
      <embed src="${u('/embed')}"><video poster="${u('/poster.png')}" src="${u('/video.mp4')}"></video><svg><image href="${u('/svg.png')}"/></svg>
      <a href="${u('/link')}" ping="${u('/ping')}">a link</a><form action="${u('/form')}"><input type="image" src="${u('/input.png')}"></form>
      <p>Body text</p></body></html>`;
    const run = await runSandboxed('C9 HTML, references to a canary', utf8(html), { filename: 'refs.html' });
    expect(run.value?.text).toContain('Body text');
    expect(canary.connections()).toBe(0);
    await expectParentCarriesOn(run);
  }, BOMB_TEST_MS);

  const markdown: [string, string, (run: SandboxedRun) => void][] = [
    ["'['.repeat(5e4)", '['.repeat(50_000), (run) => expect(run.value?.text).toBe('['.repeat(50_000))],
    // A line of asterisks is a thematic break: no words at all.
    ["'*'.repeat(1e5)", '*'.repeat(100_000), (run) => expect(run.error?.code).toBe('no_text')],
    ["'>'.repeat(1e5)", '>'.repeat(100_000), (run) => expect(run.error?.code).toBe('too_complex')],
  ];
  for (const [label, source, check] of markdown) {
    it(`ends the Markdown ${label} within the limits with text or a refusal`, async () => {
      const run = await runSandboxed(`C9 Markdown ${label}`, utf8(source), { filename: 'hostile.md' });
      expect(run.stats.outcome).not.toBe('timeout');
      check(run);
      await expectParentCarriesOn(run);
    }, BOMB_TEST_MS);
  }
});
