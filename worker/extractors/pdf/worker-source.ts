import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { inflateRawSync } from 'node:zlib';
import { INFLATE_RAW_PARAMETER, WORKER_PATCHES, type WorkerPatch } from './worker-patches.js';

const WORKER_PATH = createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');

/** pdf.js's worker side as loaded: its module, and which patches it carries. */
export interface LoadedWorker {
  module: { WorkerMessageHandler: unknown };
  /** Every patch of {@link WORKER_PATCHES} applied; false means pdf.js runs as shipped. */
  patched: boolean;
  /** Names of the patches whose text was not found exactly once (then none is applied). */
  missing: string[];
}

/**
 * Applies `patches` to `source`: each `find` must occur exactly once in
 * `source` and apart from the others. All or nothing: when one does not, the
 * source comes back unchanged with the names of those that did not match.
 * The result is built in one piece (no copy of the 2 MB source per patch).
 */
export function applyPatches(source: string, patches: readonly WorkerPatch[], prefix = ''): { source: string; missing: string[] } {
  const found: Array<{ at: number; patch: WorkerPatch }> = [];
  const missing: string[] = [];
  for (const patch of patches) {
    const at = source.indexOf(patch.find);
    if (at < 0 || source.indexOf(patch.find, at + 1) >= 0) missing.push(patch.name);
    else found.push({ at, patch });
  }
  found.sort((a, b) => a.at - b.at);
  found.forEach(({ at, patch }, i) => {
    const next = found[i + 1];
    if (next && at + patch.find.length > next.at) missing.push(`${patch.name} (overlaps ${next.patch.name})`);
  });
  if (missing.length) return { source, missing };
  const parts = [prefix];
  let from = 0;
  for (const { at, patch } of found) {
    parts.push(source.slice(from, at), patch.replace);
    from = at + patch.find.length;
  }
  parts.push(source.slice(from));
  return { source: parts.join(''), missing };
}

// The worker side is one self-contained ES module: no static imports, one export, and
// `import.meta.url` read once (by its JPEG 2000 decoder, for a directory it never needs here).
const MODULE_SHAPE: readonly WorkerPatch[] = [
  { name: 'module: its one export', find: '\nexport { WorkerMessageHandler };', replace: '\nreturn { WorkerMessageHandler };' },
  { name: 'module: its one import.meta.url', find: 'import.meta.url', replace: JSON.stringify(pathToFileURL(WORKER_PATH).href) },
];

/**
 * Loads pdf.js's worker side with {@link WORKER_PATCHES} applied: its source
 * is compiled as the body of a strict function under its own file name (so
 * stack traces name it as before) and run once. When a patch does not match
 * the installed pdf.js, or the module no longer has the shape this relies on,
 * the module is imported as shipped instead.
 */
export async function loadPdfjsWorker(): Promise<LoadedWorker> {
  const original = readFileSync(WORKER_PATH, 'utf8');
  if (/^\s*import\s/m.test(original) || original.match(/^\s*export\s/gm)?.length !== 1) return shipped(['module: a static import or another export']);
  const { source, missing } = applyPatches(original, [...WORKER_PATCHES, ...MODULE_SHAPE], '"use strict";');
  if (missing.length) return shipped(missing);
  let body: (inflate: typeof inflateRawSync) => unknown;
  try {
    body = compileFunction(source, [INFLATE_RAW_PARAMETER], { filename: WORKER_PATH }) as (inflate: typeof inflateRawSync) => unknown;
  } catch {
    // Module syntax this does not turn into a function body (import.meta.dirname, say).
    return shipped(['module: compiles only as a module']);
  }
  return { module: body(inflateRawSync) as LoadedWorker['module'], patched: true, missing: [] };
}

async function shipped(missing: string[]): Promise<LoadedWorker> {
  const module = (await import('pdfjs-dist/legacy/build/pdf.worker.mjs')) as LoadedWorker['module'];
  return { module, patched: false, missing };
}
