import { Parser } from 'htmlparser2';

/** An element of mammoth's own XML tree (`mammoth/lib/xml/nodes.js`), as its readers expect it. */
export interface MammothElement {
  type: 'element';
  name: string;
  attributes: Record<string, string>;
  children: MammothNode[];
}
export type MammothNode = MammothElement | { type: 'text'; value: string };
/** Builds an element; mammoth's readers need its `Element` class, whose methods they call. */
export type ElementFactory = (name: string, attributes: Record<string, string>, children: MammothNode[]) => MammothElement;

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Thrown when a part uses what this reader leaves to the full parser (a DTD, an unknown entity, a tag left open). */
class NotPlain extends Error {}

interface Open {
  name: string;
  /** The element's name in mammoth's tree. */
  qualified: string;
  namespaces: Map<string, string | undefined>;
  attributes: Array<[string, string]>;
  children: MammothNode[];
  /** Inside an element left out of the tree: read and checked, not built. */
  skipped: boolean;
}

/**
 * Reads one XML part into mammoth's tree in a single streaming pass, the
 * way mammoth's own reader does through a full DOM (@xmldom/xmldom) that it
 * then copies: names get the prefix `namespaceMap` gives their namespace URI
 * (or `{uri}`), text runs between tags become text nodes with the five XML
 * entities and character references decoded, comments, CDATA and processing
 * instructions are dropped, line endings are normalized as XML says.
 * Returns `undefined` for a part that is not plain well-formed XML of that
 * kind (a DOCTYPE, an unknown entity, a duplicate attribute, a prefix never
 * declared, a tag closed out of order or left open): the caller then uses
 * mammoth's reader, which reports the same errors it always did.
 * Elements named in `skip` (names as in the tree) are left out with all
 * they hold, though still checked as above, so a part is read or refused
 * exactly as without them.
 */
export function readPlainXml(
  xml: string,
  namespaceMap: Record<string, string>,
  makeElement: ElementFactory = (name, attributes, children) => ({ type: 'element', name, attributes, children }),
  skip: ReadonlySet<string> = NOTHING_SKIPPED,
): MammothElement | undefined {
  const root: Open = { name: '', qualified: '', namespaces: new Map([['xml', XML_NS]]), attributes: [], children: [], skipped: false };
  const stack: Open[] = [root];
  let text = '';
  let inCdata = false;
  const flush = () => {
    if (text !== '' && stack.length > 1) {
      const value = decode(text);
      const open = stack.at(-1)!;
      if (!open.skipped) open.children.push({ type: 'text', value });
    }
    text = '';
  };
  let attributes: Array<[string, string]> = [];
  const names = new QualifiedNames(namespaceMap);
  const source = xml.replace(/\r[\n\u0085]/g, '\n').replace(/[\r\u0085\u2028]/g, '\n');
  const parser = new Parser(
    {
      onattribute(name, value) {
        if (attributes.some(([n]) => n === name)) throw new NotPlain();
        attributes.push([name, decode(value.replace(/[\t\n\r]/g, ' '))]);
      },
      onopentag(name) {
        flush();
        let namespaces = stack.at(-1)!.namespaces;
        for (const [attr, value] of attributes) {
          if (attr !== 'xmlns' && !attr.startsWith('xmlns:')) continue;
          // A scope is copied only where it declares something: most elements share their parent's.
          if (namespaces === stack.at(-1)!.namespaces) namespaces = new Map(namespaces);
          namespaces.set(attr === 'xmlns' ? '' : attr.slice(6), value);
        }
        const qualified = names.element(namespaces, name);
        const skipped = stack.at(-1)!.skipped || skip.has(qualified);
        stack.push({ name, qualified, namespaces, attributes, children: [], skipped });
        attributes = [];
      },
      onclosetag(name, isImplied) {
        flush();
        const open = stack.pop();
        // htmlparser2 calls a self-closed tag's end implied too; any other implied end is a tag closed out of order or never.
        if (isImplied && !(source[parser.endIndex - 1] === '/' && source[parser.endIndex] === '>')) throw new NotPlain();
        if (!open || open.name !== name || stack.length === 0) throw new NotPlain();
        if (!open.skipped) stack.at(-1)!.children.push(toElement(open, names, makeElement));
        else for (const [qName] of open.attributes) names.attribute(open.namespaces, qName);
      },
      ontext(data) {
        if (!inCdata) text += data;
      },
      oncdatastart() {
        flush();
        inCdata = true;
      },
      oncdataend() {
        inCdata = false;
      },
      oncomment: flush,
      onprocessinginstruction(name) {
        if (name.toLowerCase() === '!doctype') throw new NotPlain();
        flush();
      },
    },
    { xmlMode: true, decodeEntities: false, recognizeCDATA: true },
  );
  try {
    // Text of the open element is flushed by each tag: one pass, no intermediate DOM.
    parser.end(source);
  } catch (err) {
    if (err instanceof NotPlain) return undefined;
    throw err;
  }
  const elements = root.children.filter((c): c is MammothElement => c.type === 'element');
  return stack.length === 1 && elements.length === 1 ? elements[0] : undefined;
}

const NOTHING_SKIPPED: ReadonlySet<string> = new Set();

function toElement(open: Open, names: QualifiedNames, makeElement: ElementFactory): MammothElement {
  const attributes: Record<string, string> = Object.create(null);
  for (const [qName, value] of open.attributes) attributes[names.attribute(open.namespaces, qName)] = value;
  return makeElement(open.qualified, attributes, open.children);
}

/**
 * The names elements and attributes get in mammoth's tree, made once per
 * namespace scope and raw name: a large part repeats a few dozen names
 * millions of times (`w:r`, `w:val`), and building each anew cost a string
 * per use, much of the reader's allocation. Most elements share their
 * parent's scope (see `onopentag`), so the cache stays small.
 */
class QualifiedNames {
  private readonly elements = new WeakMap<Map<string, string | undefined>, Map<string, string>>();
  private readonly attributes = new WeakMap<Map<string, string | undefined>, Map<string, string>>();

  constructor(private readonly namespaceMap: Record<string, string>) {}

  element(namespaces: Map<string, string | undefined>, qName: string): string {
    const cache = cacheFor(this.elements, namespaces);
    let name = cache.get(qName);
    if (name === undefined) {
      const colon = qName.indexOf(':');
      const uri = colon > 0 ? resolve(namespaces, qName.slice(0, colon)) : namespaces.get('');
      name = qualified(uri, colon > 0 ? qName.slice(colon + 1) : qName, this.namespaceMap);
      cache.set(qName, name);
    }
    return name;
  }

  attribute(namespaces: Map<string, string | undefined>, qName: string): string {
    const cache = cacheFor(this.attributes, namespaces);
    let name = cache.get(qName);
    if (name === undefined) {
      const colon = qName.indexOf(':');
      const prefix = colon > 0 ? qName.slice(0, colon) : undefined;
      // Declarations sit in the xmlns namespace; other unprefixed attributes in none.
      const uri = qName === 'xmlns' || prefix === 'xmlns' ? XMLNS_NS : prefix === undefined ? undefined : resolve(namespaces, prefix);
      name = qualified(uri, colon > 0 ? qName.slice(colon + 1) : qName, this.namespaceMap);
      cache.set(qName, name);
    }
    return name;
  }
}

function cacheFor<K extends object>(caches: WeakMap<K, Map<string, string>>, key: K): Map<string, string> {
  let cache = caches.get(key);
  if (!cache) caches.set(key, (cache = new Map()));
  return cache;
}

function resolve(namespaces: Map<string, string | undefined>, prefix: string): string {
  const uri = namespaces.get(prefix);
  if (uri === undefined) throw new NotPlain();
  return uri;
}

function qualified(uri: string | undefined, local: string, namespaceMap: Record<string, string>): string {
  if (!uri) return local;
  const mapped = namespaceMap[uri];
  return mapped ? `${mapped}:${local}` : `{${uri}}${local}`;
}

function decode(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&#?\w+;/g, (ref) => {
    const name = ref.slice(1, -1);
    const known = PREDEFINED[name];
    if (known !== undefined) return known;
    const code = /^#x[0-9a-fA-F]+$/.test(name) ? parseInt(name.slice(2), 16) : /^#\d+$/.test(name) ? Number(name.slice(1)) : NaN;
    if (!Number.isFinite(code) || code > 0x10ffff) throw new NotPlain();
    return String.fromCodePoint(code);
  });
}
