import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { markdownToText } from '../../worker/extractors/markdown/token-walker.js';
import { buildDocx } from '../fixtures/docx.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 50 };
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const html = (body: string) => extractText(utf8(`<!doctype html><html><head></head><body>${body}</body></html>`), opts);
const markdown = (source: string) => extractText(utf8(source), { ...opts, filename: 'notes.md' });

describe('HTML to Markdown', () => {
  it('writes a numbered heading as it reads, while a paragraph that starts with a number keeps its escape', async () => {
    const r = await html('<h2>2. Using the core</h2><h3>- a dash</h3><h3>&gt; quoted</h3><p>3. not a list item</p>');
    expect(r.markdown).toBe('## 2. Using the core\n\n### - a dash\n\n### > quoted\n\n3\\. not a list item');
  });

  it('turns h1 to h6 into # headings of the same level', async () => {
    const r = await html('<h1>One</h1><h2>Two <em>x</em></h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six</h6><p>Body.</p>');
    expect(r.markdown).toBe('# One\n\n## Two *x*\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\nBody.');
    expect(r.text).toBe('One\n\nTwo x\n\nThree\n\nFour\n\nFive\n\nSix\n\nBody.');
  });

  it('keeps ordered lists with their start numbers and nests lists by indentation', async () => {
    const r = await html('<ol start="4"><li>four</li><li>five<ul><li>inner a</li><li>inner b<ol><li>deep</li></ol></li></ul></li></ol><ul><li>bullet</li></ul>');
    expect(r.markdown).toBe('4. four\n5. five\n   - inner a\n   - inner b\n     1. deep\n\n- bullet');
    expect(r.text).toBe('4. four\n5. five\n  inner a\n  inner b\n    1. deep\n\nbullet');
  });

  it('honours li value attributes inside an ordered list', async () => {
    const r = await html('<ol><li>one</li><li value="10">ten</li><li>eleven</li></ol>');
    expect(r.markdown).toBe('1. one\n10. ten\n11. eleven');
    expect(r.text).toBe('1. one\n10. ten\n11. eleven');
  });

  it('writes a simple table as a GFM table and its text as tab-separated rows', async () => {
    const r = await html('<table><thead><tr><th>Name</th><th>Score</th></tr></thead><tbody><tr><td>Ada | L</td><td><b>42</b></td></tr></tbody></table>');
    expect(r.markdown).toBe('| Name | Score |\n| --- | --- |\n| Ada \\| L | **42** |');
    expect(r.text).toBe('Name\tScore\nAda | L\t42');
  });

  it('writes a table whose first row spans all columns as a GFM table, the span in its first column', async () => {
    const r = await html('<table><tr><td colspan="2">Merged head</td></tr><tr><td>a</td><td>b</td></tr></table>');
    expect(r.markdown).toBe('| Merged head |  |\n| --- | --- |\n| a | b |');
    expect(r.text).toBe('Merged head\na\tb');
  });

  it('keeps a cell spanning rows in its first row and the cells beside it in their columns', async () => {
    const r = await html('<table><tr><th>k</th><th>v</th><th>w</th></tr><tr><td rowspan="2">x</td><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>');
    expect(r.markdown).toBe('| k | v | w |\n| --- | --- | --- |\n| x | 1 | 2 |\n|  | 3 | 4 |');
  });

  it('keeps a table whose cells hold several paragraphs and lists, joining them with <br>', async () => {
    const r = await html('<main><table><tr><th><p>Field</p></th><th><p>Meaning</p></th></tr>'
      + '<tr><td><p>Depends</p></td><td><p>First paragraph.</p><p>Second paragraph.</p><ul><li>one</li><li>two</li></ul></td></tr></table></main>');
    expect(r.markdown).toBe('| Field | Meaning |\n| --- | --- |\n| Depends | First paragraph.<br>Second paragraph.<br>- one<br>- two |');
    expect(r.text).toBe('Field\tMeaning\nDepends\tFirst paragraph. Second paragraph. one two');
  });

  it('reads a one-column layout table as its paragraphs', async () => {
    const r = await html('<table><tr><td><p>First paragraph.</p><p>Second paragraph.</p></td></tr></table>');
    expect(r.markdown).toBe('First paragraph.\n\nSecond paragraph.');
  });

  it('fences code blocks with their language and keeps their lines and spaces', async () => {
    const r = await html('<pre><code class="language-js">if (a) {\n    b();\n}\n</code></pre><p>Use <code>npm ci</code> first.</p>');
    expect(r.markdown).toBe('```js\nif (a) {\n    b();\n}\n```\n\nUse `npm ci` first.');
    expect(r.text).toBe('if (a) {\n    b();\n}\n\nUse npm ci first.');
  });

  it('keeps block quotes as > lines', async () => {
    const r = await html('<blockquote><p>Quoted one.</p><p>Quoted two.</p></blockquote>');
    expect(r.markdown).toBe('> Quoted one.\n>\n> Quoted two.');
    expect(r.text).toBe('Quoted one.\n\nQuoted two.');
  });

  it('keeps link text without URLs, drops images, and escapes text that would read as markup', async () => {
    const r = await html('<p>See <a href="https://example.com/a">the guide</a> or https://example.com/b <img src="x.png" alt="logo">.</p><p>1. not a list &lt;div&gt; *stars* snake_case _under_</p><p># not a heading</p>');
    expect(r.markdown).toBe('See the guide or https://example.com/b .\n\n1\\. not a list \\<div> \\*stars\\* snake_case \\_under\\_\n\n\\# not a heading');
    expect(r.text).toBe('See the guide or https://example.com/b .\n\n1. not a list <div> *stars* snake_case _under_\n\n# not a heading');
  });
});

describe('main content of web pages', () => {
  const paragraph = (n: number) => `<p>Paragraph ${n} of the story, with enough words, commas, and detail to read as the article body of this page.</p>`;
  const article = Array.from({ length: 8 }, (_, i) => paragraph(i + 1)).join('');

  it('keeps the article and drops skip links, edit links, share bars, cookie banners, related blocks and footers', async () => {
    const r = await html(`
      <a class="mw-jump-link" href="#content">Jump to navigation</a>
      <div class="cookie-consent">We use cookies to improve this site.</div>
      <div id="menu"><ul><li><a href="/a">Home</a></li><li><a href="/b">World</a></li><li><a href="/c">Sport</a></li></ul></div>
      <div id="content"><h2>Story heading<span class="mw-editsection">[<a href="/edit">edit</a>]</span></h2>${article}
        <div class="share-bar"><a href="/fb">Share on Facebook</a> <a href="/tw">Share on X</a></div>
        <div class="related-stories"><h3>More on this story</h3><ul><li><a href="/r1">Another story about something</a></li><li><a href="/r2">A second story</a></li></ul></div>
      </div>
      <div class="site-footer">Copyright and terms of use</div>`);
    expect(r.markdown).toMatch(/^## Story heading\n\nParagraph 1 of the story/);
    expect(r.text).toContain('Paragraph 8 of the story');
    for (const chrome of ['Jump to navigation', 'edit', 'cookies', 'Home', 'Share on', 'More on this story', 'Another story', 'Copyright']) {
      expect(r.text).not.toContain(chrome);
    }
  });

  it('drops the next/previous/up links of a manual page (Texinfo 6) and the rules around the content, keeping links that sentences make', async () => {
    const header = '<div class="header"><p>Next: <a href="b.html" accesskey="n" rel="next">Using it</a>, Previous: <a href="index.html" rel="prev">Top</a>, Up: <a href="index.html" rel="up">Top</a> &nbsp; [<a href="Index.html" rel="index">Index</a>]</p></div><hr>';
    const r = await html(`<html><head><title>Intro</title></head><body lang="en"><div class="chapter">${header}<h2 class="chapter">1 What is it?</h2>
      <p>It calls code. Read on in <a href="b.html" rel="next">Using it</a> for the details.</p><p><a href="b.html" rel="next">Using it</a></p><hr></div></body></html>`);
    expect(r.markdown).toBe('# Intro\n\n## 1 What is it?\n\nIt calls code. Read on in Using it for the details.');
    // A block of links without rel stays: only links marked as moving between pages are navigation.
    const plain = await html('<p>Next: <a href="b.html">Using it</a>, Up: <a href="index.html">Top</a></p><p>Body text.</p>');
    expect(plain.text).toContain('Next: Using it, Up: Top');
  });

  it('keeps the whole body when no block reads as an article', async () => {
    const r = await html('<nav>Menu</nav><div>Short note one.</div><div>Short note two.</div>');
    expect(r.text).toBe('Short note one.\nShort note two.');
  });
});

describe('Markdown uploads', () => {
  it('is re-emitted as normalized Markdown, titled by its first # heading', async () => {
    const source = [
      'Intro line', '', 'Main title', '==========', '', 'Sub *title*', '---', '',
      '* star bullet', '* second bullet', '', '3) three', '4) four', '', 'Para.', '',
      '    indented code', '', '[link text](https://example.com) and ![an image](i.png)', '', '[ref]: https://example.com',
    ].join('\n');
    const r = await markdown(source);
    expect(r.title).toBe('Main title');
    expect(r.markdown).toBe('Intro line\n\n# Main title\n\n## Sub *title*\n\n- star bullet\n- second bullet\n\n3. three\n4. four\n\nPara.\n\n```\nindented code\n```\n\nlink text and an image');
    expect(r.text).toBe('Intro line\n\nMain title\n\nSub title\n\nstar bullet\nsecond bullet\n\n3. three\n4. four\n\nPara.\n\nindented code\n\nlink text and an image');
  });

  it('refuses an HTML block nested past the HTML depth limit as too_complex, and counts no placeholder of running text', async () => {
    const deep = (n: number) => `# Notes\n\n> quoted\n>\n> ${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}\n\nafter\n`;
    const limited = (source: string) => extractText(utf8(source), { ...opts, filename: 'notes.md', maxHtmlDepth: 64 });
    await expect(limited(deep(65))).rejects.toMatchObject({ code: 'too_complex', message: 'An HTML block of the Markdown nests elements more than 64 levels deep.' });
    expect((await limited(deep(64))).text).toContain('deep');
    const placeholders = Array.from({ length: 100 }, (_, i) => `Replace <name${i}> here.`).join('\n\n');
    expect((await limited(placeholders)).markdown).toContain('Replace \\<name99> here.');
  });

  it('has no title without a level-1 heading, and derives the same text from its own Markdown', async () => {
    const r = await markdown('## Only a second level\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n');
    expect(r.title).toBeUndefined();
    expect(markdownToText(r.markdown)).toBe(r.text);
  });
});

describe('plain text from Markdown', () => {
  it('drops heading marks, emphasis, table pipes, fences and bullets, and keeps list numbers', () => {
    const md = '# Title\n\nSome **bold** and _italic_ text.\n\n- a\n- b\n\n7. seven\n8. eight\n\n| x | y |\n| --- | --- |\n| 1 | 2 |\n\n```sh\nnpm ci\n```';
    expect(markdownToText(md)).toBe('Title\n\nSome bold and italic text.\n\na\nb\n\n7. seven\n8. eight\n\nx\ty\n1\t2\n\nnpm ci');
  });
});

describe('warnings', () => {
  it('marks text cut at maxTextChars as truncated with a warning', async () => {
    const r = await extractText(utf8('word '.repeat(1000)), { ...opts, filename: 'a.txt', maxTextChars: 100 });
    expect(r.truncated).toBe(true);
    expect(r.warnings?.map((w) => w.code)).toEqual(['truncated']);
  });

  it('marks text that is mostly unmapped glyphs (private-use characters) as garbled_text', async () => {
    const r = await extractText(utf8(`ok ${'\uf0b7\uf020\uf06c '.repeat(100)} ok`), { ...opts, filename: 'a.txt' });
    expect(r.warnings?.map((w) => w.code)).toEqual(['garbled_text']);
  });

  it('gives clean text no warnings', async () => {
    expect((await extractText(utf8('A plain sentence.'), { ...opts, filename: 'a.txt' })).warnings).toBeUndefined();
  });
});

describe('DOCX to Markdown', () => {
  it('turns heading styles 1 to 6 into # headings', async () => {
    const docx = buildDocx([1, 2, 3, 4, 5, 6].map((level) => ({ heading: `Level ${level}`, level: level as 1 | 2 | 3 | 4 | 5 | 6 })));
    const r = await extractText(docx, opts);
    expect(r.markdown).toBe('# Level 1\n\n## Level 2\n\n### Level 3\n\n#### Level 4\n\n##### Level 5\n\n###### Level 6');
  });

  it('keeps Word list numbers: nested levels, a list restarted at 10, and its continuation after a paragraph', async () => {
    const docx = buildDocx([
      { numbered: ['one', 'two', ['two a', 1], ['two b', 1], 'three'] },
      { numbered: ['ten', 'eleven'], startAt: 10 },
    ]);
    const r = await extractText(docx, opts);
    expect(r.markdown).toBe('1. one\n2. two\n   1. two a\n   2. two b\n3. three\n10. ten\n11. eleven');
    expect(r.text).toBe('1. one\n2. two\n  1. two a\n  2. two b\n3. three\n10. ten\n11. eleven');
  });

  it('collects footnotes and endnotes at the end with their numbers and without back-link arrows', async () => {
    const docx = buildDocx([{ para: 'Claim one.', footnote: 'Source of claim one.' }, { para: 'Claim two.', endnote: 'A closing remark.' }]);
    const r = await extractText(docx, opts);
    expect(r.markdown).toMatch(/^Claim one\.\[1\]\n\nClaim two\.\[2\]\n\n1\. Source of claim one\.\n2\. A closing remark\.$/);
    expect(r.text).not.toMatch(/↑/);
  });

  it('keeps the text of text boxes', async () => {
    const r = await extractText(buildDocx([{ para: 'Body text.' }, { textBox: 'Inside the box.' }]), opts);
    expect(r.text).toBe('Body text.\n\nInside the box.');
  });
});
