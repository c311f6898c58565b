import { describe, expect, it } from 'vitest';
import { FieldSizeWatch } from '../../api/http/field-size-watch.js';

const B = 'xYz-boundary';
const part = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const body = (...parts: string[]) => Buffer.from(`preamble\r\n${parts.join('')}--${B}--\r\n`);

/** Pushes `data` in pieces of `size` bytes; the field reported, if any, and after how many bytes. */
function watch(data: Buffer, size: number, max = 8): { field: string | undefined; at: number } {
  const w = new FieldSizeWatch(B, new Set(['knowledge_base_name', 'name']), max);
  for (let i = 0; i < data.length; i += size) {
    const field = w.push(data.subarray(i, i + size));
    if (field !== undefined) return { field, at: Math.min(data.length, i + size) };
  }
  return { field: undefined, at: data.length };
}

describe('FieldSizeWatch', () => {
  const fits = body(part('knowledge_base_texts', '["a long text that is not watched at all"]'), part('knowledge_base_name', '12345678'));
  const long = body(part('knowledge_base_texts', '["t"]'), part('name', '123456789'));

  it.each([1, 2, 3, 7, 16, 1000])('lets a value of exactly the bound through, in pieces of %i bytes', (size) => {
    expect(watch(fits, size).field).toBeUndefined();
  });

  it.each([1, 2, 3, 7, 16, 1000])('names a value one byte past the bound, in pieces of %i bytes', (size) => {
    expect(watch(long, size).field).toBe('name');
  });

  it('stops a value that never ends soon after the bound, without waiting for the body', () => {
    const head = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="knowledge_base_name"\r\n\r\n`);
    const w = new FieldSizeWatch(B, new Set(['knowledge_base_name']), 2048);
    expect(w.push(head)).toBeUndefined();
    let sent = 0;
    let field: string | undefined;
    while (field === undefined && sent < 1_000_000) {
      field = w.push(Buffer.alloc(512, 0x61));
      sent += 512;
    }
    expect(field).toBe('knowledge_base_name');
    expect(sent).toBeLessThanOrEqual(2048 + 512 + B.length + 4);
  });

  it('does not take a boundary-like run inside another field for the end of a part', () => {
    const tricky = body(part('knowledge_base_texts', `["--${B}x"]`), part('knowledge_base_name', 'short'));
    for (const size of [1, 5, 64]) expect(watch(tricky, size).field).toBeUndefined();
  });
});
