import type { AnyNode, Element } from 'domhandler';
import { UNMEASURED } from './tags.js';
import { isHidden } from './to-text.js';

/** Text measures of one element, over what is left after chrome removal. */
interface Stats {
  text: number;
  link: number;
  commas: number;
  p: number;
  img: number;
  li: number;
  input: number;
  embed: number;
  heading: number;
  blockChild: boolean;
}

/** Where the article is and what inside or around it to leave out. */
export interface MainContent {
  /** The elements that make up the article, in document order; absent when nothing convincing was found. */
  nodes?: Element[];
  /** Elements the Markdown conversion leaves out (chrome, and inside the article the link lists and share bars). */
  removed: Set<Element>;
}

// The class and id patterns and weights of Mozilla's Readability, which the extraction is measured against.
const UNLIKELY = /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE = /and|article|body|column|content|main|mathjax|shadow/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE = /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
const SHARE = /(?:\b|_)(?:share|sharedaddy)(?:\b|_)/i;
const UNLIKELY_ROLES = new Set(['menu', 'menubar', 'complementary', 'navigation', 'alert', 'alertdialog', 'dialog']);
// Links that only move around the page or edit it: "Jump to navigation", Wikipedia's "[edit]".
const PAGE_TOOLS = /(?:^|\s)(?:mw-editsection|mw-jump-link|skip-link|skiplink|skip-to-content)(?:\s|$)/i;
const BLOCKS = new Set(['blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const SCORED = new Set(['p', 'pre', 'td', 'section', 'h2', 'h3', 'h4', 'h5', 'h6']);
const CLEANED = new Set(['div', 'section', 'ul', 'ol', 'table', 'form', 'fieldset', 'aside']);
// Below this many characters an article is not convincing unless it is most of the page.
const MIN_ARTICLE = 500;
const MIN_SHARE = 0.5;

/**
 * Finds the article of a web page by Readability's scoring: paragraphs score
 * by length and commas and pass the score to their ancestors, the best
 * candidate (weighed by class names and link density) is taken with its
 * related siblings, and inside it link lists, share bars and image strips are
 * left out. `chrome(el, inContent)` names page chrome to drop everywhere.
 */
export function findMainContent(body: Element, chrome: (el: Element, inContent: boolean) => boolean): MainContent {
  const removed = new Set<Element>();
  const stats = new Map<Element, Stats>();
  measure(body, chrome, removed, stats);
  const total = stats.get(body)?.text ?? 0;

  const scores = new Map<Element, number>();
  for (const [el, s] of stats) {
    const name = el.name.toLowerCase();
    if (s.text < 25 || !(SCORED.has(name) || (name === 'div' && !s.blockChild))) continue;
    const score = 1 + s.commas + Math.min(Math.floor(s.text / 100), 3);
    let ancestor = el.parent as Element | null;
    for (let level = 0; ancestor && ancestor.type === 'tag' && level < 5; level++, ancestor = ancestor.parent as Element | null) {
      if (!scores.has(ancestor)) scores.set(ancestor, initialScore(ancestor));
      scores.set(ancestor, scores.get(ancestor)! + score / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
    }
  }
  const ranked: Array<[Element, number]> = [];
  for (const [el, raw] of scores) {
    const s = stats.get(el);
    if (!s) continue;
    const score = raw * (1 - linkDensity(s));
    scores.set(el, score);
    ranked.push([el, score]);
  }
  ranked.sort((a, b) => b[1] - a[1]);
  let top = ranked[0]?.[0];
  const best = ranked[0]?.[1] ?? 0;
  if (!top || top === body) return { removed };
  top = climb(commonAncestor(top, ranked, body), body, scores, stats);

  const nodes = withSiblings(top, scores, stats, best);
  // What is left once the clean-up took link lists out: a layout table that holds the whole page can lose all of it.
  let length = nodes.reduce((n, el) => n + (stats.get(el)?.text ?? 0), 0);
  for (const node of nodes) length -= clean(node, stats, removed);
  if (length < MIN_ARTICLE && length < total * MIN_SHARE) return { removed };
  return { nodes, removed };
}

function measure(body: Element, chrome: (el: Element, inContent: boolean) => boolean, removed: Set<Element>, stats: Map<Element, Stats>): void {
  // Post-order without recursion: pages nest thousands of levels deep.
  const stack: Array<{ el: Element; content: boolean; exit: boolean }> = [{ el: body, content: false, exit: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { el } = frame;
    const name = el.name;
    if (frame.exit) {
      const s: Stats = { text: 0, link: 0, commas: 0, p: 0, img: 0, li: 0, input: 0, embed: 0, heading: 0, blockChild: false };
      for (const child of el.children as AnyNode[]) {
        if (child.type === 'text') {
          countText((child as unknown as { data: string }).data, s);
          continue;
        }
        const c = child.type === 'tag' ? stats.get(child as Element) : undefined;
        if (!c) continue;
        const childName = (child as Element).name;
        s.text += c.text;
        s.link += childName === 'a' ? c.text : c.link;
        s.commas += c.commas;
        s.p += c.p + (childName === 'p' ? 1 : 0);
        s.img += c.img + (childName === 'img' ? 1 : 0);
        s.li += c.li + (childName === 'li' ? 1 : 0);
        s.input += c.input + (childName === 'input' ? 1 : 0);
        s.embed += c.embed + (childName === 'iframe' || childName === 'video' || childName === 'object' || childName === 'embed' ? 1 : 0);
        s.heading += /^h[1-6]$/.test(childName) ? c.text : c.heading;
        if (BLOCKS.has(childName)) s.blockChild = true;
      }
      stats.set(el, s);
      continue;
    }
    if (el !== body && (UNMEASURED.has(name) || isHidden(el) || chrome(el, frame.content) || unlikely(el, name))) {
      if (name === 'img' || name === 'input' || name === 'iframe') stats.set(el, emptyStats());
      else removed.add(el);
      continue;
    }
    const content = frame.content || name === 'main' || name === 'article' || el.attribs.role === 'main';
    stack.push({ el, content, exit: true });
    for (const child of el.children as AnyNode[]) if (child.type === 'tag') stack.push({ el: child as Element, content, exit: false });
  }
}

/** Adds the length of `data` with whitespace runs collapsed, and its commas, without building strings. */
function countText(data: string, s: Stats): void {
  let length = 0;
  let commas = 0;
  let space = false;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0) {
      if (!space) length++;
      space = true;
      continue;
    }
    space = false;
    length++;
    if (c === 44 || c === 0xff0c || c === 0x3001) commas++;
  }
  s.text += length;
  s.commas += commas;
}

function emptyStats(): Stats {
  return { text: 0, link: 0, commas: 0, p: 0, img: 0, li: 0, input: 0, embed: 0, heading: 0, blockChild: false };
}

/**
 * Links that only move around the page or edit it: skip links, Wikipedia's
 * "[edit]", and a block of links to the next, previous and parent pages
 * (see {@link isRelNavigation}).
 */
export function isPageTool(el: Element): boolean {
  if (PAGE_TOOLS.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)) return true;
  if (el.name === 'a') return /^#/.test(el.attribs.href ?? '') && /^\s*(?:skip|jump) to\b/i.test(textOf(el));
  return isRelNavigation(el);
}

/** `rel` values of links between the pages of a manual (HTML's link types, and `previous` as Texinfo writes it). */
const NAV_RELS = new Set(['next', 'prev', 'previous', 'up', 'index', 'contents', 'toc', 'start', 'first', 'last', 'home', 'top']);
/** What a navigation block says around its links: labels such as "Next:" and separators. */
const NAV_LABELS = /^(?:[\s\u00a0[\](),;:|•·/-]|next|previous|prev|up|index|contents|top|home)*$/i;
/** A navigation block is short; a paragraph that links its next page among sentences is content. */
const NAV_MAX_CHARS = 400;
/** ... and has few nodes, which also bounds the look at each block of a page. */
const NAV_MAX_NODES = 100;

/**
 * A block made only of links to other pages of the same manual, each marked
 * as such by its `rel` (`next`, `prev`, `up`, `index`...), with nothing else
 * than labels ("Next:", "Up:") between them: the header Texinfo 6 writes on
 * every node (`Next: …, Previous: …, Up: … [Index]`), and its likes from
 * other generators that mark their links the same way.
 */
function isRelNavigation(el: Element): boolean {
  if (el.name !== 'p' && el.name !== 'div' && el.name !== 'td' && el.name !== 'tr' && el.name !== 'table') return false;
  const links: Element[] = [];
  let rest = '';
  let chars = 0;
  let nodes = 0;
  const walk = (node: Element): boolean => {
    for (const c of node.children as AnyNode[]) {
      if (++nodes > NAV_MAX_NODES) return false;
      if (c.type === 'text') {
        const data = (c as unknown as { data: string }).data;
        rest += data;
        chars += data.length;
      } else if (c.type === 'tag') {
        const child = c as Element;
        if (child.name === 'a') {
          links.push(child);
          chars += textOf(child).length;
        } else if (!walk(child)) {
          return false;
        }
      }
      if (chars > NAV_MAX_CHARS) return false;
    }
    return true;
  };
  if (!walk(el) || links.length === 0) return false;
  return links.every((a) => (a.attribs.rel ?? '').toLowerCase().split(/\s+/).some((r) => NAV_RELS.has(r))) && NAV_LABELS.test(rest);
}

function unlikely(el: Element, name: string): boolean {
  const role = el.attribs.role;
  if (role && UNLIKELY_ROLES.has(role.toLowerCase())) return true;
  if (name === 'a') return isPageTool(el);
  if (el.attribs.class === undefined && el.attribs.id === undefined) return false;
  const match = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
  if (PAGE_TOOLS.test(match)) return true;
  if (name === 'body' || name === 'main' || name === 'article') return false;
  return UNLIKELY.test(match) && !MAYBE.test(match) && !within(el, /^(?:table|code|pre)$/);
}

function within(el: Element, names: RegExp): boolean {
  for (let p = el.parent as Element | null, i = 0; p && p.type === 'tag' && i < 100; p = p.parent as Element | null, i++) if (names.test(p.name)) return true;
  return false;
}

function textOf(el: Element): string {
  let out = '';
  for (const c of el.children as AnyNode[]) out += c.type === 'text' ? (c as unknown as { data: string }).data : c.type === 'tag' ? textOf(c as Element) : '';
  return out;
}

function classWeight(el: Element): number {
  let weight = 0;
  for (const value of [el.attribs.class, el.attribs.id]) {
    if (!value) continue;
    if (NEGATIVE.test(value)) weight -= 25;
    if (POSITIVE.test(value)) weight += 25;
  }
  return weight;
}

function initialScore(el: Element): number {
  const name = el.name.toLowerCase();
  const base = name === 'div' ? 5
    : ['pre', 'td', 'blockquote'].includes(name) ? 3
    : ['address', 'ol', 'ul', 'dl', 'dd', 'dt', 'li', 'form'].includes(name) ? -3
    : ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'th'].includes(name) ? -5 : 0;
  return base + classWeight(el);
}

function linkDensity(s: Stats): number {
  return s.text > 0 ? s.link / s.text : 0;
}

/** When several near-best candidates share an ancestor with the best (steps of a how-to), that ancestor. */
function commonAncestor(top: Element, ranked: ReadonlyArray<[Element, number]>, body: Element): Element {
  const best = ranked[0]![1];
  const alternatives = ranked.slice(1, 5).filter(([, score]) => score >= best * 0.75).map(([el]) => el);
  if (alternatives.length < 3) return top;
  for (let parent = top.parent as Element | null; parent && parent !== body && parent.type === 'tag'; parent = parent.parent as Element | null) {
    if (alternatives.filter((alt) => contains(parent!, alt)).length >= 3) return parent;
  }
  return top;
}

function contains(ancestor: Element, el: Element): boolean {
  for (let p = el.parent, i = 0; p && i < 4096; p = p.parent, i++) if (p === ancestor) return true;
  return false;
}

/** Moves up to an ancestor that scores better, and past wrappers that hold nothing else. */
function climb(top: Element, body: Element, scores: Map<Element, number>, stats: Map<Element, Stats>): Element {
  let lastScore = scores.get(top)!;
  const threshold = lastScore / 3;
  for (let parent = top.parent as Element | null; parent && parent !== body && parent.type === 'tag'; parent = parent.parent as Element | null) {
    const score = scores.get(parent);
    if (score === undefined) continue;
    if (score < threshold) break;
    if (score > lastScore) {
      top = parent;
      break;
    }
    lastScore = score;
  }
  for (let parent = top.parent as Element | null; parent && parent !== body && parent.type === 'tag'; parent = parent.parent as Element | null) {
    const kids = (parent.children as AnyNode[]).filter((c) => c.type === 'tag' && stats.has(c as Element));
    if (kids.length !== 1) break;
    top = parent;
  }
  return top;
}

/** The top candidate with the siblings that score close to it or read as paragraphs of it. */
function withSiblings(top: Element, scores: Map<Element, number>, stats: Map<Element, Stats>, best: number): Element[] {
  const parent = top.parent as Element | null;
  if (!parent || parent.type !== 'tag') return [top];
  const threshold = Math.max(10, (scores.get(top) ?? best) * 0.2);
  const nodes: Element[] = [];
  for (const child of parent.children as AnyNode[]) {
    if (child.type !== 'tag') continue;
    const el = child as Element;
    const s = stats.get(el);
    if (!s) continue;
    if (el === top) {
      nodes.push(el);
      continue;
    }
    const sameClass = el.attribs.class !== undefined && el.attribs.class !== '' && el.attribs.class === top.attribs.class;
    const bonus = sameClass ? (scores.get(top) ?? 0) * 0.2 : 0;
    const ld = linkDensity(s);
    // Sections of one document often share the article's class (reference pages, numbered steps).
    if (sameClass && s.text >= 25 && ld < 0.25) {
      nodes.push(el);
      continue;
    }
    const sentence = el.name === 'p' && ((s.text > 80 && ld < 0.25) || (s.text > 0 && s.text <= 80 && ld === 0 && /\.( |$)/.test(textOf(el))));
    if ((scores.get(el) ?? -Infinity) + bonus >= threshold || sentence) nodes.push(el);
  }
  return nodes;
}

/** Marks link lists, share bars, image strips and form remnants inside the article as removed; returns the length of their text. */
function clean(root: Element, stats: Map<Element, Stats>, removed: Set<Element>): number {
  let dropped = 0;
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    const s = stats.get(el);
    if (!s || removed.has(el)) continue;
    if (el !== root && shouldDrop(el, s)) {
      removed.add(el);
      dropped += s.text;
      continue;
    }
    for (const child of el.children as AnyNode[]) if (child.type === 'tag') stack.push(child as Element);
  }
  return dropped;
}

function shouldDrop(el: Element, s: Stats): boolean {
  const name = el.name.toLowerCase();
  const match = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
  if (SHARE.test(match) && s.text < 500) return true;
  if (/^h[12]$/.test(name) && classWeight(el) < 0) return true;
  // A div of phrasing content is a paragraph to Readability, and paragraphs are not cleaned.
  if (!CLEANED.has(name) || (name === 'div' && !s.blockChild) || within(el, /^(?:pre|code)$/)) return false;
  if (name === 'table' && isDataTable(el, s)) return false;
  const weight = classWeight(el);
  if (weight < 0) return true;
  if (s.commas >= 10) return false;
  const isList = name === 'ul' || name === 'ol';
  const ld = linkDensity(s);
  const headingDensity = s.text > 0 ? s.heading / s.text : 0;
  return (s.img > 1 && s.p / s.img < 0.5 && !within(el, /^figure$/))
    || (!isList && s.li - 100 > s.p)
    || s.input > Math.floor(s.p / 3)
    || (!isList && headingDensity < 0.9 && s.text < 25 && (s.img === 0 || s.img > 2) && ld > 0)
    || (!isList && weight < 25 && ld > 0.2)
    || (weight >= 25 && ld > 0.5)
    || (s.embed === 1 && s.text < 75) || s.embed > 1;
}

function isDataTable(el: Element, s: Stats): boolean {
  if (el.attribs.role === 'presentation' || el.attribs.datatable === '0') return false;
  if (el.attribs.summary || /<(?:caption|th|thead|tfoot|colgroup|col)\b/.test(el.children.map((c) => (c.type === 'tag' ? `<${(c as Element).name}>` : '')).join(''))) return true;
  return s.li === 0 && s.text > 0 && s.link / s.text < 0.5;
}
