import { describe, expect, it } from 'vitest';
import { PieceWriter, piecesOf, piecesText } from '../../shared/verbs/json-pieces.js';
import { SeededRandom } from '../../scripts/lib/seeded-random.js';

describe('PieceWriter', () => {
  it('writes exactly the parts, in order, in pieces no larger than asked unless a part is', () => {
    const random = new SeededRandom(31);
    const alphabet = ['a', 'é', '漢', '😀', ',', '"', ' '];
    for (let round = 0; round < 50; round++) {
      const pieceBytes = random.int(4, 64);
      const w = new PieceWriter(pieceBytes);
      let expected = '';
      for (let n = random.int(0, 40); n > 0; n--) {
        const kind = random.int(0, 2);
        if (kind === 2) {
          w.byte(0x2c);
          expected += ',';
          continue;
        }
        const part = Array.from({ length: random.int(0, 3 * pieceBytes) }, () => alphabet[random.int(0, alphabet.length - 1)]).join('');
        expected += part;
        if (kind === 0) w.text(part);
        else w.bytes(Buffer.from(part, 'utf8'));
      }
      const out = w.done();
      expect(piecesText(out)).toBe(expected);
      expect(out.bytes).toBe(Buffer.byteLength(expected));
      expect(out.pieces.reduce((n, p) => n + p.length, 0)).toBe(out.bytes);
      for (const p of out.pieces) expect(p.length).toBeGreaterThan(0);
    }
  });

  it('copies rows into shared pieces rather than keeping one buffer per row', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => Buffer.from(JSON.stringify({ documentId: `doc_${i}`, status: 'ready' })));
    const out = piecesOf(rows.flatMap((r, i) => (i > 0 ? [',', r] : [r])));
    expect(out.pieces.length).toBeLessThanOrEqual(Math.ceil(out.bytes / (32 * 1024)) + 1);
    expect(JSON.parse(`[${piecesText(out)}]`)).toHaveLength(2000);
  });
});
