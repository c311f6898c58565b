/**
 * A forward-only reader of XML tags, for the parts that are too large to
 * parse into objects (a worksheet of a few hundred thousand cells, its
 * shared strings). It yields one tag at a time, with its local name
 * (namespace prefix removed, as the object parser does), and reads the text
 * that follows a tag on request; comments and processing instructions are
 * skipped, CDATA is text. It does not check well-formedness: like the object
 * parser it reads what is there. The caller refuses a DOCTYPE first (see
 * `refuseDoctype`), so no entity beyond the five predefined ones exists.
 */
export class XmlScanner {
  /** Local name of the current tag. */
  name = '';
  /** True for `</name>`. */
  closing = false;
  /** True for `<name/>`. */
  empty = false;
  private pos = 0;
  private attrFrom = 0;
  private attrTo = 0;

  constructor(private readonly xml: string) {}

  /** Moves to the next tag; false at the end of the text. */
  next(): boolean {
    const xml = this.xml;
    for (;;) {
      const lt = xml.indexOf('<', this.pos);
      if (lt < 0) {
        this.pos = xml.length;
        return false;
      }
      const first = xml.charCodeAt(lt + 1);
      if (first === 0x21 /* ! */ || first === 0x3f /* ? */) {
        this.pos = skipMarkup(xml, lt);
        continue;
      }
      const gt = tagEnd(xml, lt + 1);
      this.closing = first === 0x2f;
      let i = this.closing ? lt + 2 : lt + 1;
      let nameFrom = i;
      while (i < gt) {
        const c = xml.charCodeAt(i);
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2f) break;
        if (c === 0x3a /* : */) nameFrom = i + 1;
        i++;
      }
      this.name = xml.slice(nameFrom, i);
      this.empty = xml.charCodeAt(gt - 1) === 0x2f;
      this.attrFrom = i;
      this.attrTo = this.empty ? gt - 1 : gt;
      this.pos = gt + 1;
      return true;
    }
  }

  /**
   * The current tag's attributes by local name, values decoded. Only the
   * names in `wanted` are kept, so a cell costs no more than the few it has.
   */
  attrs<K extends string>(wanted: readonly K[]): Partial<Record<K, string>> {
    const out: Partial<Record<K, string>> = {};
    ATTR.lastIndex = 0;
    const text = this.xml.slice(this.attrFrom, this.attrTo);
    for (let m = ATTR.exec(text); m; m = ATTR.exec(text)) {
      const name = m[1]!.slice(m[1]!.indexOf(':') + 1) as K;
      if (!wanted.includes(name)) continue;
      const raw = m[2] ?? m[3] ?? '';
      out[name] = raw.includes('&') ? decodeXmlText(raw) : raw;
    }
    return out;
  }

  /**
   * The character data from here to the next tag, entities decoded and CDATA
   * sections taken as they are; comments inside are skipped.
   */
  text(): string {
    const xml = this.xml;
    let out = '';
    for (;;) {
      const lt = xml.indexOf('<', this.pos);
      const end = lt < 0 ? xml.length : lt;
      if (end > this.pos) {
        const raw = xml.slice(this.pos, end);
        out += raw.includes('&') ? decodeXmlText(raw) : raw;
      }
      this.pos = end;
      if (lt < 0) return out;
      if (xml.startsWith('<![CDATA[', lt)) {
        const close = xml.indexOf(']]>', lt + 9);
        out += xml.slice(lt + 9, close < 0 ? xml.length : close);
        this.pos = close < 0 ? xml.length : close + 3;
      } else if (xml.startsWith('<!--', lt)) {
        this.pos = skipMarkup(xml, lt);
      } else {
        return out;
      }
    }
  }

  /** Skips to the end of the current element (nothing to do for an empty or closing tag). */
  skipElement(): void {
    if (this.empty || this.closing) return;
    const name = this.name;
    let depth = 1;
    while (depth > 0 && this.next()) {
      if (this.name !== name || this.empty) continue;
      depth += this.closing ? -1 : 1;
    }
  }
}

const ATTR = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The `>` that ends a tag opened before `from`, quoted attribute values (which may hold `>`) skipped. */
function tagEnd(xml: string, from: number): number {
  let quote = 0;
  for (let i = from; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) {
      quote = c;
    } else if (c === 0x3e) {
      return i;
    }
  }
  return xml.length;
}

/** Where a comment, CDATA section, processing instruction or declaration starting at `lt` ends. */
function skipMarkup(xml: string, lt: number): number {
  const close = xml.startsWith('<!--', lt) ? '-->' : xml.startsWith('<![CDATA[', lt) ? ']]>' : xml.charCodeAt(lt + 1) === 0x3f ? '?>' : '>';
  const at = xml.indexOf(close, lt + 2);
  return at < 0 ? xml.length : at + close.length;
}

const ENTITY = /&(?:#x([0-9a-f]+)|#(\d+)|(amp|lt|gt|quot|apos));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The five XML entities and character references, nothing else: a part's own entities never exist here. */
export function decodeXmlText(value: string): string {
  return value.replace(ENTITY, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name.toLowerCase()] ?? whole;
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}
