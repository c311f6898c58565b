import type { CheerioAPI } from 'cheerio/slim';
import type { Element } from 'domhandler';

/**
 * The main container of pages written by documentation generators, and of
 * pages that mark it themselves (`<main>`, `role="main"`). Such a page says
 * where its content is, and taking that whole is worth more than scoring:
 * a reader who loses a quarter of a manual page is worse off than one who
 * keeps a menu.
 */

// DocBook's XSL wraps a page's content in one division named after its kind.
const DOCBOOK = /^(?:book|part|chapter|appendix|preface|article|sect[1-5]|section|refentry|reference|glossary|index|bibliography|colophon|set|dedication)$/;
const DOCBOOK_CHROME = /(?:^|\s)(?:navheader|navfooter)(?:\s|$)/;

// Each rule: which generator, and the containers of its content in document order.
const RULES: Array<{ generator?: RegExp; containers: string[] }> = [
  // Sphinx, MkDocs (role="main"), rustdoc, Material for MkDocs, and any page that marks its main element.
  { containers: ['[role="main"]'] },
  { containers: ['#main-content'] },
  { containers: ['main'] },
  { generator: /doxygen/i, containers: ['div.header', 'div.contents'] },
  { generator: /javadoc/i, containers: ['div.header', 'div.contentContainer'] },
  { generator: /asciidoc/i, containers: ['#header', '#content'] },
];

/**
 * The elements holding the page's main content when a generator or the page
 * itself names them, in document order; undefined when none does (the
 * caller then scores the page). Texinfo's pages are their body.
 */
export function generatorMain($: CheerioAPI, body: Element): Element[] | undefined {
  const generator = $('meta[name="generator" i]').attr('content') ?? '';
  for (const rule of RULES) {
    if (rule.generator && !rule.generator.test(generator)) continue;
    const found = rule.containers.flatMap((selector) => firstWithin($, body, selector));
    // A container inside another one found is already part of it.
    const outer = found.filter((el) => !found.some((other) => other !== el && $(other).find(el).length > 0));
    if (outer.length && textLength($, outer) > 0) return outer;
  }
  const docbook = $(body).children('div').toArray().filter((el) => (el.attribs.class ?? '').split(/\s+/).some((c) => DOCBOOK.test(c)));
  if (/docbook/i.test(generator) || (docbook.length && !docbook.some((el) => DOCBOOK_CHROME.test(el.attribs.class ?? '')))) {
    if (docbook.length) return docbook;
  }
  if (/makeinfo|texi2any/i.test(generator)) return [body];
  return undefined;
}

/**
 * The first element matching `selector` inside `body`, as a list of one or none. Searched from the
 * document's root: cheerio's `find` on an element first lists that element's children and then
 * removes those contained in one another, which is quadratic in their number (a body of 250,000
 * paragraphs took minutes).
 */
function firstWithin($: CheerioAPI, body: Element, selector: string): Element[] {
  const first = $.root().find(selector).toArray().find((el) => isInside(el, body));
  return first ? [first] : [];
}

function isInside(el: Element, ancestor: Element): boolean {
  for (let node = el.parent; node; node = node.parent) if (node === ancestor) return true;
  return false;
}

function textLength($: CheerioAPI, els: Element[]): number {
  return els.reduce((n, el) => n + $(el).text().trim().length, 0);
}
