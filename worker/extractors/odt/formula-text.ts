import type { OfficePackage } from '../office/office-package.js';
import { XmlScanner } from '../office/xml-scan.js';

/** A MathML element read into a small tree: its local name, children and text. */
interface MathNode {
  name: string;
  children: MathNode[];
  text: string;
}

/**
 * The text of an embedded formula (`draw:object` pointing at a StarMath or
 * MathML object): its tokens in order, space-separated, with powers and
 * indices written as they read (`c²`, `x₁`, `e^(i π)`), not as a token
 * after their base (`c 2` would read as c times 2). Formula parts declare a
 * DOCTYPE (math.dtd), so no XML parser here may see them: the tag scanner
 * reads them, and it defines no entity and fetches nothing. The StarMath
 * source in `annotation` is left out (it repeats the formula).
 */
export function formulaText(pkg: OfficePackage, href: string | undefined): string {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return '';
  const dir = href.replace(/^\.\//, '').replace(/\/$/, '');
  const xml = pkg.has(`${dir}/content.xml`) ? pkg.text(`${dir}/content.xml`) : undefined;
  if (!xml || !/<(?:\w+:)?math\b/.test(xml)) return '';
  return render(readTree(new XmlScanner(xml))).replace(/\s+/g, ' ').trim();
}

const TOKENS = new Set(['mi', 'mn', 'mo', 'mtext', 'ms']);
// Bounds a hostile formula's nesting: deeper elements are read as their text.
const MAX_DEPTH = 64;

function readTree(scan: XmlScanner): MathNode {
  const root: MathNode = { name: '', children: [], text: '' };
  const stack = [root];
  while (scan.next()) {
    const top = stack[stack.length - 1]!;
    if (scan.closing) {
      if (stack.length > 1 && scan.name === top.name) stack.pop();
      continue;
    }
    if (scan.name === 'annotation' || scan.name === 'annotation-xml') {
      scan.skipElement();
      continue;
    }
    const node: MathNode = { name: scan.name, children: [], text: '' };
    top.children.push(node);
    if (scan.empty) continue;
    if (TOKENS.has(scan.name)) node.text = scan.text().trim();
    else if (stack.length < MAX_DEPTH) stack.push(node);
  }
  return root;
}

function render(node: MathNode): string {
  if (TOKENS.has(node.name)) return node.text;
  const parts = node.children.map(render);
  const [base = '', first = '', second = ''] = parts;
  switch (node.name) {
    case 'msup': return base + raised(first, SUPERSCRIPT, '^');
    case 'msub': return base + raised(first, SUBSCRIPT, '_');
    case 'msubsup': return base + raised(first, SUBSCRIPT, '_') + raised(second, SUPERSCRIPT, '^');
    case 'mfrac': return `${group(base)}/${group(first)}`;
    case 'msqrt': return `√${group(parts.join(' '))}`;
    default: return parts.join(' ');
  }
}

/** A script as Unicode super- or subscript characters when each has one, else `^` or `_` and the script. */
function raised(script: string, chars: Record<string, string>, mark: string): string {
  const bare = script.replace(/\s+/g, '');
  if (bare !== '' && [...bare].every((c) => chars[c] !== undefined)) return [...bare].map((c) => chars[c]).join('');
  return `${mark}${group(script)}`;
}

const group = (text: string) => (/\s/.test(text.trim()) ? `(${text.trim()})` : text.trim());

const SUPERSCRIPT: Record<string, string> = Object.fromEntries([...'0123456789+-−=()ni'].map((c, i) => [c, '⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ'[i]!]));
const SUBSCRIPT: Record<string, string> = Object.fromEntries([...'0123456789+-−=()'].map((c, i) => [c, '₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎'[i]!]));
