import { describe, expect, it } from 'vitest';
import { assignTextBatches, TEXT_BATCH_MAX_BYTES, TEXT_BATCH_MAX_SOURCES, textBatchJobId } from '../../shared/queue/jobs.js';

type S = { documentId: string; type: 'text' | 'url' | 'file'; content: string; batchJob?: string };
const text = (i: number, content = `note ${i}`): S => ({ documentId: `d${i}`, type: 'text', content });

describe('assignTextBatches', () => {
  it('groups texts in order, at most TEXT_BATCH_MAX_SOURCES to a job, and names each job after its first text', () => {
    const sources = Array.from({ length: TEXT_BATCH_MAX_SOURCES * 2 + 3 }, (_, i) => text(i));
    const out = assignTextBatches('kb1', sources);
    const jobs = [...new Set(out.map((s) => s.batchJob))];
    expect(jobs).toEqual([textBatchJobId('kb1', 'd0'), textBatchJobId('kb1', `d${TEXT_BATCH_MAX_SOURCES}`), textBatchJobId('kb1', `d${TEXT_BATCH_MAX_SOURCES * 2}`)]);
    expect(out.filter((s) => s.batchJob === jobs[0])).toHaveLength(TEXT_BATCH_MAX_SOURCES);
    expect(out.filter((s) => s.batchJob === jobs[2])).toHaveLength(3);
    expect(sources[0]!.batchJob, 'the input is not changed').toBeUndefined();
  });

  it('starts a new job before the texts of one pass TEXT_BATCH_MAX_BYTES, and leaves a text alone in its group without one', () => {
    const big = 'x'.repeat(TEXT_BATCH_MAX_BYTES / 2);
    // Multi-byte text counts by its UTF-8 bytes: these two are together over the limit in bytes, not in characters.
    const wide = 'é'.repeat(TEXT_BATCH_MAX_BYTES / 4 + 1);
    const out = assignTextBatches('kb1', [text(0, big), text(1, big), text(2, wide), text(3, wide), text(4, 'short')]);
    expect(out.map((s) => s.batchJob)).toEqual([textBatchJobId('kb1', 'd0'), textBatchJobId('kb1', 'd0'), undefined, textBatchJobId('kb1', 'd3'), textBatchJobId('kb1', 'd3')]);
  });

  it('leaves other sources as they are and skips them when grouping', () => {
    const url: S = { documentId: 'u', type: 'url', content: 'https://example.org/' };
    const file: S = { documentId: 'f', type: 'file', content: 'a.pdf' };
    const out = assignTextBatches('kb1', [url, text(0), file, text(1)]);
    expect(out[0]).toBe(url);
    expect(out[2]).toBe(file);
    expect(out[1]!.batchJob).toBe(textBatchJobId('kb1', 'd0'));
    expect(out[3]!.batchJob).toBe(textBatchJobId('kb1', 'd0'));
    expect(assignTextBatches('kb1', [text(0), url]).every((s) => s.batchJob === undefined)).toBe(true);
  });
});
