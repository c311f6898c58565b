import type { AnyNode, Element } from 'domhandler';

/**
 * Headings of a Word document written without heading styles, found from
 * how its paragraphs look. Precision comes first: a wrong heading puts
 * every chunk after it under a false path, a missed one only leaves them
 * without one. So only body paragraphs are read (never a table cell or a
 * list item), only in a document with no heading style at all, and only:
 *
 * - a numbered section title (`2.3 Sampling`, `4. Results`): a number of
 *   up to four levels, then a capital; bold, or in a document with at least
 *   two dotted ones; the numbers' first parts never going back (the longest
 *   such run is kept); not a line of a table of contents (a page number at
 *   its end, a title met again further on, a title followed by another of
 *   its own depth);
 * - a bold line: the whole paragraph bold, short, with no final period
 *   (or comma, colon, semicolon), not right under another bold line, not
 *   where more than half of the paragraphs are bold.
 *
 * Either is followed by body text (a paragraph that is not bold and is a
 * sentence or five words at least, or a list or a table), or a numbered
 * title by its first subsection's title.
 * Numbered titles take their depth as level; a bold line sits one level
 * under the numbered title before it (level 1 when there is none).
 */

/** Longest heading, in characters and in words. */
const MAX_CHARS = 100;
const MAX_WORDS = 14;
// `Table 4.1. Module mappings`, `Figure 2: Flow`: a caption, not a section.
const CAPTION = /^\p{L}+\.?\s+\d+(?:\.\d+)*[.:]\s/u;
const NUMBERED = /^(\d{1,2}(?:\.\d{1,2}){0,3})(\.?)\s+(?=[\p{Lu}\p{Lt}\p{Lo}])/u;

interface Candidate { el: Element; at: number; text: string; bold: boolean; number?: number[]; dotted: boolean; sub: boolean }

/** Turns the style-free headings among `nodes` (the top level of mammoth's HTML) into `h1`–`h6`, in place; returns how many. */
export function markStyleFreeHeadings(nodes: readonly AnyNode[]): number {
  // Bookmarks (`<a id>` with no text) sit between paragraphs and separate nothing.
  const blocks = nodes.filter((n): n is Element => n.type === 'tag' && !((n as Element).name === 'a' && textOf(n).trim() === ''));
  if (blocks.some((el) => /^h[1-6]$/.test(el.name) || hasHeading(el))) return 0;
  const paragraphs = blocks.filter((el) => el.name === 'p' && textOf(el).trim() !== '');
  const boldShare = paragraphs.filter(isAllBold).length / Math.max(1, paragraphs.length);

  const found: Candidate[] = [];
  blocks.forEach((el, i) => {
    if (el.name !== 'p') return;
    const raw = textOf(el);
    // A line of a table of contents ends with its page number after a tab or dot leaders.
    if (/(?:\t|\.{3,}|…)\s*\d+\s*$/.test(raw)) return;
    const text = raw.replace(/\s+/g, ' ').trim();
    if (text === '' || text.length > MAX_CHARS || text.split(' ').length > MAX_WORDS || /[.,;:]$/.test(text)) return;
    if (!/^[\p{Lu}\p{Lt}\p{Lo}\p{N}]/u.test(text) || CAPTION.test(text)) return;
    const m = NUMBERED.exec(text);
    // A section's title may stand right above its first subsection's (`2` above `2.1`); a title
    // above one of its own depth is a line of a table of contents.
    const next = blocks[i + 1];
    const nextNumber = m && next?.name === 'p' ? NUMBERED.exec(textOf(next).trim())?.[1] : undefined;
    const sub = nextNumber !== undefined && nextNumber.startsWith(`${m![1]!}.`);
    if (nextNumber !== undefined ? !sub : !followedByBody(next)) return;
    const bold = isAllBold(el);
    // Under another bold line it is one of a run of labels (a form's fields), or a title's second line.
    if (bold && !m && blocks[i - 1]?.name === 'p' && isAllBold(blocks[i - 1]!)) return;
    const number = m ? m[1]!.split('.').map(Number) : undefined;
    if (bold || number) found.push({ el, at: i, text, bold, ...(number ? { number } : {}), dotted: (number?.length ?? 0) > 1, sub });
  });

  // A title met again further on was an entry of a table of contents.
  const later = new Map<string, number>();
  found.forEach((c, i) => later.set(c.text, i));
  const candidates = found.filter((c, i) => !c.number || later.get(c.text) === i);

  const numbered = candidates.filter((c) => c.number);
  const dotted = numbered.filter((c) => c.dotted);
  const eligible = numbered.filter((c) => c.bold || dotted.length >= 2);
  const kept = new Set<Candidate>(inOrder(eligible));
  // A document that bolds half its paragraphs uses bold for emphasis, not for its sections.
  if (boldShare <= 0.5) for (const c of candidates) if (c.bold && !c.number) kept.add(c);

  // A title standing on its first subsection's is one only if that subsection is one.
  for (let i = candidates.length - 1; i >= 0; i--) {
    const c = candidates[i]!;
    if (c.sub && kept.has(c) && !(candidates[i + 1] && kept.has(candidates[i + 1]!) && candidates[i + 1]!.at === c.at + 1)) kept.delete(c);
  }

  let depth = 0;
  let count = 0;
  for (const c of candidates) {
    if (!kept.has(c)) continue;
    const level = c.number ? Math.min(6, c.number.length) : Math.min(6, depth + 1);
    if (c.number) depth = c.number.length;
    asHeading(c.el, level);
    count++;
  }
  return count;
}

/**
 * The longest run of numbered titles whose first numbers never go back
 * (a longest non-decreasing subsequence): a stray `7.` before `1.`, such as
 * a table of contents' last line, is left out, not taken as the start.
 */
function inOrder(numbered: readonly Candidate[]): Candidate[] {
  const tails: number[] = [];
  const previous: number[] = [];
  numbered.forEach((c, i) => {
    const major = c.number![0]!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (numbered[tails[mid]!]!.number![0]! <= major) lo = mid + 1;
      else hi = mid;
    }
    previous[i] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = i;
  });
  const out: Candidate[] = [];
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) out.push(numbered[i]!);
  return out.reverse();
}

/** True when every word of the paragraph is inside a `strong` (mammoth's bold). */
function isAllBold(el: Element): boolean {
  let bold = false;
  const walk = (node: AnyNode, inBold: boolean): boolean => {
    if (node.type === 'text') {
      if (!/\S/.test((node as unknown as { data: string }).data)) return true;
      if (inBold) bold = true;
      return inBold;
    }
    if (node.type !== 'tag') return true;
    const e = node as Element;
    if (e.name === 'img') return false;
    return ((e.children ?? []) as AnyNode[]).every((c) => walk(c, inBold || e.name === 'strong' || e.name === 'b'));
  };
  return walk(el, false) && bold;
}

function followedByBody(next: Element | undefined): boolean {
  if (!next) return false;
  if (next.name === 'ul' || next.name === 'ol' || next.name === 'table') return true;
  if (next.name !== 'p' || isAllBold(next)) return false;
  // A sentence or a few words at least: a form's label above its value ("Name", "Jane Doe") is not a section.
  const text = textOf(next).trim();
  return text.split(/\s+/).length >= 5 || /[.!?:。]$/.test(text);
}

function hasHeading(el: Element): boolean {
  const stack: AnyNode[] = [...((el.children ?? []) as AnyNode[])];
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (n.type !== 'tag') continue;
    if (/^h[1-6]$/.test((n as Element).name)) return true;
    for (const c of ((n as Element).children ?? []) as AnyNode[]) stack.push(c);
  }
  return false;
}

function textOf(node: AnyNode): string {
  if (node.type === 'text') return (node as unknown as { data: string }).data;
  if (node.type !== 'tag') return '';
  return (((node as Element).children ?? []) as AnyNode[]).map(textOf).join('');
}

/** The paragraph becomes a heading of `level`, its bold marks dropped (a heading is bold already). */
function asHeading(el: Element, level: number): void {
  el.name = `h${level}`;
  const unwrap = (parent: Element): void => {
    const out: AnyNode[] = [];
    for (const c of (parent.children ?? []) as AnyNode[]) {
      if (c.type === 'tag' && ((c as Element).name === 'strong' || (c as Element).name === 'b')) {
        unwrap(c as Element);
        for (const g of (c as Element).children as AnyNode[]) {
          g.parent = parent;
          out.push(g);
        }
      } else {
        if (c.type === 'tag') unwrap(c as Element);
        out.push(c);
      }
    }
    out.forEach((c, i) => {
      c.prev = out[i - 1] ?? null;
      c.next = out[i + 1] ?? null;
    });
    parent.children = out as Element['children'];
  };
  unwrap(el);
}
