import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [major = 0, minor = 0, patch = 0] = v.replace(/^v/, '').split('.').map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` is in an npm range made of `>=`, `<` and `^` comparators, `||` between alternatives. */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative.trim().split(/\s+/).every((comparator) => {
      const [, op = '', bound = ''] = /^(>=|<|\^)?(\d[\d.]*)$/.exec(comparator) ?? [];
      if (bound === '') throw new Error(`comparator not understood: ${comparator}`);
      const b = parse(bound);
      if (op === '>=') return compare(v, b) >= 0;
      if (op === '<') return compare(v, b) < 0;
      if (op === '^') return v[0] === b[0] && compare(v, b) >= 0;
      return compare(v, b) === 0;
    }),
  );
}

describe('the Node.js baseline', () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const images = [...read('Dockerfile').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!);

  it('reads npm ranges as npm does, for the forms package.json uses', () => {
    expect(satisfies('20.18.0', '>=22.3.0 || ^20.18.1')).toBe(false);
    expect(satisfies('21.7.0', '>=22.3.0 || ^20.18.1')).toBe(false);
    expect(satisfies('22.2.0', '>=22.3.0 || ^20.18.1')).toBe(false);
    expect(satisfies('20.18.1', '>=20.18.1 <21')).toBe(true);
  });

  it('builds and runs the image on one exact Node.js 22 release that engines admits', () => {
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) expect(image, 'an exact 22.x.y release, Debian-based').toMatch(/^node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
    expect(new Set(images).size, 'the build and runtime stages run the same Node').toBe(1);
    const version = /^node:(\d+\.\d+\.\d+)/.exec(images[0]!)![1]!;
    expect(satisfies(version, engines), `${version} is in engines ${engines}`).toBe(true);
  });

  it('still admits Node 20 from 20.18.1, and not what the dependencies refuse', () => {
    for (const version of ['20.18.1', '20.20.2', '22.3.0', '22.23.0', '24.0.0']) expect(satisfies(version, engines), version).toBe(true);
    for (const version of ['20.18.0', '21.7.3', '22.2.0']) expect(satisfies(version, engines), version).toBe(false);
    expect(satisfies(process.versions.node, engines), `this machine's Node ${process.versions.node}`).toBe(true);
  });

  it('names 22 as the baseline in .nvmrc, the README and the contributing guide', () => {
    expect(read('.nvmrc').trim()).toBe('22');
    expect(read('README.md')).toMatch(/Node\.js 22 LTS \(the baseline/);
    const guide = read('docs/contributing.md');
    expect(guide).toContain('Node.js 22 LTS is the baseline');
    expect(guide).toContain(images[0]!);
  });
});
