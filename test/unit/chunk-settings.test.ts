import { describe, expect, it } from 'vitest';
import { applyChunkChange, chunkingTag, MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../../shared/chunking/chunk-settings.js';
import { chunkId, occurrences } from '../../shared/chunking/chunk-id.js';
import { ConfigError, loadConfig } from '../../shared/runtime/config.js';
import { ValidationError } from '../../shared/errors.js';
import { chunkMaxTokensSchema } from '../../shared/schemas/source-form.js';
import { chunkMarkdown } from '../../worker/chunking/chunk-markdown.js';
import { countTokens } from '../../worker/chunking/tokenizer.js';

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

describe('the chunk bound', () => {
  const configRefuses = (env: Record<string, string>, name: string) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  };

  it('is one range, 16 to 8,192, for CHUNK_MAX_TOKENS and chunk_max_tokens alike', () => {
    expect([MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS]).toEqual([16, 8192]);
    for (const value of ['16', '8192']) {
      expect(loadConfig({ CHUNK_MAX_TOKENS: value }).CHUNK_MAX_TOKENS).toBe(Number(value));
      expect(chunkMaxTokensSchema.parse(value)).toBe(Number(value));
    }
    for (const value of ['15', '8193']) {
      configRefuses({ CHUNK_MAX_TOKENS: value }, 'CHUNK_MAX_TOKENS');
      expect(chunkMaxTokensSchema.safeParse(value).success).toBe(false);
    }
  });

  it('holds CHUNK_OVERLAP_TOKENS to half of CHUNK_MAX_TOKENS, as a knowledge base is held', () => {
    expect(loadConfig({ CHUNK_MAX_TOKENS: '100', CHUNK_OVERLAP_TOKENS: '50' }).CHUNK_OVERLAP_TOKENS).toBe(50);
    configRefuses({ CHUNK_MAX_TOKENS: '100', CHUNK_OVERLAP_TOKENS: '51' }, 'CHUNK_OVERLAP_TOKENS');
  });

  it('is a bound the chunker keeps at its smallest, with the repeated fence or table header counted', () => {
    const md = [
      '# Opening hours',
      'The clinic opens at nine in the morning and closes at five in the afternoon on weekdays.',
      '| day | opens | closes |\n|---|---|---|\n' + Array.from({ length: 12 }, (_, i) => `| day ${i} | 9 | 17 |`).join('\n'),
      '```sh\n' + Array.from({ length: 12 }, (_, i) => `echo step ${i}`).join('\n') + '\n```',
    ].join('\n\n');
    const chunks = chunkMarkdown(md, { maxTokens: MIN_CHUNK_TOKENS, overlapTokens: MIN_CHUNK_TOKENS / 2 });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.some((c) => c.prefix)).toBe(true);
    for (const c of chunks) expect(countTokens((c.prefix ?? '') + c.text)).toBeLessThanOrEqual(MIN_CHUNK_TOKENS);
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
