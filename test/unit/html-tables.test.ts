import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5, filename: 'page.html' };
const extract = async (body: string, head = '') => extractText(Buffer.from(`<html><head>${head}</head><body>${body}</body></html>`), opts);
const gfmRows = (md: string) => md.split('\n').filter((l) => /^\|.*\|$/.test(l) && !/^[|\s-]+$/.test(l));

describe('tables that documentation generators write', () => {
  it('reads a Texinfo index as a table of entries and sections under their letters, without its rules, spacers or "Jump to" bar', async () => {
    const letters = ['A', 'B', 'C'];
    const jump = `<table><tr><th valign="top">Jump to: &nbsp; </th><td>${letters.map((l) => `<a class="summary-letter" href="#Index_cp_letter-${l}"><b>${l}</b></a> &nbsp; `).join('<br>')}</td></tr></table>`;
    const entries = letters.map((l) => `<tr><td colspan="4"> <hr></td></tr><tr><th id="Index_cp_letter-${l}">${l}</th><td></td><td></td></tr>
      <tr><td></td><td valign="top"><a href="#index-${l}1">${l.toLowerCase()}lpha entry</a>:</td><td>&nbsp;</td><td valign="top"><a href="#S${l}">Section ${l}</a></td></tr>
      <tr><td></td><td valign="top"><a href="#index-${l}2"><code>${l.toLowerCase()}cmd</code></a>:</td><td>&nbsp;</td><td valign="top"><a href="#T${l}">Topic ${l}</a></td></tr>`).join('');
    const r = await extract(`<h2 class="unnumbered">Index</h2>${jump}<table class="index-cp" border="0">
      <tr><td></td><th align="left">Index Entry</th><td>&nbsp;</td><th align="left"> Section</th></tr>${entries}</table>${jump}`,
    '<title>Manual</title><meta name="generator" content="makeinfo 6.8">');
    expect(r.markdown).toContain([
      '| Index Entry | Section |', '| --- | --- |',
      '| **A** |  |', '| alpha entry: | Section A |', '| `acmd`: | Topic A |',
      '| **B** |  |', '| blpha entry: | Section B |',
    ].join('\n'));
    expect(gfmRows(r.markdown)).toHaveLength(1 + 3 * 3);
    expect(r.markdown).not.toContain('Jump to');
    expect(r.markdown).not.toContain('---\n');
    expect(r.text).toContain('alpha entry:\tSection A');
  });

  it('reads Doxygen member declarations as a heading per group with its members as a table, separators left out', async () => {
    const group = (id: string, title: string, members: Array<[string, string, string]>) => `<table class="memberdecls">
      <tr class="heading"><td colspan="2"><h2 class="groupheader"><a id="${id}" name="${id}"></a>\n${title}</h2></td></tr>
      ${members.map(([type, name, desc], i) => `<tr class="memitem:m${i}"><td class="memItemLeft" align="right" valign="top">${type}&#160;</td><td class="memItemRight" valign="bottom"><a class="el" href="#m${i}">${name}</a> ()</td></tr>
      <tr class="memdesc:m${i}"><td class="mdescLeft">&#160;</td><td class="mdescRight">${desc} <a href="#m${i}">More...</a><br /></td></tr>
      <tr class="separator:m${i}"><td class="memSeparator" colspan="2">&#160;</td></tr>`).join('')}</table>`;
    const r = await extract(`<div class="header"><div class="headertitle"><div class="title">Widget Class Reference</div></div></div>
      <div class="contents">${group('pub-methods', 'Public Member Functions', [['void', 'draw', 'Draws it.'], ['int', 'size', 'Its size.']])}
      ${group('pro-attribs', 'Protected Attributes', [['bool', 'visible', 'Shown or not.']])}</div>`,
    '<title>Lib: Widget Class Reference</title><meta name="generator" content="Doxygen 1.9.4">');
    expect(r.markdown).toContain('## Public Member Functions\n\n| void | draw () |\n| --- | --- |\n|  | Draws it. More... |\n| int | size () |\n|  | Its size. More... |\n\n## Protected Attributes\n\n| bool | visible () |');
    expect(r.text).toContain('void\tdraw ()');
  });

  it('reads a Sphinx (Docutils) table with its caption, column groups and paragraphs in cells', async () => {
    const r = await extract(`<div class="body" role="main"><h1>Fields</h1><table class="docutils align-default" id="t1">
      <caption><span class="caption-number">Table 1 </span><span class="caption-text">Control fields</span><a class="headerlink" href="#t1">¶</a></caption>
      <colgroup><col style="width: 40%"><col style="width: 60%"></colgroup>
      <thead><tr class="row-odd"><th class="head"><p>Field</p></th><th class="head"><p>Meaning</p></th></tr></thead>
      <tbody><tr class="row-even"><td><p><code class="docutils literal notranslate"><span class="pre">Source</span></code></p></td><td><p>The package name.</p><p>Required.</p></td></tr>
      <tr class="row-odd"><td><p>Section</p></td><td><p>An area of the archive.</p></td></tr></tbody></table></div>`, '<title>Fields — Manual</title>');
    expect(r.markdown).toBe('# Fields\n\nTable 1 Control fields\n\n| Field | Meaning |\n| --- | --- |\n| `Source` | The package name.<br>Required. |\n| Section | An area of the archive. |');
  });

  it('reads a DocBook informaltable', async () => {
    const r = await extract(`<div class="chapter"><div class="titlepage"><div><div><h1 class="title">Chapter 4. Files</h1></div></div></div>
      <div class="informaltable"><table class="informaltable" border="1"><colgroup><col align="left" class="col1"><col align="left" class="col2"></colgroup>
      <thead><tr><th align="left"><p>file name</p></th><th align="left"><p>install location</p></th></tr></thead>
      <tbody><tr><td align="left"><p><code class="literal">foo</code></p></td><td align="left"><p><code class="literal">/usr/bin/</code></p></td></tr></tbody></table></div></div>`,
    '<title>Chapter 4. Files</title><meta name="generator" content="DocBook XSL Stylesheets V1.79.2">');
    expect(r.markdown).toBe('# Chapter 4. Files\n\n| file name | install location |\n| --- | --- |\n| `foo` | `/usr/bin/` |');
  });

  it('reads a Javadoc member summary with its caption, the description kept apart from the signature', async () => {
    const r = await extract(`<div class="header"><h2 title="Class Widget" class="title">Class Widget</h2></div><div class="contentContainer"><div class="summary">
      <table class="memberSummary" border="0" cellpadding="3" cellspacing="0" summary="Method Summary table, listing methods, and an explanation">
      <caption><span id="t0" class="activeTableTab"><span>All Methods</span><span class="tabEnd">&nbsp;</span></span></caption>
      <tr><th class="colFirst" scope="col">Modifier and Type</th><th class="colLast" scope="col">Method and Description</th></tr>
      <tr id="i0" class="altColor"><td class="colFirst"><code>int</code></td><td class="colLast"><code><span class="memberNameLink"><a href="#size--">size</a></span>()</code>
      <div class="block">Returns the size.</div></td></tr></table></div></div>`, '<title>Widget</title><!-- Generated by javadoc (1.8.0) --><meta name="generator" content="javadoc/ClassWriterImpl">');
    expect(r.markdown).toContain('All Methods\n\n| Modifier and Type | Method and Description |\n| --- | --- |\n| `int` | `size()`<br>Returns the size. |');
    expect(r.text).toContain('int\tsize() Returns the size.');
  });

  it('reads the div grid of a Javadoc 17 member summary as a table', async () => {
    const r = await extract(`<main role="main"><section class="method-summary" id="method-summary"><h2>Method Summary</h2><div id="method-summary-table">
      <div class="table-tabs" role="tablist"><button id="t0" role="tab" class="active-table-tab">All Methods</button><button id="t2" role="tab" class="table-tab">Instance Methods</button></div>
      <div id="method-summary-table.tabpanel" role="tabpanel"><div class="summary-table three-column-summary" aria-labelledby="t0">
      <div class="table-header col-first">Modifier and Type</div><div class="table-header col-second">Method</div><div class="table-header col-last">Description</div>
      <div class="col-first even-row-color method-summary-table"><code>int</code></div><div class="col-second even-row-color method-summary-table"><code><a href="#size()" class="member-name-link">size</a>()</code></div>
      <div class="col-last even-row-color method-summary-table"><div class="block">Returns the size.</div></div>
      <div class="col-first odd-row-color method-summary-table"><code>void</code></div><div class="col-second odd-row-color method-summary-table"><code><a href="#clear()" class="member-name-link">clear</a>()</code></div>
      <div class="col-last odd-row-color method-summary-table">&nbsp;</div></div></div></div></section></main>`, '<title>Widget</title><meta name="generator" content="javadoc/ClassWriterImpl">');
    expect(r.markdown).toBe('# Widget\n\n## Method Summary\n\n| Modifier and Type | Method | Description |\n| --- | --- | --- |\n| `int` | `size()` | Returns the size. |\n| `void` | `clear()` |  |');
    expect(r.text).toContain('int\tsize()\tReturns the size.');
  });

  it('reads a one-cell wrapper as its blocks and keeps the cells of a layout table apart', async () => {
    const r = await extract('<main><table><tr><td><p>Only a wrapper.</p></td></tr></table><table><tr><td><pre>code</pre></td><td>beside</td></tr></table></main>');
    expect(r.markdown).toBe('Only a wrapper.\n\n```\ncode\n```\n\nbeside');
  });

  it('keeps the empty rows of a form and the columns that hold text, and a link table to other pages', async () => {
    const r = await extract('<main><table><tr><th>Name</th><th>Signature</th></tr><tr><td></td><td></td></tr><tr><td>Ann</td><td></td></tr></table>'
      + '<table><tr><td><a href="a.html">A</a></td><td><a href="b.html">B</a></td><td><a href="c.html">C</a></td></tr></table></main>');
    expect(r.markdown).toBe('| Name | Signature |\n| --- | --- |\n|  |  |\n| Ann |  |\n\n| A | B | C |\n| --- | --- | --- |');
  });
});
