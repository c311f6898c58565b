import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeText, declaredCharset } from '../../worker/extractors/text-decode.js';

const EBCDIC = new Map(Object.entries({ H: 0xc8, e: 0x85, l: 0x93, o: 0x96, ' ': 0x40, w: 0xa6, r: 0x99, d: 0x84, '.': 0x4b, t: 0xa3, h: 0x88, a: 0x81, s: 0xa2, i: 0x89, x: 0xa7, T: 0xe3 }));

describe('decodeText', () => {
  it('reads the charset of <meta charset> and of <meta http-equiv content>', () => {
    expect(declaredCharset(Buffer.from('<html><head><meta charset="windows-1251"></head>'))).toBe('windows-1251');
    expect(declaredCharset(Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">'))).toBe('ISO-8859-2');
    expect(declaredCharset(Buffer.from('<html><body>no meta</body></html>'))).toBeUndefined();
  });

  it('uses a declared single-byte charset that decodes cleanly when the detector is unsure', () => {
    const html = Buffer.concat([Buffer.from('<html><head><meta charset="iso-8859-2"></head><body>'), iconv.encode('Zażółć gęślą jaźń', 'iso-8859-2'), Buffer.from('</body></html>')]);
    expect(decodeText(new Uint8Array(html), { html: true }).text).toContain('Zażółć gęślą jaźń');
  });

  it('decodes UTF-16BE with a BOM', () => {
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('Grüße aus Köln', 'utf-16be')]);
    expect(decodeText(new Uint8Array(bytes))).toEqual({ text: 'Grüße aus Köln', encoding: 'utf-16be' });
  });

  it('decodes EBCDIC (cp500) English text instead of refusing or garbling it', () => {
    const line = 'Hello world. This is a test text.';
    const bytes = Array.from({ length: 20 }, () => [...line].map((c) => EBCDIC.get(c) ?? 0x40).concat([0x0d, 0x25])).flat();
    const { text, encoding } = decodeText(new Uint8Array(bytes));
    expect(encoding).toBe('cp500');
    expect(text.split('\r\n')[0]).toBe(line);
  });
});
