import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5, filename: 'page.html' };
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const extract = async (html: string) => extractText(Buffer.from(html), opts);
const LINKS = Array.from({ length: 30 }, (_, i) => `<li><a href="p${i}.html">Chapter ${i} of the manual</a></li>`).join('');
const PROSE = 'This sentence is the body of the manual page, long enough to count, with commas, clauses, and words. ';

describe('main content of documentation generators', () => {
  it('keeps the whole Sphinx body, its short notes and link lists included, and drops the sidebar', async () => {
    const html = `<html><head><title>Source packages</title></head><body><div class="document"><div class="body" role="main">
      <h1>4. Source packages<a class="headerlink" href="#s4">¶</a></h1><p>Short lead.</p><ul>${LINKS}</ul><p>${PROSE.repeat(3)}</p>
      <h2>4.1 Standards conformance</h2><p>Closing remark kept.</p></div></div>
      <div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul>${LINKS}</ul></div></body></html>`;
    const r = await extract(html);
    expect(r.text).toMatch(/^Source packages\n\n4\. Source packages\n\nShort lead\./);
    expect(r.markdown).toContain('Chapter 29 of the manual');
    expect(r.markdown).toContain('## 4.1 Standards conformance\n\nClosing remark kept.');
    expect(r.markdown).not.toContain('Navigation');
    expect(r.markdown).not.toContain('¶');
  });

  it('keeps a DocBook chapter from its title page to its end and drops the navigation headers', async () => {
    const html = `<html><head><title>Chapter 4. Required files</title><meta name="generator" content="DocBook XSL Stylesheets V1.79.2"></head><body>
      <div class="navheader"><table><tr><td><a href="a.html">Prev</a></td><td>Next</td></tr></table></div>
      <div class="chapter"><div class="titlepage"><div><div><h1 class="title">Chapter 4. Required files</h1></div></div></div>
      <p><code>TEMPORARY</code> or <code>TEMP</code> come first.</p><div class="section"><div class="titlepage"><div><div><h2 class="title">4.1. control</h2></div></div></div>
      <p>${PROSE.repeat(4)}</p><p>The last words of the chapter.</p></div></div>
      <div class="navfooter"><a href="b.html">Next chapter</a></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# Chapter 4\. Required files\n\n`TEMPORARY` or `TEMP` come first\.\n\n## 4\.1\. control/);
    expect(r.markdown).toMatch(/The last words of the chapter\.$/);
    expect(r.markdown).not.toMatch(/Prev|Next/);
  });

  it('keeps an AsciiDoc manual page\'s title and NAME section with its content', async () => {
    const html = `<html><head><title>git-x(1)</title><meta name="generator" content="AsciiDoc 10.2.0"></head><body class="manpage">
      <div id="header"><h1>git-x(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody"><p>git-x - do one thing</p></div></div>
      <div id="content"><div class="sect1"><h2>SYNOPSIS</h2><div class="sectionbody"><p>${PROSE}</p></div></div></div>
      <div id="footer"><div id="footer-text">Last updated 2024</div></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# git-x\(1\)\n\n## git-x\(1\) Manual Page\n\n### NAME\n\ngit-x - do one thing\n\n### SYNOPSIS/);
    expect(r.markdown).not.toContain('Last updated');
  });

  it('reads a Doxygen page\'s title header with its contents', async () => {
    const html = `<html><head><title>Doxygen: Special Commands</title><meta name="generator" content="Doxygen 1.9.4"></head><body>
      <div id="side-nav"><ul>${LINKS}</ul></div><div class="header"><div class="headertitle"><div class="title">Special Commands</div></div></div>
      <div class="contents"><h1>Introduction</h1><p>${PROSE}</p></div></body></html>`;
    const r = await extract(html);
    expect(r.text).toMatch(/^Doxygen: Special Commands\n\nSpecial Commands\n\nIntroduction\n\nThis sentence/);
    expect(r.text).not.toContain('Chapter 3 of the manual');
  });

  it('takes a page\'s <main> whole', async () => {
    const r = await extract(`<html><body><nav><ul>${LINKS}</ul></nav><main><h1>Title</h1><p>One line.</p><ul>${LINKS}</ul></main></body></html>`);
    expect(r.markdown.startsWith('# Title\n\nOne line.\n\n- Chapter 0 of the manual')).toBe(true);
  });
});

describe('the page title as the root of the headings', () => {
  const page = (title: string, body: string) => extractText(utf8(`<html><head><title>${title}</title></head><body>${body}</body></html>`), opts);

  it('puts the content under the title, one level down, so every heading path starts at the page', async () => {
    const r = await page('Guide', '<main><h1>Install</h1><p>Steps.</p><h2>Linux</h2><p>Use apt.</p></main>');
    expect(r.markdown).toBe('# Guide\n\n## Install\n\nSteps.\n\n### Linux\n\nUse apt.');
    expect(r.text).toBe('Guide\n\nInstall\n\nSteps.\n\nLinux\n\nUse apt.');
  });

  it('keeps one root heading when the h1 is the page\'s part of the title, before or after the site\'s name', async () => {
    const sphinx = await page('4. Source packages — Debian Policy Manual v4.6.2.0',
      '<div role="main"><h1>4. Source packages<a class="headerlink" href="#s">¶</a></h1><p>Text.</p><h2>4.1 Conformance</h2><p>More.</p></div>');
    expect(sphinx.markdown).toBe('# 4\\. Source packages\n\nText.\n\n## 4.1 Conformance\n\nMore.');
    expect(sphinx.title).toBe('4. Source packages — Debian Policy Manual v4.6.2.0');
    expect((await page('Configuration - MkDocs', '<main><h1>Configuration</h1><p>Text.</p></main>')).markdown).toBe('# Configuration\n\nText.');
    expect((await page('Site | Install', '<main><h1>Install</h1><p>Text.</p></main>')).markdown).toBe('# Install\n\nText.');
    // A heading that only begins the title's words is not the page's part of it.
    expect((await page('Install notes — Guide', '<main><h1>Install</h1><p>Text.</p></main>')).markdown).toBe('# Install notes — Guide\n\n## Install\n\nText.');
  });

  it('keeps the headings as they are when the content opens with the title or has no first-level heading, and a page without headings as it is', async () => {
    expect((await page('Install', '<main><h1>Install</h1><p>Steps.</p></main>')).markdown).toBe('# Install\n\nSteps.');
    expect((await page('Hours', '<main><p>Open at nine.</p></main>')).markdown).toBe('Open at nine.');
    expect((await page('Install', '<main><h2>Linux</h2><p>Use apt.</p></main>')).markdown).toBe('# Install\n\n## Linux\n\nUse apt.');
  });

  it('gives the chunks of the page heading paths rooted at its title', async () => {
    const r = await extractText(utf8('<html><head><title>Guide</title></head><body><main><h1>Install</h1><p>Steps to follow.</p></main></body></html>'),
      { ...opts, chunking: { maxTokens: 200, overlapTokens: 0 } });
    expect(r.chunks?.length).toBeGreaterThan(0);
    expect(r.chunks?.[0]?.headings).toEqual(['Guide']);
    expect(r.chunks?.every((c) => c.headings[0] === 'Guide')).toBe(true);
  });
});
