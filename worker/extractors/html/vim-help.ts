import type { CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';

/**
 * Vim's help files turned into HTML (vim2html.pl and the converters like it)
 * are one `<pre>`: sections between lines of `=` (or `-`), each opening with
 * a title line that carries `*tag*` anchors, `Header ~` lines, examples
 * after a line ending in ` >`. Read as they are, they make one code block
 * without a heading. This rewrites such a `<pre>` into headings, paragraphs
 * and code blocks, so the page gets sections and its prose reads as prose.
 */

// A rule between sections: Vim's help files draw them 78 columns wide.
const RULE = /^(=|-)\1{29,}\s*$/;
const TAG = /(?:^|\s)\*[^\s*|"]+\*(?=\s|$)/g;
const HEADER = /^(\S(?:[^\t]*?\S)?)\s+~$/;
// A line whose text is set in columns: a tab, or a run of three spaces, between words.
const COLUMNS = /\S(?:\t| {3,})\S/;

/** True when a `<pre>`'s text is a Vim help file: a section rule and at least two `*tag*` anchors. */
export function isVimHelp(text: string): boolean {
  if (!text.split('\n').some((line) => /^={30,}\s*$/.test(line))) return false;
  return (text.match(TAG)?.length ?? 0) >= 2;
}

/** Rewrites each Vim help `<pre>` inside `body` in place; returns how many it rewrote. */
export function expandVimHelp($: CheerioAPI, body: Element): number {
  let rewritten = 0;
  for (const pre of preElements(body)) {
    const text = $(pre).text();
    if (!isVimHelp(text)) continue;
    $(pre).replaceWith(vimHelpHtml(text));
    rewritten += 1;
  }
  return rewritten;
}

/**
 * The `<pre>` elements under `root`, in document order, found by one walk:
 * cheerio's `find` sorts its context (the root's children) first, which costs
 * the square of their number, and a body of 250,000 paragraphs ran past the
 * extraction's time limit.
 */
function preElements(root: Element): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const el = node as Element;
    // A <pre> holds no further <pre> worth reading apart: its text is read whole.
    if (el.name === 'pre') found.push(el);
    else for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]!);
  }
  return found;
}

/** The HTML a Vim help text reads as: `<h2>`/`<h3>` per section, `<h4>` per header line, `<p>` and `<pre>` blocks. */
export function vimHelpHtml(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let block: string[] = [];
  let level = 1;
  let titleNext = 0;
  const flush = () => {
    if (block.length > 0) out.push(blockHtml(block));
    block = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\s+$/, '');
    const rule = RULE.exec(line);
    if (rule) {
      flush();
      titleNext = rule[1] === '=' ? 2 : 3;
      continue;
    }
    if (line === '') {
      flush();
      continue;
    }
    if (titleNext > 0) {
      level = titleNext;
      titleNext = 0;
      const title = headingText(line);
      if (title !== '') {
        out.push(`<h${level}>${escapeHtml(title)}</h${level}>`);
        continue;
      }
    }
    const header = block.length === 0 ? HEADER.exec(line) : null;
    if (header && !COLUMNS.test(header[1]!) && header[1]!.length <= 60) {
      out.push(`<h${Math.min(level + 1, 6)}>${escapeHtml(header[1]!)}</h${Math.min(level + 1, 6)}>`);
      continue;
    }
    // An example: the line before ends in ` >` (or is only `>`), its lines are indented, a `<` or an unindented line ends it.
    if (/(?:^|\s)>$/.test(line)) {
      const lead = line.replace(/\s*>$/, '');
      if (lead !== '') block.push(lead);
      flush();
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const l = lines[j]!;
        if (/^</.test(l)) break;
        if (l.trim() !== '' && !/^\s/.test(l)) {
          j -= 1;
          break;
        }
        code.push(l);
      }
      while (code.length > 0 && code[code.length - 1]!.trim() === '') code.pop();
      if (code.length > 0) out.push(`<pre>${escapeHtml(dedent(code).join('\n'))}</pre>`);
      // A `<` line may hold text after the marker: it goes on as a line of its own.
      const closing = lines[j]?.startsWith('<') ? lines[j]!.slice(1) : '';
      if (closing.trim() !== '') block.push(closing.trim());
      i = j;
      continue;
    }
    block.push(line);
  }
  flush();
  return out.join('\n');
}

/** A section's title line without its anchors: leading `*01.1*` keeps its text, trailing `*set-option*` goes. */
function headingText(line: string): string {
  return withoutTrailingTags(line).replace(/\*([^\s*|"]+)\*/g, '$1').replace(/\s+/g, ' ').trim();
}

/**
 * `line` without the `*tag*` anchors that end it (each after white space),
 * found by one walk back from the end: a single pattern for the whole run of
 * them backtracks once per start, the square of their number on a line of
 * many tags.
 */
function withoutTrailingTags(line: string): string {
  const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
  let end = line.trimEnd().length;
  for (;;) {
    // `end` is just past a closing `*`: walk back over the tag's name to its opening `*`.
    if (line[end - 1] !== '*') break;
    let start = end - 2;
    while (start >= 0 && line[start] !== '*' && !isSpace(line[start]) && line[start] !== '|' && line[start] !== '"') start -= 1;
    if (start < 0 || line[start] !== '*' || start === end - 2 || !isSpace(line[start - 1])) break;
    end = start - 1;
    while (end > 0 && isSpace(line[end - 1])) end -= 1;
  }
  return line.slice(0, end);
}

/** A block set in columns or indented as a whole stays preformatted; any other is a paragraph. */
function blockHtml(lines: string[]): string {
  // One indented line without columns is a centred title, not code.
  const indented = lines.every((l) => /^(?:\t| {4,})/.test(l)) && (lines.length > 1 || COLUMNS.test(lines[0]!.trim()));
  const columns = lines.filter((l) => COLUMNS.test(l.trim())).length;
  if (indented || columns * 2 >= lines.length) return `<pre>${escapeHtml(dedent(lines).join('\n'))}</pre>`;
  return `<p>${escapeHtml(lines.map((l) => l.trim()).join('\n'))}</p>`;
}

function dedent(lines: string[]): string[] {
  const expanded = lines.map((l) => l.replace(/^\t+/, (tabs) => ' '.repeat(tabs.length * 8)));
  // A fold, not Math.min(...lines): a block of a few hundred thousand lines would overflow the stack.
  const indent = expanded.reduce((n, l) => (l.trim() === '' ? n : Math.min(n, /^ */.exec(l)![0].length)), Infinity);
  return expanded.map((l) => l.slice(Math.min(indent, /^ */.exec(l)![0].length)));
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
