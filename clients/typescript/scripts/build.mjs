/**
 * The client package's build: `schema.d.ts` generated from the service's
 * OpenAPI document when stale (the repository's bin/build.mjs), then
 * `tsc -p tsconfig.json` into a clean `dist/` (ESM and `.d.ts`), then the
 * generated declarations copied beside them (tsc emits no `.d.ts` input).
 *
 *   npm run build      (in clients/typescript; `npm pack` runs it first)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureSchema } from '../../../bin/build.mjs';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

const schema = ensureSchema(root);
if (schema !== 0) process.exit(schema);
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkg, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
copyFileSync(new URL('../src/schema.d.ts', import.meta.url), new URL('../dist/schema.d.ts', import.meta.url));
