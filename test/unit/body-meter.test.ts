import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyMeter } from '../../api/http/body-meter.js';
import { waitFor } from '../helpers/wait.js';

function meter(): { source: PassThrough; pieces: Buffer[]; ended: Promise<void> } {
  const source = new PassThrough();
  const m = new BodyMeter(source, { maxBytes: 100 * 1024 * 1024, minBytesPerSecond: 0, rateWindowMs: 10_000 });
  const pieces: Buffer[] = [];
  m.on('data', (p: Buffer) => pieces.push(p));
  const ended = new Promise<void>((resolve) => m.on('end', resolve));
  source.pipe(m);
  return { source, pieces, ended };
}

describe('body meter pieces', () => {
  it('passes 100,000 one-byte chunks on as a handful of pieces, every byte in order', async () => {
    const { source, pieces, ended } = meter();
    const sent = Buffer.from(Array.from({ length: 100_000 }, (_, i) => 97 + (i % 26)));
    for (const byte of sent) source.write(Buffer.from([byte]));
    source.end();
    await ended;
    expect(Buffer.concat(pieces).equals(sent)).toBe(true);
    expect(pieces.length).toBeLessThanOrEqual(10);
  });

  it('passes on a lone small chunk without waiting for more bytes or the end', async () => {
    const { source, pieces } = meter();
    source.write(Buffer.from('slow'));
    await waitFor('the chunk to be passed on', () => pieces.length === 1, { timeoutMs: 2_000 });
    expect(pieces[0]!.toString()).toBe('slow');
    source.destroy();
  });

  it('cuts a large chunk into pieces of at most 64 KiB, after the small bytes before it', async () => {
    const { source, pieces, ended } = meter();
    source.write(Buffer.from('head'));
    source.write(Buffer.alloc(200 * 1024, 'z'));
    source.end();
    await ended;
    expect(pieces[0]!.toString()).toBe('head');
    expect(pieces.slice(1).map((p) => p.length)).toEqual([65_536, 65_536, 65_536, 8_192]);
  });
});
