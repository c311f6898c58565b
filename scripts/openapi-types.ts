import { writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from './openapi-document.js';

/**
 * Where the typed client finds the generated types of the API. Not committed:
 * `node bin/build.mjs` (the build, `--schema` for this file alone) runs this
 * script when the code the document comes from changed.
 */
export const SCHEMA_FILE = new URL('../clients/typescript/src/schema.d.ts', import.meta.url);

const BANNER = '// Generated from /openapi.json by scripts/openapi-types.ts at build (bin/build.mjs); do not edit.\n';

/** The client's `schema.d.ts` for the current document. */
export async function generatedTypes(doc?: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS((doc ?? (await openApiDocument())) as never, { alphabetize: true });
  return BANNER + astToString(ast);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(SCHEMA_FILE, await generatedTypes());
  process.stdout.write(`wrote ${SCHEMA_FILE.pathname}\n`);
}
