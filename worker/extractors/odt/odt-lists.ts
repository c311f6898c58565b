import { decodeEntities } from '../common/decode-entities.js';
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

/**
 * The text of an embedded formula (`draw:object` pointing at a StarMath or
 * MathML object): its MathML token elements in order, space-separated.
 * The part is read as text with a pattern, never parsed, since formula parts
 * declare a DOCTYPE (math.dtd) that no XML parser here may see.
 */
export function formulaText(pkg: OfficePackage, href: string | undefined): string {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return '';
  const dir = href.replace(/^\.\//, '').replace(/\/$/, '');
  const xml = pkg.has(`${dir}/content.xml`) ? pkg.text(`${dir}/content.xml`) : undefined;
  if (!xml || !/<(?:\w+:)?math\b/.test(xml)) return '';
  const semantics = xml.replace(/<(?:\w+:)?annotation\b[\s\S]*?<\/(?:\w+:)?annotation>/g, '');
  const tokens = [...semantics.matchAll(/<(?:\w+:)?(?:mi|mn|mo|mtext|ms)\b[^>]*>([^<]*)</g)].map((m) => decodeEntities(m[1]!).trim()).filter(Boolean);
  return tokens.join(' ');
}
