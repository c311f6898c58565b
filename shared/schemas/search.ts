import { z } from 'zod';
import { strictFieldsError } from '../field-suggestion.js';
import { chunkSchema } from './chunk.js';
import { idSchema } from './common.js';
import { metadataSchema } from './metadata.js';

/** Most results one search returns. */
export const MAX_TOP_K = 100;
/** Longest query, in characters. */
export const MAX_QUERY_CHARS = 1000;

export const searchRequestSchema = z
  .strictObject({
    query: z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
    topK: z.number().int().min(1).max(MAX_TOP_K).default(10).meta({ description: `How many chunks to return, best first (default 10, at most ${MAX_TOP_K})` }),
    filter: z
      .strictObject({
        documentIds: z.array(idSchema).min(1).max(100).optional().meta({ description: 'Only chunks of these sources' }),
        metadata: metadataSchema.optional().meta({ description: "Only chunks whose source's metadata has each of these keys with exactly this value" }),
      }, { error: strictFieldsError('must be an object with documentIds and/or metadata') })
      .optional(),
  }, { error: strictFieldsError('must be a JSON object with a query') })
  .meta({ id: 'SearchRequest' });
export type SearchRequest = z.infer<typeof searchRequestSchema>;

const searchHitSchema = z
  .object({
    score: z.number().meta({ description: 'BM25 score over the text and the heading path (heading words weighted); higher is better' }),
    chunk: chunkSchema,
    highlight: z.string().meta({
      description: 'Up to 240 characters of the text around the first match, HTML-escaped, with each matched word in <mark>…</mark>',
      example: 'Refunds are paid <mark>within</mark> thirty days…',
    }),
    matchedTerms: z.array(z.string()).meta({ description: 'The words of the text that matched a query term (after stemming)' }),
  })
  .meta({ id: 'SearchHit' });
export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchResultSchema = z.object({ data: z.array(searchHitSchema) }).meta({ id: 'SearchResult' });
