import { describe, expect, it } from 'vitest';
import { applyChunkChange, chunkingTag } from '../../shared/chunking/chunk-settings.js';
import { chunkId, occurrences } from '../../shared/chunking/chunk-id.js';
import { ValidationError } from '../../shared/errors.js';

describe('applyChunkChange', () => {
  const current = { maxTokens: 512, overlapTokens: 100 };

  it('keeps what the change leaves out', () => {
    expect(applyChunkChange(current, {})).toEqual(current);
    expect(applyChunkChange(current, { overlapTokens: 0 })).toEqual({ maxTokens: 512, overlapTokens: 0 });
  });

  it('lowers an old overlap to half of a smaller maximum given alone', () => {
    expect(applyChunkChange(current, { maxTokens: 100 })).toEqual({ maxTokens: 100, overlapTokens: 50 });
  });

  it('accepts an overlap of exactly half the maximum and refuses one more, naming the field', () => {
    expect(applyChunkChange(current, { maxTokens: 101, overlapTokens: 50 })).toEqual({ maxTokens: 101, overlapTokens: 50 });
    const err = (() => {
      try {
        applyChunkChange(current, { maxTokens: 101, overlapTokens: 51 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect(Object.keys((err as ValidationError).fields)).toEqual(['chunk_overlap_tokens']);
  });

  it('tags settings as max/overlap', () => {
    expect(chunkingTag({ maxTokens: 64, overlapTokens: 8 })).toBe('64/8');
  });
});

describe('chunkId', () => {
  it('depends on the knowledge base, the source, the text and the repeat, and on nothing else', () => {
    const id = chunkId('kb_a', 'doc_a', 'Parking is free.');
    expect(id).toMatch(/^chk_[A-Za-z0-9_-]{22}$/);
    expect(chunkId('kb_a', 'doc_a', 'Parking is free.')).toBe(id);
    expect(new Set([id, chunkId('kb_b', 'doc_a', 'Parking is free.'), chunkId('kb_a', 'doc_b', 'Parking is free.'), chunkId('kb_a', 'doc_a', 'Parking is free!'), chunkId('kb_a', 'doc_a', 'Parking is free.', 1)]).size).toBe(5);
  });

  it('numbers repeated texts in order', () => {
    expect(occurrences(['a', 'b', 'a', 'a', 'b'])).toEqual([0, 0, 1, 2, 1]);
  });
});
