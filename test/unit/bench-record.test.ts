import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCH_HISTORY, recordRun } from '../../scripts/lib/bench-record.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const file = (text: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-record-'));
  dirs.push(dir);
  const path = join(dir, 'history.json');
  writeFileSync(path, text);
  return path;
};
const row = { measurement: 'm', result: 'r', reference: '', referenceResult: '', ratio: 0.123456, target: '>= 0.5' };

describe('recordRun', () => {
  it('appends a run after the rounds already kept, with its command, machine and rows', () => {
    const path = file(JSON.stringify({ about: 'x', rounds: [{ kind: 'table', rows: [] }] }));
    recordRun(path, { date: new Date('2026-11-28T12:00:00Z'), args: ['--only', 'text'], machine: { cpus: 2 }, rows: [row, { ...row, ratio: '0.5 (0.4 to 0.6, 5 pairs)' }] });
    const history = JSON.parse(readFileSync(path, 'utf8')) as { about: string; rounds: Record<string, unknown>[] };
    expect(history.about).toBe('x');
    expect(history.rounds).toHaveLength(2);
    expect(history.rounds[1]).toMatchObject({ kind: 'bench', date: '2026-11-28T12:00:00.000Z', command: 'npm run bench -- --only text', machine: { cpus: 2 } });
    expect((history.rounds[1]!.rows as { ratio: unknown }[]).map((r) => r.ratio)).toEqual([0.123, '0.5 (0.4 to 0.6, 5 pairs)']);
  });

  it('refuses a file without a rounds list rather than overwrite it', () => {
    const path = file('{"other": 1}');
    expect(() => recordRun(path, { date: new Date(), args: [], machine: {}, rows: [] })).toThrow(/no "rounds" list/);
    expect(readFileSync(path, 'utf8')).toBe('{"other": 1}');
  });

  it('the repository history parses, and each of its entries has a kind and rows', () => {
    const history = JSON.parse(readFileSync(BENCH_HISTORY, 'utf8')) as { rounds: { kind: string; rows: unknown[] }[] };
    expect(history.rounds.length).toBeGreaterThan(20);
    for (const r of history.rounds) {
      expect(['table', 'bench']).toContain(r.kind);
      expect(Array.isArray(r.rows)).toBe(true);
    }
  });
});
