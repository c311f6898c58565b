import { load } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { cutChunks, cutContextOf } from '../../worker/chunking/cut-chunks.js';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { nodesToMarkdownAndText } from '../../worker/extractors/html/to-markdown.js';

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

  it('keeps the text of a Docutils heading that links back to the table of contents', async () => {
    const r = await extract(`<html><head><title>cmake-policies(7)</title></head><body><div class="body" role="main"><h1>cmake-policies(7)</h1>
      <div class="contents topic"><p class="topic-title">Contents</p><ul><li><a class="reference internal" href="#p324" id="id4">Policies Introduced by CMake 3.24</a></li></ul></div>
      <section id="p324"><h2><a class="toc-backref" href="#id4">Policies Introduced by CMake 3.24</a><a class="headerlink" href="#p324">¶</a></h2><p>${PROSE}</p></section></div></body></html>`);
    expect(r.markdown).toContain('## Policies Introduced by CMake 3.24\n\nThis sentence');
  });

  it('keeps the footnotes that Docutils writes as <aside> elements, and drops an aside that is a sidebar', async () => {
    const html = `<html><head><title>Pkgs</title></head><body><div class="body" role="main"><h1>Pkgs</h1><p>${PROSE}<a class="footnote-reference brackets" href="#id7">1</a></p>
      <aside class="sidebar"><p class="sidebar-title">See also</p><p>Other pages.</p></aside>
      <aside class="footnote-list brackets"><aside class="footnote brackets" id="id7" role="note"><span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#id1">1</a><span class="fn-bracket">]</span></span>
      <p>In the past, such uploads used the third-level number.</p></aside></aside></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/\[1\]\n\nIn the past, such uploads used the third-level number\.$/);
    expect(r.markdown).not.toContain('Other pages');
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

  it('keeps a Texinfo page whole, from its title to its index', async () => {
    const html = `<html><head><title>GNU Hello</title><meta name="Generator" content="makeinfo"></head><body lang="en">
      <h1 class="settitle">GNU Hello</h1><div class="contents"><h2 class="contents-heading">Table of Contents</h2><ul class="no-bullet">${LINKS}</ul></div>
      <div class="chapter" id="Overview"><div class="header"><p>Next: <a href="#Usage" accesskey="n" rel="next">Usage</a></p></div>
      <h2 class="chapter">1 Overview</h2><p>Short lead.</p><p>${PROSE.repeat(3)}</p><h3 class="section">1.1 Options</h3><p>Closing remark kept.</p></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# GNU Hello\n\n## Table of Contents\n\n- Chapter 0 of the manual/);
    expect(r.markdown).toContain('## 1 Overview\n\nShort lead.');
    expect(r.markdown).toMatch(/### 1\.1 Options\n\nClosing remark kept\.$/);
  });

  it('keeps the role="main" column of an MkDocs page, its link lists included, and drops the navbar and the table of contents', async () => {
    const html = `<html><head><title>Configuration - MkDocs</title></head><body>
      <div class="navbar fixed-top navbar-expand-lg"><div class="container"><a class="navbar-brand" href="..">MkDocs</a><ul class="nav navbar-nav">${LINKS}</ul></div></div>
      <div class="container"><div class="row"><div class="col-md-3"><div class="navbar-expand-md bs-sidebar hidden-print affix" role="complementary"><ul class="nav flex-column">${LINKS}</ul></div></div>
      <div class="col-md-9" role="main"><h1 id="configuration">Configuration</h1><p>Guide to all settings.</p><h2 id="introduction">Introduction</h2><ul>${LINKS}</ul>
      <p>${PROSE.repeat(3)}</p><h3 id="site_name">site_name</h3><p>This is a <strong>required setting</strong>.</p></div></div></div>
      <footer class="col-md-12"><p>Documentation built with MkDocs.</p></footer></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# Configuration\n\nGuide to all settings\.\n\n## Introduction\n\n- Chapter 0 of the manual/);
    expect(r.markdown).toMatch(/### site_name\n\nThis is a \*\*required setting\*\*\.$/);
    expect(r.markdown).not.toMatch(/MkDocs|built with/);
  });

  it('keeps Material for MkDocs\' article inside <main> and drops its navigation sidebars', async () => {
    const html = `<html><head><title>Setup - Material</title><meta name="generator" content="mkdocs-1.5.3, mkdocs-material-9.4.6"></head><body>
      <header class="md-header"><nav class="md-header__inner">Material</nav></header><div class="md-container"><main class="md-main" data-md-component="main"><div class="md-main__inner md-grid">
      <div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner"><nav class="md-nav md-nav--primary"><ul>${LINKS}</ul></nav></div></div></div>
      <div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset"><h1>Setup</h1><p>Short lead.</p><ul>${LINKS}</ul><p>${PROSE}</p></article></div>
      </div></main><footer class="md-footer"><p>Made with Material</p></footer></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# Setup\n\nShort lead\.\n\n- Chapter 0 of the manual/);
    expect(r.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    expect(r.markdown).not.toContain('Material');
  });

  it('keeps rustdoc\'s #main-content with its heading, and an older rustdoc page\'s #main, without the sidebar', async () => {
    const sidebar = `<nav class="sidebar"><div class="sidebar-elems"><section><ul class="block">${LINKS}</ul></section></div></nav>`;
    const item = '<h1>Struct <a class="struct" href="#">Vec</a></h1></div><details class="toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary>'
      + `<div class="docblock"><p>A growable array.</p><ul>${LINKS}</ul></div></details><h2 id="implementations" class="section-header">Implementations<a href="#implementations" class="anchor">§</a></h2><p>Short.</p>`;
    const current = await extract(`<html><head><title>Vec in std::vec - Rust</title><meta name="generator" content="rustdoc"></head><body class="rustdoc struct">${sidebar}
      <main><div class="width-limiter"><nav class="sub"><form class="search-form"><input class="search-input" name="search"></form></nav>
      <section id="main-content" class="content"><div class="main-heading">${item}</section></div></main></body></html>`);
    expect(current.markdown).toMatch(/^# Vec in std::vec - Rust\n\n## Struct Vec\n\nExpand description\n\nA growable array\.\n\n- Chapter 0 of the manual/);
    expect(current.markdown).toMatch(/### Implementations§?\n\nShort\.$/);
    expect(current.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    const older = await extract(`<html><head><title>Vec in std::vec - Rust</title><meta name="generator" content="rustdoc"></head><body class="rustdoc struct">${sidebar}
      <section id="main" class="content"><div class="main-heading">${item}</section><section id="search" class="content hidden"></section></body></html>`);
    expect(older.markdown).toBe(current.markdown);
  });

  it('reads a Javadoc 8 page, named only by its head comment, from its header to its member details', async () => {
    const html = `<html lang="en"><head><!-- Generated by javadoc (1.8.0_292) on Mon Jan 01 --><title>Widget (Lib API)</title></head><body>
      <div class="topNav"><a name="navbar.top"></a><ul class="navList" title="Navigation">${LINKS}</ul></div><div class="subNav"><ul class="navList"><li>Prev Class</li></ul></div>
      <div class="header"><div class="subTitle">org.example</div><h2 title="Class Widget" class="title">Class Widget</h2></div>
      <div class="contentContainer"><div class="description"><div class="block">A widget.</div></div><div class="summary"><ul class="blockList"><li class="blockList">
      <h3>Method Summary</h3><ul>${LINKS}</ul></li></ul></div><div class="details"><h3>Method Detail</h3><h4>size</h4><pre>public&nbsp;int&nbsp;size()</pre><div class="block">${PROSE}</div></div></div>
      <div class="bottomNav"><ul class="navList">${LINKS}</ul></div><p class="legalCopy"><small>Copyright 2024.</small></p></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# Widget \(Lib API\)\n\norg\.example\n\n## Class Widget\n\nA widget\.\n\n### Method Summary\n\n- Chapter 0 of the manual/);
    expect(r.markdown).toContain('#### size\n\n```\npublic\u00a0int\u00a0size()\n```');
    expect(r.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    expect(r.markdown).not.toMatch(/Prev Class|Copyright/);
  });

  it('reads a Javadoc 17 page from its <main>, the header with the class title included', async () => {
    const html = `<html lang="en"><head><title>Widget (Lib API)</title><meta name="generator" content="javadoc/ClassWriterImpl"></head><body class="class-declaration-page">
      <div class="flex-box"><header role="banner" class="flex-header"><nav role="navigation"><ul id="navbar-top-firstrow" class="nav-list">${LINKS}</ul></nav></header>
      <div class="flex-content"><main role="main"><div class="header"><div class="sub-title">Package org.example</div><h1 title="Class Widget" class="title">Class Widget</h1></div>
      <section class="class-description"><div class="block">A widget.</div></section><section class="summary"><h2>Method Summary</h2><ul>${LINKS}</ul></section></main>
      <footer role="contentinfo"><p class="legal-copy">Copyright 2024.</p></footer></div></div></body></html>`;
    const r = await extract(html);
    expect(r.markdown).toMatch(/^# Widget \(Lib API\)\n\nPackage org\.example\n\n## Class Widget\n\nA widget\.\n\n### Method Summary\n\n- Chapter 0 of the manual/);
    expect(r.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    expect(r.markdown).not.toContain('Copyright');
  });

  it('finds a DocBook division inside a site\'s template, and a Sphinx body without role="main" by the Docutils generator', async () => {
    const docbook = await extract(`<html><head><title>Chapter 2. Setup</title><meta name="generator" content="DocBook XSL Stylesheets V1.79.2"></head><body>
      <div id="site-menu"><ul>${LINKS}</ul></div><div id="site-content"><div class="navheader"><a href="a.html">Prev</a></div>
      <div class="chapter"><div class="titlepage"><div><div><h2 class="title"><a name="setup"></a>Chapter 2. Setup</h2></div></div></div><p>Short lead.</p><p>${PROSE}</p></div></div></body></html>`);
    expect(docbook.markdown).toMatch(/^## Chapter 2\. Setup\n\nShort lead\./);
    expect(docbook.markdown).not.toMatch(/Chapter 0 of the manual|Prev/);
    const sphinx = await extract(`<html><head><title>Usage — Tool 1.0 documentation</title><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/"></head><body>
      <div class="related"><ul>${LINKS}</ul></div><div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body">
      <h1>Usage</h1><p>Short lead.</p><ul>${LINKS}</ul></div></div></div><div class="sphinxsidebar"><h3>Navigation</h3><p>${PROSE}</p></div></div></body></html>`);
    expect(sphinx.markdown).toMatch(/^# Usage\n\nShort lead\.\n\n- Chapter 0 of the manual/);
    expect(sphinx.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    expect(sphinx.markdown).not.toContain('Navigation');
  });

  it('reads an older DocBook (DSSSL) page, whose classes are upper-case, from its title page, and a libxml2 devhelp page whole', async () => {
    const dsssl = await extract(`<HTML><HEAD><TITLE>Shared MIME-info Database</TITLE><META NAME="GENERATOR" CONTENT="Modular DocBook HTML Stylesheet Version 1.79"></HEAD>
      <BODY CLASS="article"><DIV CLASS="NAVHEADER"><A HREF="a.html">Prev</A></DIV><DIV CLASS="ARTICLE"><DIV CLASS="TITLEPAGE"><H1 CLASS="title">Shared MIME-info Database</H1>
      <H3 CLASS="author">Thomas Leonard</H3><HR></DIV><DIV CLASS="TOC"><DL><DT><B>Table of Contents</B></DT><DT>1. <A HREF="#i">Introduction</A></DT></DL></DIV>
      <DIV CLASS="sect1"><H2 CLASS="sect1"><A NAME="i">1. Introduction</A></H2><P>${PROSE.repeat(4)}</P></DIV></DIV></BODY></HTML>`);
    expect(dsssl.markdown).toMatch(/^# Shared MIME-info Database\n\n### Thomas Leonard\n\n---\n\n\*\*Table of Contents\*\*/);
    expect(dsssl.markdown).not.toContain('Prev');
    const devhelp = await extract(`<html><head><title>preproc: precomputing stylesheets</title><meta name="generator" content="Libxml2 devhelp stylesheet"/></head><body>
      <table class="navigation" width="100%" summary="Navigation header"><tr valign="middle"><td><a accesskey="p" href="a.html"><img src="left.png" alt="Prev"/></a></td><th>libxslt Reference Manual</th></tr></table>
      <h2><span class="refentrytitle">preproc</span></h2><p>preproc - precomputing stylesheets</p><p>Author(s): Daniel Veillard </p>
      <div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">void\t<a href="#f">xsltFreeStylePreComps</a>\t(xsltStylesheetPtr style);</pre></div>
      <div class="refsect1" lang="en"><h2>Details</h2><div class="refsect2" lang="en"><h3><a name="f"></a>xsltFreeStylePreComps ()</h3><pre class="programlisting">void\txsltFreeStylePreComps (xsltStylesheetPtr style);</pre>
      <p>${PROSE.repeat(4)}</p></div><hr/><div class="refsect2" lang="en"><h3>xsltStylePreCompute ()</h3><pre class="programlisting">void\txsltStylePreCompute (xsltStylesheetPtr style);</pre><p>Precompute an XSLT stylesheet element.</p></div></div></body></html>`);
    expect(devhelp.markdown).toMatch(/^## preproc\n\npreproc - precomputing stylesheets\n\nAuthor\(s\): Daniel Veillard\n\n## Synopsis/);
    expect(devhelp.markdown).toMatch(/Precompute an XSLT stylesheet element\.$/);
    expect(devhelp.markdown).not.toContain('libxslt Reference Manual');
  });

  it('takes an element with role="main" whole on a page of no known generator', async () => {
    const r = await extract(`<html><head><title>Notes</title></head><body><div id="menu"><ul>${LINKS}</ul></div><div id="page"><div role="main"><h2>Notes</h2><p>Short lead.</p><ul>${LINKS}</ul></div>
      <div class="sidebar"><p>${PROSE.repeat(4)}</p></div></div></body></html>`);
    expect(r.markdown).toMatch(/^## Notes\n\nShort lead\.\n\n- Chapter 0 of the manual/);
    expect(r.markdown.match(/Chapter 0 of the manual/g)).toHaveLength(1);
    expect(r.markdown).not.toContain('This sentence');
  });

  it('keeps the TeX of a formula drawn as an image, and not the alt of other images', async () => {
    const r = await extract(`<html><head><title>Configuration</title><meta name="generator" content="Doxygen 1.9.4"></head><body><div class="contents">
      <p>The cache size is <img class="formulaInl" alt="$2^{16}$" src="form_13.png"/> symbols, shown for <img class="formulaInl" alt="$\\mbox{\\LaTeX}$" src="form_12.png"/> too.<img src="logo.png" alt="Project logo"/></p></div></body></html>`);
    expect(r.text).toBe('Configuration\n\nThe cache size is $2^{16}$ symbols, shown for $\\mbox{\\LaTeX}$ too.');
  });

  const ALT_PAGE = `<html><head><title>Setup</title></head><body><header><img src="brand.png" alt="Acme Tools"/></header>
      <nav><a href="/"><img src="home.png" alt="Back to the start page"/></a></nav><main><h1>Setup <img src="new.png" alt="New" width="40" height="40"/></h1>
      <p>Wire it as shown:</p><p><img src="wiring.png" alt="Wiring diagram: red to L, blue to N" width="600" height="400"/></p>
      <figure><img src="panel.jpg" alt="The front panel"/><figcaption>The front panel</figcaption></figure>
      <p>Press <img src="b.png" alt="the power button" width="64" height="64"/> once.<img src="x.gif" alt="" width="1" height="1"/><img class="site-logo" src="l.svg" alt="Acme"/>
      <img src="icons/warn.png" alt="Warning" width="16" height="16"/><a href="other.html"><img src="teaser.jpg" alt="Read our other guide"/></a><img src="scan.png" alt="IMG_2041"/>
      <img src="photo.png" alt="photo.png"/><a href="big.jpg"><img src="small.jpg" alt="Close-up of the fuse"/></a></p></main></body></html>`;

  it('keeps, where content images\' alts are asked for (a book), a content image\'s alt and not that of logos, icons, buttons, teasers or images in navigation', () => {
    const $ = load(ALT_PAGE);
    const { markdown } = nodesToMarkdownAndText($('main').toArray() as AnyNode[], { imageAlt: 'content' });
    expect(markdown).toBe('# Setup\n\nWire it as shown:\n\nWiring diagram: red to L, blue to N\n\nThe front panel\n\nPress the power button once. Close-up of the fuse');
  });

  it('reads a web page\'s text without its images\' alts, as page readers do, but a heading drawn only as an image from its alt', async () => {
    const r = await extract(ALT_PAGE);
    expect(r.markdown).toBe('# Setup\n\nWire it as shown:\n\nThe front panel\n\nPress once.');
    const drawn = await extract('<html><body><main><h2><img src="ch1.png" alt="Chapter I"/></h2><p>Down the rabbit hole.</p></main></body></html>');
    expect(drawn.markdown).toBe('## Chapter I\n\nDown the rabbit hole.');
    // Such a heading that says the page's title is its one root heading.
    const titled = await extract('<html><head><title>Chapter I</title></head><body><main><h1><img src="ch1.png" alt="Chapter I"/></h1><p>Down the rabbit hole.</p></main></body></html>');
    expect(titled.markdown).toBe('# Chapter I\n\nDown the rabbit hole.');
  });

  it('takes a page\'s <main> whole', async () => {
    const r = await extract(`<html><body><nav><ul>${LINKS}</ul></nav><main><h1>Title</h1><p>One line.</p><ul>${LINKS}</ul></main></body></html>`);
    expect(r.markdown.startsWith('# Title\n\nOne line.\n\n- Chapter 0 of the manual')).toBe(true);
  });
});

describe('pages that no generator names', () => {
  it('keeps the text of a page laid out in nested tables whose article the clean-up would empty, menu column included', async () => {
    const menu = `<table width="100%"><tr><td><b>Main Menu</b></td></tr><tr><td><form action="s.php"><input name="q"></form><ul>${LINKS}</ul></td></tr></table>`;
    const r = await extract(`<html><head><title>Documentation</title></head><body><table width="100%"><tr><td><h1>The EXSLT C library</h1><h2>Documentation</h2></td></tr></table>
      <table border="0" width="100%"><tr><td><table width="100%"><tr><td valign="top" width="200">${menu}</td><td valign="top"><table width="100%"><tr><td>
      <p>There are some on-line resources about using libexslt:</p><ol><li>Check the <a href="api.html">API documentation</a>, extracted from code comments.</li>
      <li>Look at the <a href="http://mail.example/">mailing-list archive</a>.</li></ol><p><a href="bugs.html">Daniel Veillard</a></p></td></tr></table></td></tr></table></td></tr></table></body></html>`);
    expect(r.text).toContain('There are some on-line resources about using libexslt:');
    expect(r.text).toContain('1. Check the API documentation, extracted from code comments.');
    expect(r.markdown).not.toMatch(/^\|/m);
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
    expect(sphinx.markdown).toBe('# 4. Source packages\n\nText.\n\n## 4.1 Conformance\n\nMore.');
    expect(sphinx.title).toBe('4. Source packages — Debian Policy Manual v4.6.2.0');
    expect((await page('Configuration - MkDocs', '<main><h1>Configuration</h1><p>Text.</p></main>')).markdown).toBe('# Configuration\n\nText.');
    expect((await page('Site | Install', '<main><h1>Install</h1><p>Text.</p></main>')).markdown).toBe('# Install\n\nText.');
    expect((await page('Site :: Install', '<main><h1>Install</h1><p>Text.</p></main>')).markdown).toBe('# Install\n\nText.');
    // A heading that only begins the title's words is not the page's part of it.
    expect((await page('Install notes — Guide', '<main><h1>Install</h1><p>Text.</p></main>')).markdown).toBe('# Install notes — Guide\n\n## Install\n\nText.');
  });

  it('keeps the headings as they are when the content opens with the title or has no first-level heading', async () => {
    expect((await page('Install', '<main><h1>Install</h1><p>Steps.</p></main>')).markdown).toBe('# Install\n\nSteps.');
    expect((await page('Install', '<main><h2>Linux</h2><p>Use apt.</p></main>')).markdown).toBe('# Install\n\n## Linux\n\nUse apt.');
  });

  it('puts a page without headings under its title too, and makes a first line that says the title its heading', async () => {
    const hours = await page('Hours — Town Library', '<main><p>Open at nine.</p><p>Closed on Sundays.</p></main>');
    expect(hours.markdown).toBe('# Hours — Town Library\n\nOpen at nine.\n\nClosed on Sundays.');
    expect(hours.text).toBe('Hours — Town Library\n\nOpen at nine.\n\nClosed on Sundays.');
    // The opening bold line is the page's part of the title: it becomes the heading, said once.
    const bold = await page('Hours — Town Library', '<main><p><b>Hours</b></p><p>Open at nine.</p></main>');
    expect(bold.markdown).toBe('# Hours\n\nOpen at nine.');
    expect(bold.text).toBe('Hours\n\nOpen at nine.');
    // A first line that is a list item stays one, under the title.
    expect((await page('Hours', '<ul><li>Hours</li><li>Days</li></ul>')).markdown).toBe('# Hours\n\n- Hours\n- Days');
  });

  it('adds no title heading when the title names no page or the content is empty', async () => {
    for (const title of ['Untitled Document', 'New Page', 'index.html', 'example.com', 'https://example.com/a/b', 'www.example.org', '/docs/intro', '  ']) {
      const r = await page(title, '<main><p>Open at nine.</p></main>');
      expect(r.markdown, title).toBe('Open at nine.');
    }
    // Names that only look like hosts are titles.
    expect((await page('Node.js', '<main><p>Open at nine.</p></main>')).markdown).toBe('# Node.js\n\nOpen at nine.');
    await expect(page('Loading', '<div id="app"></div>')).rejects.toMatchObject({ code: 'no_text' });
  });

  it('gives the chunks of the page heading paths rooted at its title', async () => {
    const r = await extractText(utf8('<html><head><title>Guide</title></head><body><main><h1>Install</h1><p>Steps to follow.</p></main></body></html>'),
      { ...opts, chunking: { maxTokens: 200, overlapTokens: 0 } });
    expect(r.chunks?.length).toBeGreaterThan(0);
    expect(r.chunks?.[0]?.headings).toEqual(['Guide']);
    expect(r.chunks?.every((c) => c.headings[0] === 'Guide')).toBe(true);
  });

  it('roots the chunk heading paths of a page without headings, fetched or uploaded, at its title', async () => {
    const body = Array.from({ length: 12 }, (_, i) => `<p>Paragraph ${i} of the opening hours, ${PROSE}</p>`).join('');
    const r = await extractText(utf8(`<html><head><title>Hours — Town Library</title></head><body>${body}</body></html>`), opts);
    for (const type of ['url', 'file'] as const) {
      const chunks = cutChunks(r.markdown, { maxTokens: 64, overlapTokens: 0 }, cutContextOf({ type, title: r.title }));
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.every((c) => c.headings.length === 1 && c.headings[0] === 'Hours — Town Library')).toBe(true);
    }
  });
});
