import { createRequire } from 'node:module';
import { readPlainXml, type ElementFactory, type MammothElement } from './xml-reader.js';

interface MammothXml {
  Element: new (...args: Parameters<ElementFactory>) => MammothElement;
  readString(xml: string, namespaceMap?: Record<string, string>): Promise<unknown>;
}

const require = createRequire(import.meta.url);
// mammoth's readers call `readString` on this module object at each use, so they see the swap.
const mammothXml = require('mammoth/lib/xml/index.js') as MammothXml & { fastReader?: true };

/**
 * WordprocessingML elements whose values never reach mammoth's HTML:
 * borders, shading, widths, spacing, colours, languages, layout flags, which
 * no reader of mammoth looks at (the names it reads are the ones in
 * `mammoth/lib/docx/*.js`), and a run's font and size (`w:rFonts`, `w:sz`),
 * which it keeps on the run but never writes. In a large table-heavy
 * document they are more than half of all elements, and building them only
 * to be passed over cost time and garbage collection. None holds text or
 * is iterated into, so the HTML is the same without them.
 */
export const UNREAD_ELEMENTS: ReadonlySet<string> = new Set([
  'w:adjustRightInd', 'w:autoSpaceDE', 'w:autoSpaceDN', 'w:bCs', 'w:bdr', 'w:cantSplit', 'w:color',
  'w:contextualSpacing', 'w:gridAfter', 'w:gridBefore', 'w:hideMark', 'w:iCs', 'w:keepLines', 'w:keepNext',
  'w:kern', 'w:lang', 'w:noProof', 'w:pBdr', 'w:position', 'w:rFonts', 'w:shd', 'w:snapToGrid', 'w:spacing', 'w:sz',
  'w:suppressAutoHyphens', 'w:szCs', 'w:tabs', 'w:tblBorders', 'w:tblCellMar', 'w:tblInd', 'w:tblLayout',
  'w:tblLook', 'w:tblW', 'w:tcBorders', 'w:tcMar', 'w:tcW', 'w:textAlignment', 'w:trHeight', 'w:vAlign',
  'w:w', 'w:wAfter', 'w:wBefore', 'w:widowControl',
]);

/**
 * Makes mammoth read XML parts with {@link readPlainXml} (one streaming pass)
 * instead of building an @xmldom/xmldom DOM and copying it into its own tree:
 * on a 12.6 MB `document.xml` that DOM took most of the time, a third of it in
 * garbage collection, and ~700 MB of memory. A part the streaming reader
 * leaves aside goes to mammoth's reader as before. Elements mammoth never
 * reads ({@link UNREAD_ELEMENTS}) are left out of the tree. Idempotent.
 */
export function useStreamingXmlReader(): void {
  if (mammothXml.fastReader) return;
  const original = mammothXml.readString.bind(mammothXml);
  const makeElement: ElementFactory = (name, attributes, children) => new mammothXml.Element(name, attributes, children);
  mammothXml.readString = (xml, namespaceMap = {}) => {
    const root = readPlainXml(xml, namespaceMap, makeElement, UNREAD_ELEMENTS);
    return root ? Promise.resolve(root) : original(xml, namespaceMap);
  };
  mammothXml.fastReader = true;
}

/** mammoth's own reader, for comparing the two. */
export const mammothReadString = mammothXml.readString.bind(mammothXml);
