import { describe, expect, it } from 'vitest';
import { checkChaosRun, type FinalSource } from '../../scripts/lib/chaos-check.js';
import { emptyCounts, type SourceCounts } from '../../shared/sources/lifecycle.js';

const ready = (documentId: string, content = `text of ${documentId}`): FinalSource => ({ documentId, type: 'text', content, status: 'ready', hasText: true });
const failed = (documentId: string, errorCode?: string): FinalSource => ({
  documentId,
  type: 'url',
  content: `http://127.0.0.1:1/missing/${documentId}`,
  status: 'failed',
  ...(errorCode ? { errorCode } : {}),
});
const accepted = (entries: Record<string, string[]>) => new Map(Object.entries(entries).map(([kb, ids]) => [kb, new Set(ids)]));
const final = (entries: Record<string, FinalSource[] | undefined>) => new Map(Object.entries(entries));

describe('checkChaosRun', () => {
  it('passes a run in which every accepted source ended once, ready with its text or failed with a code', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2'], kb_b: ['doc_3'] }),
      final: final({ kb_a: [ready('doc_1'), failed('doc_2', 'http_status')], kb_b: [ready('doc_3')] }),
    });
    expect(v).toMatchObject({ ok: true, accepted: 3, ready: 2, failed: 1, failedByCode: { http_status: 1 }, lost: [], duplicated: [], unsettled: [] });
  });

  it('fails the run with the source as lost when an accepted source is missing from its knowledge base', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }),
      final: final({ kb_a: [ready('doc_1')] }),
    });
    expect(v.ok).toBe(false);
    expect(v.lost).toEqual(['kb_a/doc_2']);
  });

  it('counts an accepted source found only in another knowledge base as lost and as duplicated when listed in both', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1'], kb_b: ['doc_2'] }),
      final: final({ kb_a: [ready('doc_2', 'x')], kb_b: [ready('doc_2', 'x')] }),
    });
    expect(v.ok).toBe(false);
    expect(v.lost).toEqual(['kb_a/doc_1']);
    expect(v.duplicated).toEqual(['doc_2 (2 times: kb_a, kb_b)']);
  });

  it('counts every source of a knowledge base that is gone as lost', () => {
    const v = checkChaosRun({ accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }), final: final({ kb_a: undefined }) });
    expect(v.ok).toBe(false);
    expect(v.lost).toEqual(['kb_a/doc_1', 'kb_a/doc_2']);
  });

  it('fails the run with the id as duplicated when one knowledge base lists a source twice', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1'] }),
      final: final({ kb_a: [ready('doc_1'), ready('doc_1')] }),
    });
    expect(v.ok).toBe(false);
    expect(v.duplicated).toEqual(['doc_1 (2 times: kb_a)']);
    expect(v.ready).toBe(1);
  });

  it('fails the run when the same text or URL is in one knowledge base twice under two ids', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2', 'doc_3', 'doc_4'] }),
      final: final({ kb_a: [ready('doc_1', 'same'), ready('doc_2', 'same'), failed('doc_3', 'http_status'), { ...failed('doc_4', 'http_status'), content: failed('doc_3').content }] }),
    });
    expect(v.ok).toBe(false);
    expect(v.duplicatedContent).toEqual(['kb_a/doc_1 = kb_a/doc_2', 'kb_a/doc_3 = kb_a/doc_4']);
  });

  it('does not count the same text under two titles as duplicated content', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }),
      final: final({ kb_a: [{ ...ready('doc_1', 'same'), title: 'One' }, { ...ready('doc_2', 'same'), title: 'Two' }] }),
    });
    expect(v.ok).toBe(true);
  });

  it('fails the run with the source as unsettled when it is still pending or processing', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2', 'doc_3'] }),
      final: final({ kb_a: [ready('doc_1'), { ...ready('doc_2'), status: 'pending' }, { ...ready('doc_3'), status: 'processing' }] }),
    });
    expect(v.ok).toBe(false);
    expect(v.unsettled).toEqual(['kb_a/doc_2', 'kb_a/doc_3']);
  });

  it('fails the run for a failed source without an error code and a ready source without text', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }),
      final: final({ kb_a: [failed('doc_1'), { ...ready('doc_2'), hasText: false }] }),
    });
    expect(v.ok).toBe(false);
    expect(v.failedWithoutCode).toEqual(['kb_a/doc_1']);
    expect(v.readyWithoutText).toEqual(['kb_a/doc_2']);
    expect(v.failedByCode).toEqual({ '(none)': 1 });
  });

  it('counts a settled source no accepted answer named as unacknowledged without failing the run', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1'] }),
      final: final({ kb_a: [ready('doc_1'), ready('doc_9')] }),
    });
    expect(v).toMatchObject({ ok: true, accepted: 1, unacknowledged: 1 });
  });

  it('still finds an unacknowledged source that is pending as unsettled', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: [] }),
      final: final({ kb_a: [{ ...ready('doc_9'), status: 'pending' }] }),
    });
    expect(v.ok).toBe(false);
    expect(v.unsettled).toEqual(['kb_a/doc_9']);
  });

  it('fails the run when a ready source lacks chunks its record counts', () => {
    const v = checkChaosRun({
      accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }),
      final: final({ kb_a: [ready('doc_1'), { ...ready('doc_2'), chunksMissing: true }] }),
    });
    expect(v.ok).toBe(false);
    expect(v.readyWithoutChunks).toEqual(['kb_a/doc_2']);
  });

  it('fails the run when a knowledge base counts its sources otherwise than they are', () => {
    const run = (reported: Partial<SourceCounts>) =>
      checkChaosRun({
        accepted: accepted({ kb_a: ['doc_1', 'doc_2'] }),
        final: final({ kb_a: [ready('doc_1'), failed('doc_2', 'http_status')] }),
        counts: new Map([['kb_a', { ...emptyCounts(), ...reported }]]),
      });
    expect(run({ pending: 0, processing: 0, ready: 1, failed: 1 })).toMatchObject({ ok: true, countsDisagree: [] });
    const off = run({ pending: 0, processing: 1, ready: 0, failed: 1 });
    expect(off.ok).toBe(false);
    expect(off.countsDisagree).toEqual(['kb_a: 0/1/0/1 != 0/0/1/1']);
  });
});
