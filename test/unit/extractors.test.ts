import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import iconv from 'iconv-lite';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildCfb } from '../fixtures/binary.js';
import { buildDocx, docxDeclaring, docxWithEntries } from '../fixtures/docx.js';
import { brokenPdf, buildPdf } from '../fixtures/pdf.js';
import { buildZip } from '../fixtures/zip.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const failure = (p: Promise<unknown>) => p.then(() => ({ code: 'none', message: '' }), (e: { code: string; message: string }) => e);

describe('PDF', () => {
  it('extracts every page in order with the Info title and page count, without page markers', async () => {
    const pdf = buildPdf({ pages: ['First page line one\nline two', 'Second page', 'Third page'], title: 'Quarterly Notes' });
    const r = await extractText(pdf, opts);
    expect(r).toMatchObject({ format: 'pdf', mimeType: 'application/pdf', title: 'Quarterly Notes', pageCount: 3, truncated: false });
    // Two lines at the body's line pitch are one paragraph.
    expect(r.text).toBe('First page line one line two\n\nSecond page\n\nThird page');
    expect(r.text).not.toMatch(/-- \d+ of \d+ --/);
  });

  it('reads only maxPdfPages pages and marks the result truncated', async () => {
    const r = await extractText(buildPdf({ pages: ['one', 'two', 'three'] }), { ...opts, maxPdfPages: 2 });
    expect(r).toMatchObject({ text: 'one\n\ntwo', pageCount: 3, truncated: true });
  });

  it('opens an owner-password-only PDF (empty user password)', async () => {
    const pdf = buildPdf({ pages: ['Readable by anyone'], title: 'Locked Title', encrypt: { userPassword: '', ownerPassword: 'owner' } });
    expect(await extractText(pdf, opts)).toMatchObject({ text: 'Readable by anyone', title: 'Locked Title' });
  });

  it('fails as encrypted when a user password is needed', async () => {
    const pdf = buildPdf({ pages: ['secret'], encrypt: { userPassword: 'user', ownerPassword: 'owner' } });
    expect((await failure(extractText(pdf, opts))).code).toBe('encrypted');
  });

  it('fails as corrupt for a damaged PDF', async () => {
    expect((await failure(extractText(brokenPdf(), opts))).code).toBe('corrupt');
  });

  it('fails as no_text saying the document looks scanned when no page has a text layer', async () => {
    const e = await failure(extractText(buildPdf({ pages: ['', ''] }), opts));
    expect(e.code).toBe('no_text');
    expect(e.message).toMatch(/scanned/i);
    expect(e.message).toMatch(/OCR/);
  });
});

describe('DOCX', () => {
  it('keeps headings, list items and table cells as separate lines, with dc:title', async () => {
    const docx = buildDocx(
      [{ heading: 'Annual Report' }, { para: 'Intro & summary' }, { list: ['First item', 'Second item'] }, { table: [['Name', 'Score'], ['Ada', '42']] }],
      { title: 'Report <2024>' },
    );
    const r = await extractText(docx, opts);
    expect(r).toMatchObject({ format: 'docx', title: 'Report <2024>', truncated: false });
    expect(r.text).toBe('Annual Report\n\nIntro & summary\n\nFirst item\nSecond item\n\nName\tScore\nAda\t42');
  });

  it('has no title when core.xml has no dc:title', async () => {
    expect((await extractText(buildDocx([{ para: 'x' }]), opts)).title).toBeUndefined();
  });

  it('never reads an external image target (CVE-2025-11849)', async () => {
    const r = await extractText(buildDocx([{ para: 'Before' }, { externalImage: 'file:///etc/passwd' }, { para: 'After' }]), opts);
    expect(r.text).toBe('Before\n\nAfter');
  });

  it('rejects a zip bomb by its declared size before inflating', async () => {
    const e = await failure(extractText(docxDeclaring(2 ** 31), opts));
    expect(e).toMatchObject({ code: 'too_complex', message: expect.stringMatching(/MB/) });
  });

  it('rejects an archive with too many entries', async () => {
    expect((await failure(extractText(docxWithEntries(6000), opts))).code).toBe('too_complex');
  });

  it('fails as encrypted for a password-protected (CFB) Word file', async () => {
    expect((await failure(extractText(buildCfb(['EncryptedPackage', 'EncryptionInfo']), opts))).code).toBe('encrypted');
  });

  it('fails as corrupt when the ZIP directory is cut off or the document part is missing', async () => {
    const whole = buildDocx([{ para: 'text' }]);
    expect((await failure(extractText(whole.subarray(0, whole.length - 30), opts))).code).toBe('corrupt');
    const noBody = buildZip([{ name: '[Content_Types].xml', data: '<Types><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>' }, { name: 'word/document.xml', data: '<broken' }]);
    expect((await failure(extractText(noBody, opts))).code).toBe('corrupt');
  });
});

describe('HTML', () => {
  let server: Server;
  let hits = 0;
  let origin = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('canary');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps the main content and leaves out scripts, hidden elements and page chrome', async () => {
    const html = `<!doctype html><html><head><title> The  Title </title><style>p{}</style><script>var secret=1</script></head><body>
      <header><a href="/">Site logo</a></header><nav>Home About</nav>
      <div class="cookie-banner">We use cookies</div>
      <main><h1>Article heading</h1><p>First paragraph with <b>bold</b> words.</p><p hidden>hidden one</p>
      <p aria-hidden="true">aria hidden</p><p style="display: none">display none</p><noscript>enable js</noscript>
      <ul><li>alpha</li><li>beta</li></ul><table><tr><th>Col A</th><th>Col B</th></tr><tr><td>1</td><td>2</td></tr></table>
      <template><p>template text</p></template><svg><text>svg text</text></svg></main>
      <aside>Related links</aside><footer>Copyright footer</footer><form>Search box</form></body></html>`;
    const r = await extractText(utf8(html), opts);
    expect(r).toMatchObject({ format: 'html', title: 'The Title' });
    expect(r.text).toBe('The Title\n\nArticle heading\n\nFirst paragraph with bold words.\n\nalpha\nbeta\n\nCol A\tCol B\n1\t2');
  });

  it('reads the whole body when there is no main element, without chrome', async () => {
    const r = await extractText(utf8('<html><body><nav>menu</nav><div>One</div><div>Two &amp; three</div><footer>foot</footer></body></html>'), opts);
    expect(r.text).toBe('One\nTwo & three');
  });

  it('decodes a page whose meta charset lies (windows-1256 bytes declared UTF-8) as Arabic', async () => {
    const arabic = 'في قرية من القرى كان هناك رجل حكيم يعرف كل شيء عن الحياة';
    const head = Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body><p>', 'latin1');
    const bytes = Buffer.concat([head, iconv.encode(`${arabic}. `.repeat(3), 'windows-1256'), Buffer.from('</p></body></html>')]);
    const r = await extractText(new Uint8Array(bytes), opts);
    expect(r.text).toContain(arabic);
    expect(r.text).not.toContain('\ufffd');
  });

  it('reads Shift_JIS HTML without a meta charset, served under a Content-Type that lies (application/pdf)', async () => {
    const japanese = '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。';
    const bytes = iconv.encode(`<html><head><title>猫</title></head><body><p>${japanese}</p></body></html>`, 'Shift_JIS');
    const r = await extractText(new Uint8Array(bytes), { ...opts, declaredType: 'application/pdf' });
    expect(r).toMatchObject({ format: 'html', title: '猫' });
    expect(r.text).toContain(japanese);
  });

  it('fails as too_complex for 100000 nested divs instead of crashing or hanging', async () => {
    const deep = `<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`;
    expect((await failure(extractText(utf8(deep), opts))).code).toBe('too_complex');
  });

  it('fetches nothing the page references', async () => {
    const html = `<html><head><meta http-equiv="refresh" content="0;url=${origin}/refresh"><base href="${origin}/">
      <link rel="stylesheet" href="${origin}/style.css"><script src="${origin}/app.js"></script></head>
      <body><img src="${origin}/img.png"><iframe src="${origin}/frame"></iframe><p>Body text</p></body></html>`;
    // Any connection the extractor opened, now or from a callback it left queued, goes through Socket#connect.
    const connect = vi.spyOn(Socket.prototype, 'connect');
    try {
      expect((await extractText(utf8(html), opts)).text).toBe('Body text');
      await new Promise((resolve) => setImmediate(resolve));
      expect(connect).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
    }
    expect(hits).toBe(0);
  });
});

describe('Markdown', () => {
  it('keeps the words and drops the markup', async () => {
    const md = [
      '# Heading **one**', '', 'Some *emphasis*, `inline code` and a [link text](https://example.com/x).', '',
      '| Name | Value |', '|---|---|', '| a | 1 |', '', '- item one', '- item two', '', '```js', 'const x = 1;', '```', '',
      '<div align="center"><b>html block</b></div>', '', '![alt words](img.png) &amp; more', '', '[ref]: https://example.com/ref',
    ].join('\n');
    const r = await extractText(utf8(md), { ...opts, filename: 'README.md' });
    expect(r.format).toBe('markdown');
    expect(r.text).toBe(
      'Heading one\n\nSome emphasis, inline code and a link text.\n\nName\tValue\na\t1\n\nitem one\nitem two\n\nconst x = 1;\n\nhtml block\n\nalt words & more',
    );
  });

  it('fails as too_complex for absurdly deep list nesting instead of running for minutes', async () => {
    const md = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i * 2)}- item`).join('\n');
    expect((await failure(extractText(utf8(md), { ...opts, filename: 'deep.md' }))).code).toBe('too_complex');
  });
});

describe('TXT and common output rules', () => {
  it.each([
    ['Latin-1', 'latin1', 'Voilà une phrase française, très simple à lire. Où est le garçon ?'],
    ['Windows-1252 smart quotes', 'windows-1252', 'These smart quotes are “windows” quotes — and that’s fine.'],
    ['cp866', 'cp866', 'Однажды, в студёную зимнюю пору, я из лесу вышел; был сильный мороз.'],
    ['UTF-16LE with BOM', 'utf-16le', 'Texte en UTF-16 avec accents: éèà.'],
  ])('decodes %s text without replacement characters', async (_name, encoding, sample) => {
    const body = iconv.encode(`${sample}\n`.repeat(4), encoding, { addBOM: encoding === 'utf-16le' });
    const r = await extractText(new Uint8Array(body), { ...opts, filename: 'a.txt' });
    expect(r).toMatchObject({ format: 'txt', mimeType: 'text/plain' });
    expect(r.text.split('\n')[0]).toBe(sample);
  });

  it('normalizes line endings, trailing spaces and runs of blank lines, and trims', async () => {
    const r = await extractText(utf8('\ufeff\r\n  Line one  \r\nLine two\r\n\r\n\r\n\r\nLine three\t\r\n\r\n'), opts);
    expect(r.text).toBe('Line one\nLine two\n\nLine three');
  });

  it('cuts text longer than maxTextChars and marks it truncated', async () => {
    const r = await extractText(utf8('word '.repeat(1000)), { ...opts, maxTextChars: 100 });
    expect(r.text.length).toBeLessThanOrEqual(100);
    expect(r.truncated).toBe(true);
  });

  it('fails as no_text for whitespace only and as unsupported for binary', async () => {
    expect((await failure(extractText(utf8(' \n\t\r\n  '), opts))).code).toBe('no_text');
    expect((await failure(extractText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]), { ...opts, filename: 'a.txt' }))).code).toBe('unsupported_media_type');
  });
});

describe('HTML without html or body elements', () => {
  it('extracts a bare fragment with a title', async () => {
    const r = await extractText(Buffer.from('<title>Gate</title><p>through the gate</p>'), { maxTextChars: 1000, maxPdfPages: 10, declaredType: 'text/html' });
    expect(r).toMatchObject({ format: 'html', title: 'Gate', text: 'Gate\n\nthrough the gate' });
  });
});

describe('per-format limits', () => {
  const base = { maxTextChars: 100_000, maxPdfPages: 10 };
  it('refuses a DOCX whose parts declare more than maxDocxUnpackedBytes', async () => {
    const docx = buildDocx([{ para: 'x'.repeat(50_000) }]);
    await expect(extractText(docx, { ...base, maxDocxUnpackedBytes: 10_000 })).rejects.toMatchObject({ code: 'too_complex' });
    await expect(extractText(docx, { ...base, maxDocxUnpackedBytes: 10_000_000 })).resolves.toMatchObject({ format: 'docx' });
  });

  it('refuses HTML nested deeper than maxHtmlDepth', async () => {
    const html = Buffer.from(`<html><body>${'<div>'.repeat(40)}deep${'</div>'.repeat(40)}</body></html>`);
    await expect(extractText(html, { ...base, maxHtmlDepth: 20 })).rejects.toMatchObject({ code: 'too_complex' });
    await expect(extractText(html, { ...base, maxHtmlDepth: 100 })).resolves.toMatchObject({ text: 'deep' });
  });
});
