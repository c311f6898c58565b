import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingPackagesError, readSetDocuments, type SetSource } from '../../scripts/lib/retrieval-set.js';

const dir = mkdtempSync(join(tmpdir(), 'retrieval-set-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const set = (sources: SetSource[]) => ({ sources, questions: [] });

describe('the documents of the retrieval set', () => {
  it('unpacks an Info manual as plain text without its control characters, and names each file by package and format', () => {
    writeFileSync(join(dir, 'tool.info.gz'), gzipSync('\x1f\nFile: tool.info\n* Menu:\x00\x08[index]\x00\x08]\n\tTab and\r\nline\n'));
    writeFileSync(join(dir, 'sect.a.html'), '<h1>A</h1>');
    writeFileSync(join(dir, 'sect.b.html'), '<h1>B</h1>');
    writeFileSync(join(dir, 'other.html'), '<h1>C</h1>');
    const docs = readSetDocuments(set([
      { package: 'tool', version: '1', format: 'txt', files: [join(dir, 'tool.info.gz')] },
      { package: 'book', version: '1', format: 'html', files: [join(dir, 'sect.*.html')] },
    ]));
    expect(docs.map((d) => d.name)).toEqual(['tool--tool.txt', 'book--sect.a.html', 'book--sect.b.html']);
    expect(docs[0]!.bytes.toString('utf8')).toBe('\nFile: tool.info\n* Menu:[index]]\n\tTab and\r\nline\n');
  });

  it('names every package with a missing file', () => {
    const read = () => readSetDocuments(set([
      { package: 'gone', version: '1', format: 'txt', files: [join(dir, 'nothing.info.gz')] },
      { package: 'half', version: '1', format: 'html', files: [join(dir, 'sect.*.html'), join(dir, 'none.*.html')] },
      { package: 'book', version: '1', format: 'html', files: [join(dir, 'sect.*.html')] },
    ]));
    expect(read).toThrow(MissingPackagesError);
    expect(read).toThrow(/apt-get install -y gone half$/);
  });
});
