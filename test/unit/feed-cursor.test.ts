import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.js';
import { decodeCursor, encodeCursor, kbMark } from '../../shared/feed/cursor.js';

describe('change feed cursors', () => {
  it("round-trips a position with its knowledge base's mark", () => {
    const cursor = encodeCursor('1795854986080-7', 'kb_one');
    expect(cursor).toMatch(/^c2\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'after', 'kb_one')).toBe('1795854986080-7');
    expect(Buffer.from(cursor.slice(3), 'base64url').toString()).toBe(`1795854986080-7.${kbMark('kb_one')}`);
  });

  it('refuses a cursor of another knowledge base as a 400 on the field', () => {
    const cursor = encodeCursor('1795854986080-7', 'kb_one');
    expect(() => decodeCursor(cursor, 'after', 'kb_two')).toThrow(ValidationError);
    try {
      decodeCursor(cursor, 'after', 'kb_two');
    } catch (err) {
      expect((err as ValidationError).fields).toEqual({ after: 'is not a cursor of this change feed' });
    }
  });

  it('reads a position without checking the mark when no knowledge base is named (the store reading its own cursors)', () => {
    expect(decodeCursor(encodeCursor('5-0', 'kb_one'))).toBe('5-0');
  });

  it('still reads cursors of the earlier form, which carry no mark', () => {
    const earlier = `c1.${Buffer.from('1795854986080-0').toString('base64url')}`;
    expect(encodeCursor('1795854986080-0')).toBe(earlier);
    expect(decodeCursor(earlier, 'after', 'kb_any')).toBe('1795854986080-0');
  });

  it.each([
    ['nonsense'],
    [''],
    [`c2.${Buffer.from('12-0').toString('base64url')}`],
    [`c2.${Buffer.from(`12-x.${kbMark('kb_one')}`).toString('base64url')}`],
    [`c1.${Buffer.from('12-0.abc').toString('base64url')}`],
    [`c3.${Buffer.from('12-0').toString('base64url')}`],
    [`c1.${Buffer.from('1234567890123456-0').toString('base64url')}`],
  ])('refuses %j, which this service did not give out', (cursor) => {
    expect(() => decodeCursor(cursor, 'after', 'kb_one')).toThrow(ValidationError);
  });
});
