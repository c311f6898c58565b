import type { OfficePackage, OrderedNode } from '../office/office-package.js';
import { attrOf, childrenOf, descendants, path, tagOf } from '../office/ordered-xml.js';

/** How one level of a list style marks its items: numbers (from `start`) or bullets. */
export interface ListLevel {
  numbered: boolean;
  start: number;
}

/** The list styles of a document by name: automatic ones in `content.xml`, named ones in `styles.xml`. */
export function listStyles(pkg: OfficePackage, content: OrderedNode[]): Map<string, ListLevel[]> {
  const styles = new Map<string, ListLevel[]>();
  const roots = [
    path(pkg.orderedXml('styles.xml') ?? [], 'document-styles', 'styles'),
    path(content, 'document-content', 'automatic-styles'),
  ];
  for (const root of roots) {
    for (const style of descendants(childrenOf(root), 'list-style')) {
      const levels: ListLevel[] = [];
      for (const level of childrenOf(style)) {
        const n = Number(attrOf(level, 'level') ?? 0);
        if (!(n >= 1 && n <= 10)) continue;
        // A number level whose format is empty shows no number (LibreOffice's "None").
        const numbered = tagOf(level) === 'list-level-style-number' && (attrOf(level, 'num-format') ?? '') !== '';
        levels[n - 1] = { numbered, start: Number(attrOf(level, 'start-value') ?? 1) || 1 };
      }
      const name = attrOf(style, 'name');
      if (name) styles.set(name, levels);
    }
  }
  return styles;
}
