import { describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/runtime/logger.js';
import type { KbStore } from '../../shared/store/kb-store.js';
import type { SandboxExtract } from '../../worker/chunking/cut-chunks.js';
import { rechunkKnowledgeBase } from '../../worker/jobs/rechunk-kb.js';

const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
const extract: SandboxExtract = async () => ({ chunks: [] }) as unknown as Awaited<ReturnType<SandboxExtract>>;
const job = { workspaceId: 'ws_a', kbId: 'kb_a', maxTokens: 128, overlapTokens: 0 };

/** A knowledge base of three ready sources whose re-chunks write the given feed ranges (undefined: nothing written). */
function kbsWriting(ranges: ({ from: string; to: string } | undefined)[], ends: unknown[][] = []): KbStore {
  const sources = ranges.map((_, i) => ({ documentId: `doc_${i}`, status: 'ready', run: 1, chunking: '512/0' }));
  let at = 0;
  return {
    get: async () => ({ meta: { workspaceId: 'ws_a', chunking: { maxTokens: 128, overlapTokens: 0 } }, sources }),
    getMarkdown: async () => '# Title\n\nSome text.',
    rechunkSourceReport: async () => {
      const changes = ranges[at++];
      return changes ? { result: 'ok', changes } : { result: 'ok' };
    },
    endRechunk: async (...a: unknown[]) => void ends.push(a),
  } as unknown as KbStore;
}

describe('a knowledge base re-chunked', () => {
  it('ends with one script told the feed range from the first write to the last (its knowledge_base.changed) and to settle', async () => {
    const ends: unknown[][] = [];
    const kbs = kbsWriting([{ from: '1-0', to: '1-4' }, undefined, { from: '2-0', to: '2-7' }], ends);
    const done = await rechunkKnowledgeBase({ kbs, logger, extract, chunkDefaults: { maxTokens: 512, overlapTokens: 0 } }, job);
    expect(done.rechunked).toBe(3);
    expect(ends).toEqual([['ws_a', 'kb_a', { from: '1-0', to: '2-7' }, true]]);
  });

  it('tells no range when no source wrote to the feed (chunks cut as before), and still settles', async () => {
    const ends: unknown[][] = [];
    await rechunkKnowledgeBase({ kbs: kbsWriting([undefined, undefined], ends), logger, extract, chunkDefaults: { maxTokens: 512, overlapTokens: 0 } }, job);
    expect(ends).toEqual([['ws_a', 'kb_a', undefined, true]]);
  });
});
