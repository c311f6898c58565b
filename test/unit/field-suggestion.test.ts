import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nearestName, strictFieldsError, unknownKeysMessage } from '../../shared/field-suggestion.js';
import { FORM_FIELD } from '../../shared/schemas/source-form.js';

describe('nearestName', () => {
  const form = Object.values(FORM_FIELD);

  it.each([
    ['knowledge_base_text', 'knowledge_base_texts'],
    ['texts', 'knowledge_base_texts'],
    ['knowledgeBaseTexts', 'knowledge_base_texts'],
    ['knowledge-base-urls', 'knowledge_base_urls'],
    ['KNOWLEDGE_BASE_NAME', 'knowledge_base_name'],
  ])('points the form field %s at %s', (sent, expected) => {
    expect(nearestName(sent, form)).toBe(expected);
  });

  it.each([
    ['read_only', 'readOnly'],
    ['readonly', 'readOnly'],
    ['workspace_id', 'workspaceId'],
    ['enable', 'enabled'],
  ])('points the JSON field %s at %s across naming styles', (sent, expected) => {
    expect(nearestName(sent, ['workspaceId', 'name', 'readOnly', 'enabled'])).toBe(expected);
  });

  it('suggests nothing for a name far from every known one', () => {
    expect(nearestName('colour', ['workspaceId', 'readOnly'])).toBeUndefined();
    expect(nearestName('x'.repeat(101), ['x'.repeat(101)])).toBeUndefined();
  });
});

describe('strictFieldsError', () => {
  const schema = z.strictObject({ query: z.string(), topK: z.number().optional() }, { error: strictFieldsError('must be an object') });

  it('names the unknown key with the nearest known one, read from the schema', () => {
    const r = schema.safeParse({ query: 'a', top_k: 3 });
    expect(r.error?.issues[0]?.message).toBe('unknown field "top_k"; did you mean "topK"?');
  });

  it('lists the known keys when none is close, and every unknown key when there are several', () => {
    expect(schema.safeParse({ query: 'a', zzzzzz: 1 }).error?.issues[0]?.message).toBe('unknown field "zzzzzz"; allowed: query, topK');
    expect(unknownKeysMessage(['querry', 'zzzzzz'], ['query', 'topK'])).toBe('unknown fields "querry" (did you mean "query"?), "zzzzzz"; allowed: query, topK');
  });

  it('says what the body must be when it is not an object', () => {
    expect(schema.safeParse([1]).error?.issues[0]?.message).toBe('must be an object');
  });
});
