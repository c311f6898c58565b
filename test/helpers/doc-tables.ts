import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/*
 * Reference tables in docs/ that tests hold to the code: the configuration
 * table and the refused ports. The tests read only these tables, never prose,
 * so rewording the documentation cannot break them while a wrong row does.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The body rows of the first table under a heading of a Markdown file in the
 * repository, as trimmed cells (header and separator rows dropped).
 *
 * @param file - path from the repository root, e.g. `docs/configuration.md`
 * @param heading - the heading's text without its `#`s, matched exactly
 * @throws when the heading is missing or has no table before the next heading,
 *   so a moved table fails the test instead of passing on nothing
 */
export function docTable(file: string, heading: string): string[][] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  if (rows.length < 3) throw new Error(`${file}, "${heading}": no table with body rows`);
  // rows[0] is the header, rows[1] the |---| separator.
  return rows.slice(2);
}

/**
 * The variables of `docs/configuration.md` with their documented default: the
 * default cell when it is one code value (`` `3000` ``), else undefined (unset,
 * or a default described in words such as "half of `EXTRACT_MEMORY_MB`").
 * A row may name several variables (`BULL_BOARD_USER`, `BULL_BOARD_PASSWORD`).
 */
export function configurationTable(): Map<string, string | undefined> {
  const table = new Map<string, string | undefined>();
  for (const [names = '', fallback = ''] of docTable('docs/configuration.md', 'Configuration')) {
    const value = /^`([^`]*)`$/.exec(fallback)?.[1];
    for (const m of names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) table.set(m[1]!, value);
  }
  return table;
}
