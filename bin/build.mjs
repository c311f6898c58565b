/**
 * The package's build: the typed client's `schema.d.ts` generated from the
 * app's OpenAPI document when the code it comes from changed, then
 * `tsc -p tsconfig.build.json`, then the Lua scripts copied beside the
 * compiled store, then `dist/.build-stamp` dated when the build began.
 * `npm run build` always builds; `npm start` runs it with `--if-stale`, which
 * builds only when an input is newer than the stamp, so a restart with nothing
 * changed costs a walk over the sources' mtimes. `--schema` only brings
 * `schema.d.ts` up to date (the typecheck and the client package's build).
 *
 * Plain JavaScript: it runs before anything is compiled.
 *
 *   node bin/build.mjs [--if-stale | --schema]
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Written after a successful build, dated when it began. */
export const STAMP = 'dist/.build-stamp';

/** tsc's incremental record, as tsconfig.build.json names it. */
const BUILD_INFO = 'dist/.tsbuildinfo';

/** Files besides tsconfig.build.json's folders whose change changes the output. */
const CONFIG_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * The typed client's types, generated from the served OpenAPI document by
 * scripts/openapi-types.ts and not committed: the document is made by the
 * code under these inputs, so the file is made again when one of them is
 * newer than it.
 */
export const SCHEMA = 'clients/typescript/src/schema.d.ts';
export const SCHEMA_INPUTS = ['api', 'shared', 'scripts/openapi-document.ts', 'scripts/openapi-types.ts', 'package-lock.json'];

/** What the build reads: the config files and every folder tsconfig.build.json includes. */
export function buildInputs(root) {
  const { include = [] } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  return [...CONFIG_FILES, ...include];
}

/**
 * Why `dist/` is out of date, or undefined when it is current: the stamp is
 * missing, or an input (a file, or a folder whose entries were added, removed
 * or renamed) was changed after the last build began.
 */
export function staleReason(root) {
  let built;
  try {
    built = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return 'no earlier build';
  }
  for (const input of buildInputs(root)) {
    const changed = changedSince(join(root, input), built);
    if (changed !== undefined) return `${relative(root, changed)} changed since the last build`;
  }
  return undefined;
}

/** Why `schema.d.ts` must be generated, or undefined when it is current. */
export function schemaStaleReason(root) {
  let made;
  try {
    made = statSync(join(root, SCHEMA)).mtimeMs;
  } catch {
    return `no ${SCHEMA}`;
  }
  for (const input of SCHEMA_INPUTS) {
    const changed = changedSince(join(root, input), made);
    if (changed !== undefined) return `${relative(root, changed)} changed since it was generated`;
  }
  return undefined;
}

/**
 * Generates `schema.d.ts` when it is stale and dates it `asOf` (when the
 * build began), so an input changed while it was generated is newer than it
 * and, being no newer than the stamp, the file does not make the next
 * `--if-stale` build again. The exit code of the generator (0 when current).
 */
export function ensureSchema(root, asOf = new Date()) {
  const reason = schemaStaleReason(root);
  if (reason === undefined) return 0;
  process.stderr.write(`kb-ingest: generating ${SCHEMA} (${reason})\n`);
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi-types.ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (made.status !== 0) return made.status ?? 1;
  utimesSync(join(root, SCHEMA), asOf, asOf);
  // A first generation adds an entry to its folder, which would date the folder after the stamp.
  if (reason === `no ${SCHEMA}`) utimesSync(join(root, dirname(SCHEMA)), asOf, asOf);
  return 0;
}

/**
 * The first path under `path` (itself included) modified after `time`;
 * node_modules is not an input, nor a `dist` folder (the client package's
 * own build output, under clients/).
 */
function changedSince(path, time) {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (stat.mtimeMs > time) return path;
  if (!stat.isDirectory()) return undefined;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const changed = changedSince(join(path, entry), time);
    if (changed !== undefined) return changed;
  }
  return undefined;
}

/** Builds `root` and stamps it; the exit code of tsc (0 when built). */
export function build(root) {
  const began = new Date();
  // tsc's incremental record (tsconfig.build.json) re-emits only what changed; without
  // a finished build beside it, some outputs may be gone, so it starts over.
  if (!existsSync(join(root, STAMP))) rmSync(join(root, BUILD_INFO), { force: true });
  const schema = ensureSchema(root, began);
  if (schema !== 0) return schema;
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) return compiled.status ?? 1;
  cpSync(join(root, 'shared/store/lua'), join(root, 'dist/shared/store/lua'), { recursive: true });
  const stamp = join(root, STAMP);
  writeFileSync(stamp, `${began.toISOString()}\n`);
  utimesSync(stamp, began, began);
  return 0;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (process.argv.includes('--schema')) {
    process.exitCode = ensureSchema(root);
  } else {
    const reason = process.argv.includes('--if-stale') ? (staleReason(root) ?? schemaStaleReason(root)) : 'asked to';
    if (reason !== undefined) {
      if (reason !== 'asked to') process.stderr.write(`kb-ingest: building (${reason})\n`);
      process.exitCode = build(root);
    }
  }
}
