/**
 * "Did you mean" for an unknown field: the known name nearest to what was
 * sent, so a client that wrote `knowledge_base_text` or `texts` learns the
 * right name from the 400 itself.
 */

/** Edits (insert, delete, substitute) between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** Names longer than this are not compared (a field name is bounded by busboy, 100 bytes). */
const MAX_COMPARED = 100;

/**
 * The known name nearest to `sent`, or undefined when none is close: case and
 * `-`/`_` are ignored, a known name that ends with what was sent (`texts` for
 * `knowledge_base_texts`) counts as close, else at most a third of the
 * characters may differ.
 */
export function nearestName(sent: string, known: Iterable<string>): string | undefined {
  if (sent.length === 0 || sent.length > MAX_COMPARED) return undefined;
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  const wanted = norm(sent);
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const candidate = norm(name);
    const d = candidate.endsWith(`_${wanted}`) ? 1 : distance(wanted, candidate);
    if (d <= Math.max(2, Math.floor(candidate.length / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** The `validationErrors` message for an unknown field. */
export function unknownFieldMessage(sent: string, known: Iterable<string>): string {
  const near = nearestName(sent, known);
  return near ? `unknown field; did you mean "${near}"?` : 'unknown field';
}
