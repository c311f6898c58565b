import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runChild(kind: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/fatal-child.ts', kind], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('an error nothing caught', () => {
  it.each([
    ['throw', 'uncaught exception; exiting'],
    ['reject', 'unhandled rejection; exiting'],
  ])('ends the process with exit 1 and one fatal log line without a stack trace (%s)', async (kind, msg) => {
    const { code, out, err } = await runChild(kind);
    expect(code).toBe(1);
    const lines = out.split('\n').filter(Boolean);
    expect(lines.some((l) => l === 'still alive')).toBe(false);
    const fatal = lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string; at?: string } });
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ level: 60, msg, err: { message: `boom by ${kind}` } });
    expect(fatal[0]!.err!.at).toMatch(/fatal-child\.ts:\d+:\d+/);
    expect(out + err).not.toMatch(/\n\s+at |\\n\s+at |"stack"/);
  }, 30_000);
});
