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
 * A name in one style for comparing: `knowledgeBaseTexts`, `knowledge-base-texts`
 * and `KNOWLEDGE_BASE_TEXTS` all read `knowledge_base_texts`, so a client that
 * wrote the other style is pointed at the name this API uses.
 */
const norm = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/-/g, '_');

/**
 * The known name nearest to `sent`, or undefined when none is close: case,
 * `-`/`_` and camelCase against snake_case are ignored, a known name that
 * ends with what was sent (`texts` for `knowledge_base_texts`) counts as
 * close, else at most a third of the characters may differ.
 */
export function nearestName(sent: string, known: Iterable<string>): string | undefined {
  if (sent.length === 0 || sent.length > MAX_COMPARED) return undefined;
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

/**
 * The message for keys a JSON object does not have: each one named, with the
 * nearest known key where one is close, e.g. `unknown field "read_only"; did
 * you mean "readOnly"?`.
 */
export function unknownKeysMessage(sent: readonly string[], known: readonly string[]): string {
  const one = (k: string): string => {
    const near = nearestName(k, known);
    return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
  };
  if (sent.length === 1) {
    const near = nearestName(sent[0]!, known);
    return `unknown field "${sent[0]}"${near ? `; did you mean "${near}"?` : `; allowed: ${known.join(', ')}`}`;
  }
  return `unknown fields ${sent.slice(0, 10).map(one).join(', ')}; allowed: ${known.join(', ')}`;
}

/** The parts of a zod issue this error function reads: the unknown keys and the object schema that refused them. */
interface StrictIssue {
  code?: string;
  keys?: readonly string[];
  inst?: unknown;
}

/**
 * The `error` option of a JSON body's `z.strictObject`: unknown keys get the
 * "did you mean" of form fields (known keys read from the schema itself, so
 * the list cannot drift), anything else that is not an object gets `otherwise`.
 */
export function strictFieldsError(otherwise?: string): (iss: StrictIssue) => string | undefined {
  return (iss) => {
    if (iss.code === 'unrecognized_keys') {
      const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape ?? {};
      return unknownKeysMessage(iss.keys ?? [], Object.keys(shape));
    }
    return iss.code === 'invalid_type' ? otherwise : undefined;
  };
}
