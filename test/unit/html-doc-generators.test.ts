import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { isVimHelp } from '../../worker/extractors/html/vim-help.js';

const opts: ExtractOptions = { maxTextChars: 1_000_000, maxPdfPages: 5, filename: 'page.html', chunking: { maxTokens: 128, overlapTokens: 0 } };
const PROSE = 'This sentence is the body of the manual, long enough to count, with commas, clauses, and words. ';

/** A navigation bar as texi2html 1.82 writes one above and below each section. */
const navBar = (full: boolean) => `<table cellpadding="1" cellspacing="1" border="0">
<tr><td valign="middle" align="left">[<a href="m_2.html#A" title="Previous section in reading order"> &lt; </a>]</td>
<td valign="middle" align="left">[<a href="m_4.html#B" title="Next section in reading order"> &gt; </a>]</td>
<td valign="middle" align="left"> &nbsp; </td>
<td valign="middle" align="left">[<a href="m_2.html#A" title="Beginning of this chapter or previous chapter"> &lt;&lt; </a>]</td>
<td valign="middle" align="left">[<a href="m_2.html#A" title="Up section"> Up </a>]</td>
<td valign="middle" align="left">[<a href="m_12.html#C" title="Next chapter"> &gt;&gt; </a>]</td>
${full ? `<td valign="middle" align="left"> &nbsp; </td>
<td valign="middle" align="left">[<a href="m.html#Top" title="Cover (top) of document">Top</a>]</td>
<td valign="middle" align="left">[Contents]</td>
<td valign="middle" align="left">[Index]</td>
<td valign="middle" align="left">[<a href="m_abt.html#SEC_About" title="About (help)"> ? </a>]</td>` : ''}
</tr></table>`;

const texi2htmlPage = (generatorMeta: boolean) => `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html401/loose.dtd">
<html>
<!-- Created on November 28, 2026 by texi2html 1.82
texi2html was written by: Lionel Cons (original author) and many others. -->
<head>
<title>Widget manual: 2.3 Options</title>
${generatorMeta ? '<meta name="Generator" content="texi2html 1.82">' : ''}
</head>
<body lang="en" bgcolor="#FFFFFF" text="#000000">
<a name="Options"></a>
${navBar(true)}
<a name="Options-1"></a>
<h2 class="section">2.3 Options</h2>
<p>${PROSE.repeat(3)}</p>
<table class="menu" border="0" cellspacing="0">
<tr><td align="left" valign="TOP"><a href="m_5.html#Short">2.3.1 Short options</a></td><td>&nbsp;&nbsp;</td><td align="left" valign="TOP">Single letters.</td></tr>
</table>
<dl compact="compact"><dt> <code>-v</code></dt><dd><p>${PROSE.repeat(2)}</p></dd></dl>
<hr size="6">
${navBar(false)}
<p>
 <font size="-1">
  This document was generated on <i>November 28, 2026</i> using <a href="http://www.nongnu.org/texi2html/"><i>texi2html 1.82</i></a>.
 </font>
 <br>
</p>
</body>
</html>`;

describe('texi2html pages', () => {
  for (const meta of [true, false]) {
    it(`keeps the section and its menu and drops the navigation bars and the footer (${meta ? 'generator meta' : 'generator comment only'})`, async () => {
      const r = await extractText(Buffer.from(texi2htmlPage(meta)), opts);
      expect(r.markdown).toMatch(/^## 2\.3 Options\n\nThis sentence/);
      expect(r.markdown).toContain('2.3.1 Short options');
      expect(r.markdown).toContain('-v');
      expect(r.markdown).not.toMatch(/\[ ?(?:\\?<|>|\\?<\\?<|>>|Up|\?) ?\]|\[Contents\]|\[Index\]/);
      expect(r.text).not.toContain('This document was generated');
      expect(r.chunks!.every((c) => !c.text.includes('Up ]'))).toBe(true);
    });
  }

  it('keeps a table of bracketed words on a page no generator names', async () => {
    const html = `<html><head><title>Keys</title></head><body><h1>Keys</h1><p>${PROSE.repeat(4)}</p><table><tr><td>[Ctrl]</td><td>[Alt]</td><td>[Del]</td></tr></table></body></html>`;
    const r = await extractText(Buffer.from(html), opts);
    expect(r.markdown).toContain('[Ctrl]');
  });
});

/** A page in the shape vim2html.pl gives a Vim help file: one <PRE>, `*tag*` anchors, `====` rules. */
const VIM_HELP = `<HTML>
<HEAD>
<LINK REL="stylesheet" HREF="vim-stylesheet.css" TYPE="text/css">
<TITLE>Editor documentation: usr_41</TITLE>
</HEAD>
<BODY BGCOLOR="#ffffff">
<H1>Editor documentation: usr_41</H1>
<A NAME="top"></A>
<A HREF="index.html">main help file</A>
<HR>
<PRE>
*<A NAME="usr_41.txt"></A><B>usr_41.txt</B>*	For Editor version 9.0.  Last change: 2026 Nov 28

		     USER MANUAL

			      Write a script

The script language is the first thing you meet when you write a startup file.
This chapter explains the parts of it, with examples, one after the other.

|<A HREF="#41.1">41.1</A>|	Introduction
|<A HREF="#41.2">41.2</A>|	Variables

==============================================================================
*<A NAME="41.1"></A><B>41.1</B>*	Introduction				*<A NAME="script-intro"></A><B>script-intro</B>*

Your first experience with scripts is the startup file.  The file holds the
commands the editor runs when it starts, one per line.  Here is an example
that counts to five: &gt;

	let i = 1
	while i &lt; 5
	  echo "count is" i
	  let i += 1
	endwhile
&lt;
The loop runs four times, and the last value printed is four.

Notation ~

	:let		set a variable
	:while		start a loop
	:endwhile	end a loop

==============================================================================
*<A NAME="41.2"></A><B>41.2</B>*	Variables

A variable name is made of letters, digits and underscores.  It cannot start
with a digit.  Valid names are counter, _aap3 and very_long_variable_name.
</PRE>
<A HREF="#top">top</A> - <A HREF="index.html">main help file</A>
</BODY>
</HTML>`;

describe('Vim help pages', () => {
  it('reads the one <pre> as sections with headings, prose as paragraphs and examples as code', async () => {
    const r = await extractText(Buffer.from(VIM_HELP), opts);
    expect(r.markdown).toContain('## 41.1 Introduction\n\nYour first experience with scripts');
    expect(r.markdown).toContain('## 41.2 Variables\n\nA variable name');
    expect(r.markdown).toContain('### Notation');
    expect(r.markdown).toMatch(/```\nlet i = 1\nwhile i < 5\n {2}echo "count is" i\n/);
    // Prose is not a code block: the paragraph's words read as text.
    const before = r.markdown.slice(0, r.markdown.indexOf('The loop runs four times'));
    expect(before.match(/^```/gm)!.length % 2).toBe(0);
    expect(r.markdown).toContain('\n\nWrite a script\n\n');
    expect(r.markdown).not.toMatch(/={20,}/);
    const intro = r.chunks!.find((c) => c.text.includes('The loop runs four times'))!;
    expect(intro.headings.at(-1)).toBe('41.1 Introduction');
    // A small section may share a chunk with the one before: then `sections` names it.
    const vars = r.chunks!.find((c) => c.text.includes('cannot start'))!;
    expect((vars.sections ?? [vars.headings]).map((p) => p.at(-1))).toContain('41.2 Variables');
    for (const word of ['startup', 'endwhile', 'underscores', 'Introduction']) expect(r.text).toContain(word);
  });

  it('leaves a <pre> of code with a rule line alone', () => {
    expect(isVimHelp('int main() {\n  /* ============================== */\n  return 0;\n}')).toBe(false);
    expect(isVimHelp('Results\n==============================\nall *fine*')).toBe(false);
  });
});

describe('Vim help pages, bounded', () => {
  it('reads a help file of 200,000 example lines without running out of stack', async () => {
    const example = Array.from({ length: 200_000 }, (_, i) => `\tcall Step(${i})`).join('\n');
    const html = `<html><body><pre>*big.txt*\tA big file\n==============================================================================\n*1.1*\tSteps\t\t*steps*\n\nRun these: &gt;\n${example}\n&lt;\nDone.\n</pre></body></html>`;
    const r = await extractText(Buffer.from(html), { ...opts, chunking: undefined, maxTextChars: 10_000_000 });
    expect(r.markdown).toContain('## 1.1 Steps');
    expect(r.markdown).toContain('call Step(199999)');
  });

  it('reads a section title of 100,000 anchors that do not end it in one walk back from its end', async () => {
    const tags = Array.from({ length: 100_000 }, (_, i) => `*t${i}*`).join(' ');
    const html = `<html><body><pre>*big.txt*\tA big file\n==============================================================================\n*1.1*\tSteps\t\t${tags} end\n\nText of the section.\n</pre></body></html>`;
    const r = await extractText(Buffer.from(html), { ...opts, chunking: undefined, maxTextChars: 10_000_000 });
    // Anchors inside a title keep their names; only those that end it go.
    expect(r.markdown).toMatch(/## 1\.1 Steps t0 t1 .* t99999 end\n/);
  });

  it('drops the anchors that end a section title', async () => {
    const html = `<html><body><pre>*x.txt*\tX\n==============================================================================\n*1.1*\tSteps\t\t*steps* *step-list*\n\nText.\n</pre></body></html>`;
    const r = await extractText(Buffer.from(html), { ...opts, chunking: undefined });
    expect(r.markdown).toContain('## 1.1 Steps\n');
  });

  it('finds the <pre> of a body of 250,000 paragraphs without sorting them', async () => {
    const html = `<html><body>${'<p>words</p>'.repeat(250_000)}<pre>*x.txt*\tX\n==============================================================================\n*1.1*\tLast\t\t*last*\n\nThe end.\n</pre></body></html>`;
    const r = await extractText(Buffer.from(html), { ...opts, chunking: undefined, maxTextChars: 10_000_000 });
    expect(r.markdown).toContain('## 1.1 Last');
  });
});
