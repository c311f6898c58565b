import { describe, expect, it } from 'vitest';
import { XmlScanner } from '../../worker/extractors/office/xml-scan.js';
import { extractXlsx } from '../../worker/extractors/xlsx/xlsx.js';
import { buildXlsx } from '../fixtures/xlsx.js';

describe('XmlScanner', () => {
  it('reads tags by local name, attributes with quoted `>`, CDATA as text, comments and instructions skipped', () => {
    const scan = new XmlScanner('<?xml version="1.0"?><!-- <x:c> --><x:c r="A1" x:t=\'s\' f="a>b"><x:v><![CDATA[1 < 2]]> &amp; 3</x:v><x:e/></x:c>');
    const seen: string[] = [];
    while (scan.next()) {
      seen.push(`${scan.closing ? '/' : ''}${scan.name}${scan.empty ? '/' : ''}`);
      if (scan.name === 'c' && !scan.closing) expect(scan.attrs(['r', 't', 'f'])).toEqual({ r: 'A1', t: 's', f: 'a>b' });
      if (scan.name === 'v' && !scan.closing) expect(scan.text()).toBe('1 < 2 & 3');
    }
    expect(seen).toEqual(['c', 'v', '/v', 'e/', '/c']);
  });

  it('skips an element with its children', () => {
    const scan = new XmlScanner('<si><rPh><t>ふりがな</t><rPh/></rPh><t>漢字</t></si>');
    const texts: string[] = [];
    while (scan.next()) {
      if (scan.name === 'rPh' && !scan.closing) scan.skipElement();
      else if (scan.name === 't' && !scan.closing) texts.push(scan.text());
    }
    expect(texts).toEqual(['漢字']);
  });
});

describe('XLSX sheet XML read tag by tag', () => {
  it('reads prefixed sheet XML, inline rich text without its phonetic guide, and cells without references', async () => {
    const NS = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const sheet = `<?xml version="1.0"?><x:worksheet ${NS}><x:sheetData><x:row r="2"><x:c r="B2" t="inlineStr"><x:is><x:r><x:t>Tō</x:t></x:r><x:r><x:t xml:space="preserve">kyō</x:t></x:r><x:rPh sb="0" eb="1"><x:t>とう</x:t></x:rPh></x:is></x:c>`
      + '<x:c t="b"><x:v>1</x:v></x:c><x:c r="E2"><x:f>1+1</x:f><x:v>2</x:v></x:c></x:row><x:row><x:c r="B3" t="s"><x:v>0</x:v></x:c></x:row></x:sheetData></x:worksheet>';
    const r = await extractXlsx(buildXlsx([{ name: 'S', rows: [['shared']] }], [{ name: 'xl/worksheets/sheet1.xml', data: sheet }]), { maxTextChars: 1e6 });
    expect(r.markdown).toBe('## S\n\n|  |  |  |  |\n| --- | --- | --- | --- |\n| Tōkyō | TRUE |  | 2 |\n| shared |  |  |  |');
  });
});
