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
 * Makes mammoth read XML parts with {@link readPlainXml} (one streaming pass)
 * instead of building an @xmldom/xmldom DOM and copying it into its own tree:
 * on a 12.6 MB `document.xml` that DOM took most of the time, a third of it in
 * garbage collection, and ~700 MB of memory. A part the streaming reader
 * leaves aside goes to mammoth's reader as before. Idempotent.
 */
export function useStreamingXmlReader(): void {
  if (mammothXml.fastReader) return;
  const original = mammothXml.readString.bind(mammothXml);
  const makeElement: ElementFactory = (name, attributes, children) => new mammothXml.Element(name, attributes, children);
  mammothXml.readString = (xml, namespaceMap = {}) => {
    const root = readPlainXml(xml, namespaceMap, makeElement);
    return root ? Promise.resolve(root) : original(xml, namespaceMap);
  };
  mammothXml.fastReader = true;
}

/** mammoth's own reader, for comparing the two. */
export const mammothReadString = mammothXml.readString.bind(mammothXml);
