import { describe, expect, it } from 'vitest';
import { parseReply } from '../../shared/store/scripts/script.js';

const REPLIES = {
  ok: { head: 'str', events: { rows: ['id', 'kind'] } },
  counted: { settled: 'int', counts: 'counts' },
  read: { n: 'int', record: 'record' },
  listed: { ids: 'rest' },
} as const;

describe('a script reply read by its declaration', () => {
  it('reads repeated rows by their field names, leaving out a torn last row', () => {
    const reply = parseReply('test', REPLIES, ['ok', '9-0', '1-0', 'u', '2-0', 'd', '3-0']);
    expect(reply).toEqual({ kind: 'ok', head: '9-0', events: [{ id: '1-0', kind: 'u' }, { id: '2-0', kind: 'd' }] });
  });

  it('reads the counts by status, in the order of SOURCE_STATUSES', () => {
    expect(parseReply('test', REPLIES, ['counted', 4, 1, 2, 3, 0])).toEqual({ kind: 'counted', settled: 4, counts: { pending: 1, processing: 2, ready: 3, failed: 0 } });
  });

  it('reads field/value pairs as a record, and the rest as strings', () => {
    expect(parseReply('test', REPLIES, ['read', 1, 'status', 'ready', 'run', '2'])).toEqual({ kind: 'read', n: 1, record: { status: 'ready', run: '2' } });
    expect(parseReply('test', REPLIES, ['listed', 'a', 2])).toEqual({ kind: 'listed', ids: ['a', '2'] });
  });

  it('throws on a tag the declaration lacks', () => {
    expect(() => parseReply('test', REPLIES, ['nope'])).toThrow(/test gave the undeclared reply 'nope'/);
  });
});
