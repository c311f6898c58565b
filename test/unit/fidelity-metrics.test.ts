import { describe, expect, it } from 'vitest';
import { markdownHeadings, tableRows, titleRoot } from '../../scripts/lib/fidelity-metrics.js';

describe('fidelity measures', () => {
  it('reads headings outside fenced code only', () => {
    expect(markdownHeadings('# A\n\n```sh\n# a comment\n```\n\n## B\n\n~~~~\n# no\n```\n# still code\n~~~~\n\n### C')).toEqual(['A', 'B', 'C']);
  });

  it('names the title root when the first heading is the title or its page part, and nothing else', () => {
    expect(titleRoot('# 4\\. Source packages\n\nText.', '4. Source packages — Debian Policy Manual')).toBe('4. Source packages');
    expect(titleRoot('# Chapter 4. Files under the `debian` directory', 'Chapter 4. Files under the debian\u00a0directory')).toBe('Chapter 4. Files under the debian directory');
    expect(titleRoot('# Other\n', 'Title')).toBeUndefined();
    expect(titleRoot('Text only.', 'Title')).toBeUndefined();
    expect(titleRoot('# Title', undefined)).toBeUndefined();
  });

  it('counts GFM rows and the HTML rows that hold text, not rules or spacers', () => {
    expect(tableRows('| a | b |\n| --- | --- |\n| 1 | 2 |')).toBe(2);
    expect(tableRows('<table><tr><td>x</td></tr>\n<tr class="even">\n<th><hr /></th>\n<td></td>\n</tr><tr><td>&nbsp;</td></tr></table>')).toBe(1);
  });
});
