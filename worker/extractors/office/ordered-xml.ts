import type { OrderedNode } from './office-package.js';

/** The element name of an ordered node (`undefined` for text). */
export function tagOf(node: OrderedNode): string | undefined {
  return Object.keys(node).find((k) => k !== ':@' && k !== '#text');
}

/** The children of an ordered node, in document order. */
export function childrenOf(node: OrderedNode | undefined): OrderedNode[] {
  const tag = node && tagOf(node);
  const kids = tag ? node[tag] : undefined;
  return Array.isArray(kids) ? (kids as OrderedNode[]) : [];
}

/** An attribute, namespace prefix removed (`r:id` is `id`). */
export function attrOf(node: OrderedNode | undefined, name: string): string | undefined {
  const attrs = node?.[':@'] as Record<string, unknown> | undefined;
  const value = attrs?.[`@${name}`];
  return value === undefined ? undefined : String(value);
}

/** The first child named `tag`. */
export function child(nodes: readonly OrderedNode[], tag: string): OrderedNode | undefined {
  return nodes.find((n) => tagOf(n) === tag);
}

/** Follows a path of child names from `nodes`. */
export function path(nodes: readonly OrderedNode[] | undefined, ...tags: string[]): OrderedNode | undefined {
  let current: OrderedNode | undefined;
  let level = nodes ?? [];
  for (const tag of tags) {
    current = child(level, tag);
    if (!current) return undefined;
    level = childrenOf(current);
  }
  return current;
}

/** Every descendant named `tag`, in document order (not looking inside a match). */
export function descendants(nodes: readonly OrderedNode[], tag: string, out: OrderedNode[] = []): OrderedNode[] {
  for (const n of nodes) {
    if (tagOf(n) === tag) out.push(n);
    else descendants(childrenOf(n), tag, out);
  }
  return out;
}

/**
 * The text of a DrawingML paragraph (`a:p`): its runs and fields in order,
 * a line break as a space. An equation (`mc:AlternateContent` holding
 * `a14:m`) is read from the branch that has DrawingML runs: its fallback
 * carries the equation's text as ordinary runs, as older viewers show it.
 */
export function paragraphText(p: OrderedNode): string {
  return runsText(childrenOf(p), 0).replace(/\s+/g, ' ').trim();
}

function runsText(nodes: readonly OrderedNode[], depth: number): string {
  let text = '';
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === 'r' || tag === 'fld') text += textIn(childrenOf(n).filter((c) => tagOf(c) === 't'));
    else if (tag === 'br') text += ' ';
    else if (tag === 'AlternateContent' && depth < 4) {
      const branches = childrenOf(n).filter((c) => tagOf(c) === 'Choice' || tagOf(c) === 'Fallback');
      const withRuns = branches.find((b) => childrenOf(b).some((c) => tagOf(c) === 'r' || tagOf(c) === 'fld'));
      if (withRuns) text += runsText(childrenOf(withRuns), depth + 1);
    }
  }
  return text;
}

/** All text under `nodes`. */
export function textIn(nodes: readonly OrderedNode[]): string {
  let text = '';
  for (const n of nodes) text += '#text' in n ? String(n['#text']) : textIn(childrenOf(n));
  return text;
}
