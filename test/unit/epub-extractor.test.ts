import { describe, expect, it } from 'vitest';
import { extractEpub } from '../../worker/extractors/epub/epub.js';
import { extractText } from '../../worker/extractors/index.js';
import { buildEpub } from '../fixtures/epub.js';

const OPTS = { maxTextChars: 5_000_000, maxPdfPages: 10, acceptedFormats: ['epub'] as const };

describe('EPUB', () => {
  it('reads the chapters in spine order through the HTML conversion, with the title from the package', async () => {
    const r = await extractText(buildEpub([
      { href: 'ch1.xhtml', body: '<h1>Chapter 1</h1><p>It was a <em>dark</em> night.</p><ul><li>one</li><li>two</li></ul>' },
      { href: 'ch2.xhtml', body: '<h1>Chapter 2</h1><table><tr><th>Name</th><th>Role</th></tr><tr><td>Alice</td><td>hero</td></tr></table>' },
    ], { title: 'A Tale', creator: 'Someone' }), OPTS);
    expect(r.format).toBe('epub');
    expect(r.title).toBe('A Tale');
    expect(r.markdown).toBe('by Someone\n\n# Chapter 1\n\nIt was a *dark* night.\n\n- one\n- two\n\n# Chapter 2\n\n| Name | Role |\n| --- | --- |\n| Alice | hero |');
  });

  it('opens with a byline of the authors from the package metadata, leaving other roles out', async () => {
    const creators = '<dc:creator id="a1">Ann Writer</dc:creator><meta refines="#a1" property="role" scheme="marc:relators">aut</meta>'
      + '<dc:creator id="i1">Ivan Drawer</dc:creator><meta refines="#i1" property="role" scheme="marc:relators">ill</meta>'
      + '<dc:creator opf:role="aut" xmlns:opf="http://www.idpf.org/2007/opf">Bo Coauthor</dc:creator>';
    const r = await extractText(buildEpub([{ href: 'ch1.xhtml', body: '<h1>One</h1><p>Text.</p>' }], { title: 'Shared', creatorsXml: creators }), OPTS);
    expect(r.markdown).toBe('by Ann Writer and Bo Coauthor\n\n# One\n\nText.');
  });

  it('adds no byline when the opening chapter already names the author', async () => {
    const r = await extractText(buildEpub([{ href: 'title.xhtml', body: '<h1>A Tale</h1><p>by Someone</p>' }], { title: 'A Tale', creator: 'Someone' }), OPTS);
    expect(r.markdown).toBe('# A Tale\n\nby Someone');
  });

  it('leaves scripts, styles and remote resources out', async () => {
    const r = await extractText(buildEpub([{
      href: 'c.xhtml',
      body: '<p>Kept text.</p><script>document.write("ran")</script><style>p{}</style><img src="http://127.0.0.1:9/x.png" alt=""/><iframe src="http://127.0.0.1:9/"></iframe>',
    }]), OPTS);
    expect(r.markdown).toBe('Kept text.');
  });

  it('refuses a chapter that nests elements past the HTML depth limit as too_complex, before parsing it', async () => {
    const deep = (n: number) => `${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}`;
    const book = (n: number) => buildEpub([{ href: 'ch1.xhtml', body: '<p>First.</p>' }, { href: 'deep.xhtml', body: deep(n) }]);
    await expect(extractText(book(300), { ...OPTS, maxHtmlDepth: 256 })).rejects.toMatchObject({ code: 'too_complex', message: expect.stringContaining('Chapter deep.xhtml of the EPUB nests elements more than 256 levels deep') });
    expect((await extractText(book(200), { ...OPTS, maxHtmlDepth: 256 })).markdown).toBe('First.\n\ndeep');
  });

  it('fails a book whose chapters are encrypted as encrypted', async () => {
    const encryption = '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/c.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>';
    const bytes = buildEpub([{ href: 'c.xhtml', body: '<p>x</p>' }], { extra: [{ name: 'META-INF/encryption.xml', data: encryption }] });
    await expect(extractEpub(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'encrypted' });
  });

  it('fails a ZIP without a package document as corrupt', async () => {
    const bytes = buildEpub([{ href: 'c.xhtml', body: '<p>x</p>' }], { extra: [{ name: 'META-INF/container.xml', data: '<container><rootfiles/></container>' }] });
    await expect(extractEpub(bytes, { maxTextChars: 1e6 })).rejects.toMatchObject({ code: 'corrupt' });
  });

  it('keeps the description of an illustration as text, and not an empty, decorative or label-only alt', async () => {
    const r = await extractText(buildEpub([{ href: 'ch1.xhtml', body: '<h1>Chapter 1</h1>'
      + '<p class="figcenter"><a><img src="plate01.jpg" alt="Alice in the Room of the Duchess." width="300" height="410"/></a></p>'
      + '<p class="figright"><a><img src="i001.jpg" alt="Illo1" width="160" height="193"/></a></p><div><img src="title.jpg" alt="" width="66" height="66"/></div>'
      + '<p>The <img src="key.png" alt="golden key" width="80" height="60"/> opened it.<img src="orn.png" alt="ornament" role="presentation"/></p>' }], { title: 'Alice', creator: 'Lewis Carroll' }), OPTS);
    expect(r.markdown).toBe('by Lewis Carroll\n\n# Chapter 1\n\nAlice in the Room of the Duchess.\n\nThe golden key opened it.');
  });
});
