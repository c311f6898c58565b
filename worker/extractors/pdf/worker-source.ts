import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { WORKER_PATCHES, type WorkerPatch } from './worker-patches.js';

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
 * Applies `patches` to `source` in order. All or nothing: when one `find` does
 * not occur exactly once, the source comes back unchanged with the names of
 * those that did not match.
 */
export function applyPatches(source: string, patches: readonly WorkerPatch[]): { source: string; missing: string[] } {
  let patched = source;
  const missing: string[] = [];
  for (const patch of patches) {
    const at = patched.indexOf(patch.find);
    if (at < 0 || patched.indexOf(patch.find, at + 1) >= 0) {
      missing.push(patch.name);
      continue;
    }
    patched = patched.slice(0, at) + patch.replace + patched.slice(at + patch.find.length);
  }
  return missing.length ? { source, missing } : { source: patched, missing };
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
  const { source, missing } = applyPatches(original, [...WORKER_PATCHES, ...MODULE_SHAPE]);
  if (missing.length || /^\s*(import|export)\s/m.test(source)) {
    const module = (await import('pdfjs-dist/legacy/build/pdf.worker.mjs')) as LoadedWorker['module'];
    return { module, patched: false, missing: missing.length ? missing : ['module: a static import or another export'] };
  }
  const body = compileFunction(`"use strict";${source}`, [], { filename: WORKER_PATH });
  return { module: body() as LoadedWorker['module'], patched: true, missing: [] };
}
