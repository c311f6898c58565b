/**
 * Hostile workbooks, built here in memory (THREATS.md C2-C4 for XLSX): ZIP
 * bombs with declared and lying sizes and too many parts, XML entity tricks
 * in sheet XML and shared strings, and shared-string amplification. The ones
 * that could cost memory run in the sandbox under the worker's limits.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractXlsx } from '../../worker/extractors/xlsx/xlsx.js';
import { buildXlsx, xlsxParts } from '../fixtures/xlsx.js';
import { buildZip, deflateRun, type ZipInput } from '../fixtures/zip.js';
import { startCanary, type Canary } from '../helpers/canary-server.js';
import { BOMB_TEST_MS, runSandboxed, WORKER_LIMITS } from '../helpers/sandboxed-run.js';

const MiB = 1024 * 1024;
const LIMITS = { ...WORKER_LIMITS, acceptedFormats: ['xlsx'] as const };
const OPTS = { maxTextChars: 5_000_000 };
const sheet = (rows: unknown[][]) => [{ name: 'S', rows: rows as never }];

describe('XLSX zip bombs', () => {
  it('refuses a sheet declaring 1 GiB unpacked before inflating anything', async () => {
    const bytes = buildXlsx(sheet([['a']]), [{ name: 'xl/worksheets/sheet1.xml', data: '<worksheet/>', declaredSize: 1024 * MiB }]);
    await expect(extractXlsx(bytes, OPTS)).rejects.toMatchObject({ code: 'too_complex' });
  });

  it('refuses a workbook of 6000 parts', async () => {
    const extra = Array.from({ length: 6000 }, (_, i): ZipInput => ({ name: `xl/media/x${i}.xml`, data: '<a/>', deflate: false }));
    await expect(extractXlsx(buildZip([...xlsxParts(sheet([['a']])), ...extra]), OPTS)).rejects.toMatchObject({ code: 'too_complex' });
  });

  it('refuses a shared-strings part that inflates past its declared size', async () => {
    const spaces = await deflateRun(64 * MiB, 0x20);
    const lying = { name: 'xl/sharedStrings.xml', compressed: spaces.compressed, crc: spaces.crc, uncompressedSize: 4096 };
    const started = Date.now();
    await expect(extractXlsx(buildXlsx(sheet([['a']]), [lying]), OPTS)).rejects.toMatchObject({ code: 'too_complex' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('XML entities in XLSX parts', () => {
  let canary: Canary;
  let dir: string;
  beforeAll(async () => {
    canary = await startCanary();
    dir = await mkdtemp(join(tmpdir(), 'kb-xlsx-bombs-'));
    await writeFile(join(dir, 'marker.txt'), 'ENTITY-FILE-MARKER-5d1e');
  });
  afterAll(async () => {
    await canary.close();
    await rm(dir, { recursive: true, force: true });
  });

  const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const laughs = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const dtds = (root: string): Record<string, [string, string]> => ({
    'an external http entity': [`<!DOCTYPE ${root} [<!ENTITY net SYSTEM "${canary.url('/entity')}">]>`, '&net;'],
    'an external DTD': [`<!DOCTYPE ${root} SYSTEM "${canary.url('/doctype.dtd')}">`, 'plain'],
    'file entities': [`<!DOCTYPE ${root} [<!ENTITY hosts SYSTEM "file:///etc/hosts"><!ENTITY m SYSTEM "file://${join(dir, 'marker.txt')}">]>`, '&hosts; &m;'],
    'a billion laughs': [`<!DOCTYPE ${root} [${laughs}]>`, '&lol9;'],
  });

  for (const name of ['an external http entity', 'an external DTD', 'file entities', 'a billion laughs']) {
    it(`refuses ${name} in sharedStrings.xml and in the sheet XML as corrupt, fetching and expanding nothing`, async () => {
      const [dtdS, refS] = dtds('sst')[name]!;
      const strings = { name: 'xl/sharedStrings.xml', data: `<?xml version="1.0"?>${dtdS}<sst ${NS}><si><t>Entity ${refS}</t></si></sst>` };
      const [dtdW, refW] = dtds('worksheet')[name]!;
      const worksheet = { name: 'xl/worksheets/sheet1.xml', data: `<?xml version="1.0"?>${dtdW}<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Entity ${refW}</t></is></c></row></sheetData></worksheet>` };
      for (const part of [strings, worksheet]) {
        await expect(extractXlsx(buildXlsx(sheet([['a']]), [part]), OPTS)).rejects.toMatchObject({ code: 'corrupt' });
      }
      expect(canary.connections()).toBe(0);
    });
  }

  it('refuses a billion laughs in the sandbox too, within the limits', async () => {
    const [dtd, ref] = dtds('sst')['a billion laughs']!;
    const bytes = buildXlsx(sheet([['a']]), [{ name: 'xl/sharedStrings.xml', data: `<?xml version="1.0"?>${dtd}<sst ${NS}><si><t>${ref}</t></si></sst>` }]);
    const run = await runSandboxed('C4 xlsx sharedStrings, billion laughs', bytes, { filename: 'laughs.xlsx' }, LIMITS);
    expect(run.error?.code).toBe('corrupt');
  }, BOMB_TEST_MS);
});

describe('shared-string amplification', () => {
  it('stops a long string repeated in every cell at the text limit, with partial_text, in the sandbox', async () => {
    const long = 'amplified '.repeat(3000);
    // One 30 KB shared string in 40,000 cells would be 1.2 GB of table.
    const strings = { name: 'xl/sharedStrings.xml', data: `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>${long}</t></si></sst>` };
    const rows = Array.from({ length: 4000 }, (_, r) => `<row r="${r + 1}">${Array.from({ length: 10 }, (_, c) => `<c r="${String.fromCharCode(65 + c)}${r + 1}" t="s"><v>0</v></c>`).join('')}</row>`);
    const worksheet = { name: 'xl/worksheets/sheet1.xml', data: `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join('')}</sheetData></worksheet>` };
    const run = await runSandboxed('xlsx shared-string amplification', buildXlsx(sheet([['a']]), [strings, worksheet]), { filename: 'amp.xlsx' }, LIMITS);
    expect(run.error).toBeUndefined();
    expect(run.value?.markdown.length).toBeLessThanOrEqual(WORKER_LIMITS.maxTextChars);
    expect(run.value?.truncated).toBe(true);
    expect(run.value?.warnings?.map((w) => w.code)).toContain('partial_text');
  }, BOMB_TEST_MS);
});
