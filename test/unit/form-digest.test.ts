import { describe, expect, it } from 'vitest';
import { FormDigest } from '../../api/http/form-digest.js';

/** Feeds a form's parts to a digest as a parse would: files may end after later parts begin. */
function digestOf(build: (d: FormDigest) => void): string | undefined {
  const d = new FormDigest();
  build(d);
  d.complete();
  return d.value();
}

describe('FormDigest', () => {
  it('gives the same digest for the same parts however the file bytes are chunked', () => {
    const a = digestOf((d) => {
      d.field('knowledge_base_name', 'Docs');
      const f = d.file('knowledge_base_files', { filename: 'a.txt', mimeType: 'text/plain' });
      f.data(Buffer.from('hello '));
      f.data(Buffer.from('world'));
      f.end();
    });
    const b = digestOf((d) => {
      d.field('knowledge_base_name', 'Docs');
      const f = d.file('knowledge_base_files', { filename: 'a.txt', mimeType: 'text/plain' });
      f.data(Buffer.from('hello world'));
      f.end();
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps a file in the place it began, even when a later part is seen before it ends', () => {
    const inOrder = digestOf((d) => {
      const f = d.file('knowledge_base_files', { filename: 'a.txt', mimeType: 'text/plain' });
      f.data(Buffer.from('x'));
      f.end();
      d.field('knowledge_base_texts', '["t"]');
    });
    const lateEnd = digestOf((d) => {
      const f = d.file('knowledge_base_files', { filename: 'a.txt', mimeType: 'text/plain' });
      f.data(Buffer.from('x'));
      d.field('knowledge_base_texts', '["t"]');
      f.end();
    });
    expect(lateEnd).toBe(inOrder);
  });

  it('tells apart a changed value, file name, declared type or part order', () => {
    const base = (name: string, filename: string, type: string, fieldFirst: boolean) =>
      digestOf((d) => {
        if (fieldFirst) d.field('knowledge_base_name', name);
        const f = d.file('knowledge_base_files', { filename, mimeType: type });
        f.data(Buffer.from('bytes'));
        f.end();
        if (!fieldFirst) d.field('knowledge_base_name', name);
      });
    const digests = [
      base('A', 'a.txt', 'text/plain', true),
      base('B', 'a.txt', 'text/plain', true),
      base('A', 'b.txt', 'text/plain', true),
      base('A', 'a.txt', 'text/html', true),
      base('A', 'a.txt', 'text/plain', false),
    ];
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('has no value until the whole form was accepted', () => {
    const d = new FormDigest();
    d.field('knowledge_base_name', 'Docs');
    d.file('knowledge_base_files', { filename: 'a.txt', mimeType: 'text/plain' }).data(Buffer.from('cut short'));
    expect(d.value()).toBeUndefined();
    d.complete();
    expect(d.value()).toMatch(/^[0-9a-f]{64}$/);
  });
});
