import { describe, expect, it } from 'vitest';
import { extractText, type ExtractOptions } from '../../worker/extractors/index.js';
import { buildDocx } from '../fixtures/docx.js';

const opts: ExtractOptions = { maxTextChars: 100_000, maxPdfPages: 5, filename: 'a.docx' };

describe('DOCX tables', () => {
  it('keeps every row of a table whose cells hold several paragraphs, the paragraphs joined by <br>', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => [`Field ${i}`, `First paragraph of ${i}.\nSecond paragraph of ${i}.`]);
    const r = await extractText(buildDocx([{ table: [['Name', 'Meaning'], ...rows] }]), opts);
    const lines = r.markdown.split('\n');
    expect(lines[0]).toBe('| Name | Meaning |');
    expect(lines.filter((l) => l.startsWith('| Field '))).toHaveLength(40);
    expect(lines).toContain('| Field 7 | First paragraph of 7.<br>Second paragraph of 7. |');
    expect(r.text).toContain('Field 7\tFirst paragraph of 7. Second paragraph of 7.');
  });
});
