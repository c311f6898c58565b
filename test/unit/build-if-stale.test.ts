import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildInputs, SCHEMA, SCHEMA_INPUTS, schemaStaleReason, STAMP, staleReason } from '../../bin/build.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const HOUR_AGO = new Date(Date.now() - 3_600_000);
const MINUTE_AGO = new Date(Date.now() - 60_000);

/*
 * The decision `npm start` takes before it builds (bin/build.mjs --if-stale),
 * on a small tree shaped like the repository's: the inputs are dated an hour
 * ago and the last build a minute ago, then one thing changes.
 */
describe("npm start's build step", () => {
  let tree: string;
  const write = (file: string, text = 'x'): void => {
    mkdirSync(join(tree, file, '..'), { recursive: true });
    writeFileSync(join(tree, file), text);
  };
  const age = (file: string, when = HOUR_AGO): void => utimesSync(join(tree, file), when, when);

  beforeEach(() => {
    tree = mkdtempSync(join(tmpdir(), 'kb-build-'));
    write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', include: ['api', 'shared', 'cli'] }));
    for (const file of ['package.json', 'tsconfig.json', 'api/app.ts', 'shared/store/lua/a.lua', 'shared/x.ts', 'shared/node_modules/dep/index.js', 'scripts/bench.ts']) write(file);
    write(STAMP);
    for (const path of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'api/app.ts', 'api', 'shared/store/lua/a.lua', 'shared/store/lua', 'shared/store', 'shared/x.ts', 'shared']) age(path);
    age(STAMP, MINUTE_AGO);
  });
  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  it('builds nothing when no input changed since the last build began', () => {
    expect(staleReason(tree)).toBeUndefined();
  });

  it('builds when there was no build, or a source, a Lua script or a config file changed', () => {
    rmSync(join(tree, STAMP));
    expect(staleReason(tree)).toBe('no earlier build');
    write(STAMP);
    age(STAMP, MINUTE_AGO);
    for (const file of ['api/app.ts', 'shared/store/lua/a.lua', 'tsconfig.json', 'package.json']) {
      utimesSync(join(tree, file), new Date(), new Date());
      expect(staleReason(tree)).toBe(`${file} changed since the last build`);
      age(file);
    }
    expect(staleReason(tree)).toBeUndefined();
  });

  it('builds when a file was added, removed or renamed, even one that keeps an old date', () => {
    renameSync(join(tree, 'shared/x.ts'), join(tree, 'shared/y.ts'));
    expect(staleReason(tree)).toBe('shared changed since the last build');
  });

  it('ignores what tsc does not compile: folders outside tsconfig.build.json and node_modules', () => {
    write('scripts/bench.ts', 'changed');
    write('shared/node_modules/dep/index.js', 'changed');
    age('shared');
    expect(staleReason(tree)).toBeUndefined();
  });

  it("ignores a package's own build output under an input (clients/typescript/dist)", () => {
    write('cli/dist/index.js', 'built');
    age('cli');
    expect(staleReason(tree)).toBeUndefined();
  });

  it("generates the client's schema.d.ts when it is missing, or older than a source of the OpenAPI document", () => {
    expect(schemaStaleReason(tree)).toBe(`no ${SCHEMA}`);
    write(SCHEMA);
    age(SCHEMA, MINUTE_AGO);
    expect(schemaStaleReason(tree)).toBeUndefined();
    for (const file of ['api/app.ts', 'shared/x.ts']) {
      utimesSync(join(tree, file), new Date(), new Date());
      expect(schemaStaleReason(tree)).toBe(`${file} changed since it was generated`);
      age(file);
    }
    // The worker-only folders and the rest of scripts/ do not make the document.
    write('scripts/bench.ts', 'changed');
    expect(schemaStaleReason(tree)).toBeUndefined();
    expect(SCHEMA_INPUTS).toEqual(expect.arrayContaining(['api', 'shared', 'scripts/openapi-document.ts', 'scripts/openapi-types.ts']));
  });

  it("watches the repository's own config files and every folder tsconfig.build.json compiles", () => {
    const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    expect(buildInputs(root)).toEqual(['package.json', 'tsconfig.json', 'tsconfig.build.json', ...include]);
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prestart).toBe('node bin/build.mjs --if-stale');
    expect(scripts.prepare).toBe('npm run build');
    expect(scripts.build).toBe('node bin/build.mjs');
  });
});
