import { readFileSync } from 'node:fs';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { applyPatches } from '../../worker/extractors/pdf/worker-source.js';
import { WORKER_PATCHES } from '../../worker/extractors/pdf/worker-patches.js';
import { readPages } from '../../worker/extractors/pdf/read-pages.js';
import { writePdf } from '../fixtures/pdf.js';
import { type1Font } from '../fixtures/type1-font.js';

const installed = () => readFileSync(createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'), 'utf8');

describe('patches of pdf.js worker side', () => {
  it('all match the installed pdf.js exactly once, and the running pdf.js carries them', async () => {
    const { source, missing } = applyPatches(installed(), WORKER_PATCHES);
    expect(missing).toEqual([]);
    for (const patch of WORKER_PATCHES) expect(source).toContain(patch.replace);
    const { PDFJS_WORKER } = await import('../../worker/extractors/pdf/pdfjs.js');
    expect(PDFJS_WORKER).toEqual({ patched: true, missing: [] });
  });

  it('applies none when one does not match, matches twice or overlaps another, and names it', () => {
    const twice = { name: 'twice', find: 'a', replace: 'b' };
    const absent = { name: 'absent', find: 'zzz', replace: 'y' };
    const fine = { name: 'fine', find: 'c', replace: 'd' };
    expect(applyPatches('a a c', [fine, twice])).toEqual({ source: 'a a c', missing: ['twice'] });
    expect(applyPatches('a c', [fine, absent])).toEqual({ source: 'a c', missing: ['absent'] });
    expect(applyPatches('a c', [fine, twice])).toEqual({ source: 'b d', missing: [] });
    expect(applyPatches('a c', [fine, twice], 'x;')).toEqual({ source: 'x;b d', missing: [] });
    expect(applyPatches('abc', [{ name: 'ab', find: 'ab', replace: '' }, { name: 'bc', find: 'bc', replace: '' }]).missing).toEqual(['ab (overlaps bc)']);
  });

  it('reads text under nested saved states as the PDF says: font, size, scale, rise and position restored at each Q, inherited inside', async () => {
    const { openPdf } = await import('../../worker/extractors/pdf/open-pdf.js');
    const content = [
      'BT /F1 12 Tf 72 700 Td (Outer one) Tj ET',
      'q 1 0 0 1 0 -40 cm BT /F1 18 Tf 5 Ts 72 700 Td (Inner big) Tj ET',
      'q 2 Tz BT 72 660 Td (Squeezed) Tj ET Q',
      'BT 72 650 Td (Inner again) Tj ET',
      'Q',
      'BT 72 600 Td (Outer again) Tj ET',
      'q 2 0 0 3 10 20 cm BT /F1 10 Tf 150 Tz 2 Ts 0 1 -1 0 100 50 Tm (Turned) Tj ET Q',
    ].join('\n');
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
      { dict: '<< >>', data: new Uint8Array(Buffer.from(content, 'latin1')) },
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    ]);
    const task = openPdf(bytes);
    try {
      const page = await (await task.promise).getPage(1);
      const items = (await page.getTextContent()).items.filter((i) => 'str' in i && i.str.trim()) as Array<{ str: string; transform: number[] }>;
      // [horizontal scale, vertical scale, x, y] of each run.
      const placed = Object.fromEntries(items.map((i) => [i.str, [i.transform[0], i.transform[3], i.transform[4], i.transform[5]]]));
      // Text matrix, text space (size, scale, rise) and the current transformation matrix, multiplied out by hand.
      expect(items.find((i) => i.str === 'Turned')?.transform).toEqual([0, 45, -20, 0, 206, 170]);
      delete placed.Turned;
      expect(placed).toEqual({
        'Outer one': [12, 12, 72, 700],
        'Inner big': [18, 18, 72, 665],
        'Squeezed': [0.36, 18, 72, 625],
        'Inner again': [18, 18, 72, 615],
        'Outer again': [12, 12, 72, 600],
      });
    } finally {
      await task.destroy();
    }
  });
  it("names each font in the page's text styles, so a line set in a bold font is marked bold and one in a regular font is not", async () => {
    const { openPdf } = await import('../../worker/extractors/pdf/open-pdf.js');
    const content = [
      'BT /F1 12 Tf 72 700 Td (Set in Helvetica Bold) Tj ET',
      'BT /F2 12 Tf 72 680 Td (Set in plain Helvetica) Tj ET',
      'BT /F3 12 Tf 72 660 Td (Set in a subset of CMBX12) Tj ET',
    ].join('\n');
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R /F2 6 0 R /F3 7 0 R >> >> /Contents 4 0 R >>',
      { dict: '<< >>', data: new Uint8Array(Buffer.from(content, 'latin1')) },
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
      // A TeX bold font by name only: pdf.js sets no bold flag on a font it does not map to a standard one.
      '<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMBX12 /Encoding /WinAnsiEncoding >>',
    ]);
    const task = openPdf(bytes);
    try {
      const doc = await task.promise;
      const page = await doc.getPage(1);
      const content = await page.getTextContent();
      const named = Object.fromEntries(content.items.filter((i) => 'str' in i && i.str).map((i) => {
        const item = i as { str: string; fontName: string };
        return [item.str, (content.styles[item.fontName] as { name?: string }).name];
      }));
      expect(named).toEqual({ 'Set in Helvetica Bold': 'Helvetica-Bold', 'Set in plain Helvetica': 'Helvetica', 'Set in a subset of CMBX12': 'ABCDEF+CMBX12' });
      const { lines } = await readPages(doc, { from: 1, to: 1 }, false, Number.POSITIVE_INFINITY);
      expect(lines[0]!.map((l) => [l.text, Boolean(l.bold)])).toEqual([
        ['Set in Helvetica Bold', true],
        ['Set in plain Helvetica', false],
        ['Set in a subset of CMBX12', true],
      ]);
    } finally {
      await task.destroy();
    }
  });

  it("reads the codes a font's partial ToUnicode map leaves out by the font's encodings, and the mapped ones by the map", async () => {
    const { extractText } = await import('../../worker/extractors/index.js');
    // A TeX font's layout: ligatures at 11–13, the em dash at 124, in the embedded program's own encoding only.
    const font = type1Font('ABCDEF+TestRoman', { 11: 'ff', 12: 'fi', 13: 'fl', 32: 'space', 97: 'a', 98: 'b', 124: 'emdash' });
    // Both fonts' maps name only "ff" and, against the glyph's name, 98.
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '/CMapName /TestRoman-UCS def /CMapType 2 def',
      '1 begincodespacerange <00> <FF> endcodespacerange',
      '2 beginbfchar <0B> <00660066> <62> <03B2> endbfchar',
      'endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n');
    const content = [
      'BT /F1 12 Tf 72 700 Td (\\014a \\015a \\174 \\013\\142 \\014c) Tj ET',
      'BT /F2 12 Tf 72 650 Td (\\014x \\015y \\174 \\142) Tj ET',
    ].join('\n');
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R /F2 9 0 R >> >> /Contents 4 0 R >>',
      { dict: '<< >>', data: new Uint8Array(Buffer.from(content, 'latin1')) },
      // Its dictionary's Differences, naming 99 only, win there over the program's encoding (which has no glyph at 99).
      `<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+TestRoman /FirstChar 11 /LastChar 124 /Widths [${'500 '.repeat(114)}] /Encoding << /Differences [99 /c] >> /FontDescriptor 6 0 R /ToUnicode 8 0 R >>`,
      '<< /Type /FontDescriptor /FontName /ABCDEF+TestRoman /Flags 4 /FontBBox [0 0 500 700] /ItalicAngle 0 /Ascent 700 /Descent 0 /CapHeight 700 /StemV 80 /FontFile 7 0 R >>',
      { dict: `<< /Length1 ${font.lengths[0]} /Length2 ${font.lengths[1]} /Length3 ${font.lengths[2]} >>`, data: font.data },
      { dict: '<< >>', data: new Uint8Array(Buffer.from(cmap, 'latin1')) },
      // A font not embedded, whose encoding is its dictionary's Differences.
      '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [12 /fi /fl 124 /emdash] >> /ToUnicode 8 0 R >>',
    ]);
    expect((await extractText(bytes, { maxTextChars: 10_000, maxPdfPages: 1 })).text).toBe('fia fla \u2014 ff\u03b2 fic\n\nfix fly \u2014 \u03b2');
  });

  it('reads Flate content streams inflated by zlib, and those zlib refuses (a stored block pdf.js accepts, a truncated stream) as pdf.js does', async () => {
    const { openPdf } = await import('../../worker/extractors/pdf/open-pdf.js');
    const content = (text: string) => Buffer.from(`BT /F1 12 Tf 72 700 Td (${text}) Tj ET\n${'q Q\n'.repeat(200)}`, 'latin1');
    const header = Buffer.from([0x78, 0x9c]);
    // An empty stored block whose length check is zero too: pdf.js reads past it, zlib calls it invalid.
    const oddBlock = Buffer.concat([header, Buffer.from([0, 0, 0, 0, 0]), deflateRawSync(content('After an odd block'))]);
    const whole = deflateSync(content('Inflated whole'));
    // Cut in its last block: pdf.js reads the blocks before the cut and stops.
    const long = deflateSync(Buffer.concat([content('Read before the cut'), Buffer.from(`${'0 0 m\n'.repeat(5000)}`)]), { level: 0 });
    const cut = long.subarray(0, long.length - 100);
    const streams = [whole, oddBlock, cut];
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${streams.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${streams.length} >>`,
      ...streams.flatMap((data, i) => [
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${3 + streams.length * 2} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`,
        { dict: '<< /Filter /FlateDecode >>', data: new Uint8Array(data) },
      ]),
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    ]);
    const task = openPdf(bytes);
    try {
      const doc = await task.promise;
      const texts: string[] = [];
      for (let n = 1; n <= streams.length; n++) {
        const items = (await (await doc.getPage(n)).getTextContent()).items as Array<{ str?: string }>;
        texts.push(items.map((i) => i.str ?? '').join('').trim());
      }
      expect(texts).toEqual(['Inflated whole', 'After an odd block', 'Read before the cut']);
    } finally {
      await task.destroy();
    }
  });
});
