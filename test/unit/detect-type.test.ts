import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { detectType, SNIFF_BYTES } from '../../shared/formats/detect-type.js';
import { sniffTextEncoding } from '../../shared/formats/text-encoding.js';
import { binaryNoise, buildCfb, pngBytes } from '../fixtures/binary.js';
import { buildDocx, plainZip, xlsxLike } from '../fixtures/docx.js';
import { buildPdf } from '../fixtures/pdf.js';

const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const formatOf = async (bytes: Uint8Array, filename?: string, declaredType?: string) => {
  const d = await detectType(bytes, { filename, declaredType }, true);
  return d.ok ? `${d.format}${d.encrypted ? '+encrypted' : ''}` : 'unsupported';
};

describe('detectType: binary formats by content', () => {
  it('returns pdf for a PDF named a.docx', async () => {
    const d = await detectType(buildPdf({ pages: ['hi'] }), { filename: 'a.docx' }, true);
    expect(d).toEqual({ ok: true, format: 'pdf', mimeType: 'application/pdf' });
  });

  it('returns docx with the Word MIME type for a DOCX named upload.bin', async () => {
    const d = await detectType(buildDocx([{ para: 'hi' }]), { filename: 'upload.bin' }, true);
    expect(d).toMatchObject({ ok: true, format: 'docx', mimeType: expect.stringContaining('wordprocessingml') });
  });

  it('returns unsupported for a PNG named a.pdf', async () => {
    expect(await formatOf(pngBytes(), 'a.pdf', 'application/pdf')).toBe('unsupported');
  });

  it('returns unsupported for an empty file', async () => {
    const d = await detectType(new Uint8Array(0), { filename: 'empty.pdf' }, true);
    expect(d).toEqual({ ok: false, message: expect.stringMatching(/empty/i) });
  });

  it('returns unsupported for a plain zip and for a spreadsheet named .docx', async () => {
    expect(await formatOf(plainZip(), 'a.docx')).toBe('unsupported');
    expect(await formatOf(xlsxLike(), 'a.docx')).toBe('unsupported');
  });

  it('returns an encrypted docx for a CFB container holding an EncryptedPackage stream', async () => {
    expect(await formatOf(buildCfb(['EncryptedPackage', 'EncryptionInfo']), 'secret.docx')).toBe('docx+encrypted');
  });

  it('returns unsupported for a CFB container without EncryptedPackage (a Word 97 .doc)', async () => {
    expect(await formatOf(buildCfb(['WordDocument', '1Table']), 'old.docx')).toBe('unsupported');
  });

  it('accepts a CFB prefix whose directory lies past it, and decides on the whole file', async () => {
    const doc = buildCfb(['WordDocument', '1Table']);
    new DataView(doc.buffer).setUint32(0x30, 5000, true);
    expect(await detectType(doc, { filename: 'big.docx' }, false)).toMatchObject({ ok: true, format: 'docx' });
    expect(await detectType(doc, { filename: 'big.docx' }, true)).toMatchObject({ ok: false });
  });

  it('returns unsupported for binary bytes named .txt, with or without NUL bytes', async () => {
    expect(await formatOf(binaryNoise(), 'notes.txt', 'text/plain')).toBe('unsupported');
    const controls = new Uint8Array(2000).map((_, i) => (i % 3 === 0 ? 0x01 + (i % 7) : 0x41));
    expect(await formatOf(controls, 'notes.txt')).toBe('unsupported');
  });
});

describe('detectType: text formats', () => {
  it('returns txt for UTF-16LE text with a BOM, which file-type takes for MPEG audio', async () => {
    const bytes = new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Plain words here.\r\n'.repeat(20), 'utf16le')]));
    expect(await formatOf(bytes, 'a.txt')).toBe('txt');
  });

  it('returns html for UTF-16LE markup with a BOM', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><head><title>T</title></head><body>x</body></html>', 'utf16le')]);
    expect(await formatOf(new Uint8Array(bytes), 'page.txt')).toBe('html');
  });

  it('returns html for markup whatever the name says', async () => {
    expect(await formatOf(text('<!DOCTYPE html><html><body><p>Hi</p></body></html>'), 'report.pdf')).toBe('html');
    expect(await formatOf(text('<!-- licence -->\n<html><body>x</body></html>'), 'notes.md')).toBe('html');
  });

  it('returns markdown for .md, .markdown and text/markdown, and txt otherwise', async () => {
    const md = text('# Title\n\nSome *text*.\n');
    expect(await formatOf(md, 'README.md')).toBe('markdown');
    expect(await formatOf(md, 'notes.markdown')).toBe('markdown');
    expect(await formatOf(md, 'upload', 'text/markdown; charset=utf-8')).toBe('markdown');
    expect(await formatOf(md, 'notes.txt')).toBe('txt');
    expect(await formatOf(md)).toBe('txt');
  });

  it('keeps a README.md that opens with an HTML paragraph as markdown, but not a .txt', async () => {
    const readme = text('<p align="center"><img src="logo.png"></p>\n\n# Project\n\nWords.\n');
    expect(await formatOf(readme, 'README.md')).toBe('markdown');
    expect(await formatOf(readme, 'README.txt')).toBe('html');
  });

  it('accepts Latin-1 and cp866 text through the single-byte fallback', async () => {
    const latin1 = iconv.encode('Le cœur a ses raisons que la raison ne connaît point. Ça déjà été dit.\n'.repeat(5), 'latin1');
    expect(await formatOf(new Uint8Array(latin1), 'fr.txt')).toBe('txt');
    const cp866 = iconv.encode('Однажды, в студёную зимнюю пору, я из лесу вышел; был сильный мороз.\n'.repeat(3), 'cp866');
    expect(await formatOf(new Uint8Array(cp866), 'ru.txt')).toBe('txt');
  });

  it('accepts a prefix that ends inside a UTF-8 character only when told it is a prefix', async () => {
    const full = Buffer.from('Déjà vu, naïve café — ünïcödé. '.repeat(50) + '日本', 'utf8');
    const cut = new Uint8Array(full.subarray(0, full.length - 1));
    expect(sniffTextEncoding(cut, false)?.source).toBe('utf-8');
    expect(sniffTextEncoding(cut, true)?.source).not.toBe('utf-8');
    expect(await detectType(cut, { filename: 'a.txt' }, false)).toMatchObject({ ok: true, format: 'txt' });
  });

  it('decides on the first SNIFF_BYTES of a long upload as the API passes them', async () => {
    const long = text(`<!doctype html><html><body>${'<p>paragraph</p>'.repeat(100_000)}</body></html>`);
    expect(long.length).toBeGreaterThan(SNIFF_BYTES);
    expect(await detectType(long.subarray(0, SNIFF_BYTES), { filename: 'big.html' }, false)).toMatchObject({ ok: true, format: 'html' });
  });
});
