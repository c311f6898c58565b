/**
 * Hostile PPTX, ODS, ODT and EPUB files, built here in memory (THREATS.md
 * C2-C4, as for DOCX and XLSX): parts declaring huge sizes, too many
 * entries, a part that inflates past the size its headers claim, and XML
 * entity tricks (external http and file entities, an external DTD, a
 * billion laughs) in each format's main XML part. The billion laughs also
 * runs in the sandbox under the worker's limits.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceFormat } from '../../shared/formats/formats.js';
import { extractText } from '../../worker/extractors/index.js';
import { buildEpub } from '../fixtures/epub.js';
import { buildOdt } from '../fixtures/odt.js';
import { buildPptx } from '../fixtures/pptx.js';
import { buildZip, deflateRun, type RawZipInput, type ZipInput } from '../fixtures/zip.js';
import { startCanary, type Canary } from '../helpers/canary-server.js';
import { BOMB_TEST_MS, runSandboxed, WORKER_LIMITS } from '../helpers/sandboxed-run.js';

const MiB = 1024 * 1024;
type Part = ZipInput | RawZipInput;

const ODS_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"';
function buildOds(extra: Part[]): Uint8Array {
  return buildZip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', deflate: false },
    { name: 'META-INF/manifest.xml', data: '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>' },
    { name: 'content.xml', data: `<?xml version="1.0"?><office:document-content ${ODS_NS}><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>` },
    ...extra,
  ]);
}

/** Per format: a valid file with parts added (a part named again replaces the first), its main XML part and root element. */
const FORMATS: Record<string, { format: SourceFormat; build: (extra: Part[]) => Uint8Array; part: string; wrap: (dtd: string, ref: string) => string }> = {
  PPTX: {
    format: 'pptx',
    build: (extra) => buildPptx([{ shapes: [{ ph: 'title', paragraphs: ['a'] }] }], extra),
    part: 'ppt/slides/slide1.xml',
    wrap: (dtd, ref) => `<?xml version="1.0"?>${dtd.replace('ROOT', 'p:sld')}<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Entity ${ref}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
  },
  ODS: {
    format: 'ods',
    build: buildOds,
    part: 'content.xml',
    wrap: (dtd, ref) => `<?xml version="1.0"?>${dtd.replace('ROOT', 'office:document-content')}<office:document-content ${ODS_NS}><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><text:p>Entity ${ref}</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`,
  },
  ODT: {
    format: 'odt',
    build: (extra) => buildOdt('<text:p>a</text:p>', { extra: extra as ZipInput[] }),
    part: 'content.xml',
    wrap: (dtd, ref) => `<?xml version="1.0"?>${dtd.replace('ROOT', 'office:document-content')}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>Entity ${ref}</text:p></office:text></office:body></office:document-content>`,
  },
  EPUB: {
    format: 'epub',
    build: (extra) => buildEpub([{ href: 'ch1.xhtml', body: '<p>a</p>' }], { extra: extra as ZipInput[] }),
    part: 'OEBPS/content.opf',
    wrap: (dtd, ref) => `<?xml version="1.0"?>${dtd.replace('ROOT', 'package')}<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Entity ${ref}</dc:title></metadata><manifest><item id="c" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`,
  },
};

const extract = (format: SourceFormat, bytes: Uint8Array) => extractText(bytes, { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: [format] });

describe.each(Object.entries(FORMATS))('%s zip bombs', (_label, f) => {
  it('refuses a part declaring 1 GiB unpacked before inflating anything', async () => {
    await expect(extract(f.format, f.build([{ name: f.part, data: '<x/>', declaredSize: 1024 * MiB }]))).rejects.toMatchObject({ code: 'too_complex' });
  });

  it('refuses a package of 6000 parts', async () => {
    const extra = Array.from({ length: 6000 }, (_, i): ZipInput => ({ name: `extra/x${i}.xml`, data: '<a/>', deflate: false }));
    await expect(extract(f.format, f.build(extra))).rejects.toMatchObject({ code: 'too_complex' });
  });

  it('refuses a main part that inflates past its declared size, quickly', async () => {
    const spaces = await deflateRun(64 * MiB, 0x20);
    const started = Date.now();
    await expect(extract(f.format, f.build([{ name: f.part, compressed: spaces.compressed, crc: spaces.crc, uncompressedSize: 4096 }]))).rejects.toMatchObject({ code: 'too_complex' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('XML entities in PPTX, ODS, ODT and EPUB parts', () => {
  let canary: Canary;
  let dir: string;
  beforeAll(async () => {
    canary = await startCanary();
    dir = await mkdtemp(join(tmpdir(), 'kb-office-bombs-'));
    await writeFile(join(dir, 'marker.txt'), 'ENTITY-FILE-MARKER-8c2f');
  });
  afterAll(async () => {
    await canary.close();
    await rm(dir, { recursive: true, force: true });
  });

  const laughs = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const cases = (): Record<string, [string, string]> => ({
    'an external http entity': [`<!DOCTYPE ROOT [<!ENTITY net SYSTEM "${canary.url('/entity')}">]>`, '&net;'],
    'an external DTD': [`<!DOCTYPE ROOT SYSTEM "${canary.url('/doctype.dtd')}">`, 'plain'],
    'file entities': [`<!DOCTYPE ROOT [<!ENTITY hosts SYSTEM "file:///etc/hosts"><!ENTITY m SYSTEM "file://${join(dir, 'marker.txt')}">]>`, '&hosts; &m;'],
    'a billion laughs': [`<!DOCTYPE ROOT [${laughs}]>`, '&lol9;'],
  });

  for (const name of ['an external http entity', 'an external DTD', 'file entities', 'a billion laughs']) {
    it.each(Object.keys(FORMATS))(`refuses ${name} in the main part of a %s as corrupt, fetching and expanding nothing`, async (label) => {
      const f = FORMATS[label]!;
      const [dtd, ref] = cases()[name]!;
      await expect(extract(f.format, f.build([{ name: f.part, data: f.wrap(dtd, ref) }]))).rejects.toMatchObject({ code: 'corrupt' });
      expect(canary.connections()).toBe(0);
    });
  }

  it.each(Object.keys(FORMATS))('refuses a billion laughs in a %s in the sandbox too, within the limits', async (label) => {
    const f = FORMATS[label]!;
    const [dtd, ref] = cases()['a billion laughs']!;
    const run = await runSandboxed(`C4 ${label} billion laughs`, f.build([{ name: f.part, data: f.wrap(dtd, ref) }]), { filename: `laughs.${f.format}` }, { ...WORKER_LIMITS, acceptedFormats: [f.format] });
    expect(run.error?.code).toBe('corrupt');
  }, BOMB_TEST_MS);
});
