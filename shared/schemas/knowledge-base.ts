import { z } from 'zod';
import { SOURCE_ERROR_CODES } from '../source-errors.js';
import { SOURCE_STATUSES, type SourceStatus } from '../sources/lifecycle.js';
import { isoDateTime, pageSchema } from './common.js';
import { metadataSchema } from './metadata.js';
import { siteSchema } from './site.js';

// Declared with the source's lifecycle; re-exported for the schemas' users.
export { SOURCE_STATUSES, type SourceStatus };
export const SOURCE_TYPES = ['text', 'url', 'file'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const KB_STATUSES = ['empty', 'in_progress', 'ready', 'partial'] as const;
export type KbStatus = (typeof KB_STATUSES)[number];

export const sourceErrorSchema = z
  .object({ code: z.enum(SOURCE_ERROR_CODES), message: z.string() })
  .meta({ id: 'SourceError' });

export const WARNING_CODES = ['garbled_text', 'partial_text', 'truncated', 'ocr', 'low_ocr_confidence', 'refresh_failed'] as const;

export const sourceWarningSchema = z
  .object({ code: z.enum(WARNING_CODES), message: z.string() })
  .meta({ id: 'SourceWarning', description: 'Why the text of a ready source may still be doubtful' });
export type SourceWarning = z.infer<typeof sourceWarningSchema>;

export const sourceProgressSchema = z
  .object({
    pagesDone: z.number().int().optional(),
    pagesTotal: z.number().int().optional(),
    bytesDone: z.number().int().optional(),
    bytesTotal: z.number().int().optional(),
  })
  .meta({ id: 'SourceProgress', description: 'How far a processing source has got: pages for PDF, bytes for other formats' });
export type SourceProgress = z.infer<typeof sourceProgressSchema>;

export const sourceSchema = z
  .object({
    documentId: z.string().meta({ example: 'doc_V1StGXR8_Z5jdHi6B-myT' }),
    type: z.enum(SOURCE_TYPES),
    content: z.string().meta({ description: 'The text, the URL, or the file name' }),
    status: z.enum(SOURCE_STATUSES),
    title: z.string().optional(),
    mimeType: z.string().optional().meta({ description: 'Detected type of the fetched or uploaded bytes' }),
    sizeBytes: z.number().int().optional(),
    charCount: z.number().int().optional().meta({ description: 'Characters of the extracted text' }),
    pageCount: z.number().int().optional().meta({ description: 'Pages, for PDF' }),
    truncated: z.boolean().optional().meta({ description: 'True when the text was cut at the service limit' }),
    error: sourceErrorSchema.optional(),
    warnings: z
      .array(sourceWarningSchema)
      .optional()
      .meta({ description: 'On a ready source whose text looks doubtful: garbled_text, partial_text, truncated, ocr (text read by OCR), low_ocr_confidence' }),
    chunkCount: z.number().int().optional().meta({ description: 'Chunks of a ready source (see /chunks)' }),
    metadata: metadataSchema.optional().meta({ description: 'Set at creation or with PATCH of the document; copied onto each of its chunks' }),
    progress: sourceProgressSchema.optional(),
    checkedAt: isoDateTime.optional().meta({ description: 'URL sources: when the URL was last fetched' }),
    refreshedAt: isoDateTime.optional().meta({ description: 'URL sources: when a refresh last found changed content' }),
    siteId: z.string().optional().meta({ description: 'URL sources: the site whose discovery added this page' }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Source' });
export type Source = z.infer<typeof sourceSchema>;

export const sourceCountsSchema = z
  .object(Object.fromEntries(SOURCE_STATUSES.map((s) => [s, z.number().int()])) as Record<SourceStatus, z.ZodNumber>)
  .meta({ id: 'SourceCounts' });
export type SourceCounts = z.infer<typeof sourceCountsSchema>;

const kbFields = {
  kbId: z.string().min(1).max(64).meta({ example: 'kb_V1StGXR8_Z5jdHi6B-myT' }),
  name: z.string().max(512),
  status: z.enum(KB_STATUSES),
  sourceCounts: sourceCountsSchema,
  autoRefreshHours: z.number().int().optional().meta({ description: 'When set, every URL source is fetched again on this period (hours)' }),
  chunkMaxTokens: z.number().int().meta({ description: 'Most cl100k_base tokens in one chunk of this knowledge base (chunk_max_tokens)' }),
  chunkOverlapTokens: z.number().int().meta({ description: "Tokens of a chunk's tail repeated at the start of the next (chunk_overlap_tokens)" }),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
};

export const knowledgeBaseSchema = z
  .object({
    ...kbFields,
    files: z.array(sourceSchema),
    rechunkingSources: z.number().int().min(1).optional().meta({
      description:
        'While a change of chunk_max_tokens or chunk_overlap_tokens is being applied: the ready sources whose chunks are still those of the earlier settings (absent once none are; knowledge_base.settled is sent when the re-chunk ends)',
    }),
    sites: z.array(siteSchema).optional().meta({ description: 'Site sources (knowledge_base_sites), when there are any' }),
  })
  .meta({ id: 'KnowledgeBase' });
export type KnowledgeBase = z.infer<typeof knowledgeBaseSchema>;

export const knowledgeBaseSummarySchema = z.object(kbFields).meta({ id: 'KnowledgeBaseSummary' });
export type KnowledgeBaseSummary = z.infer<typeof knowledgeBaseSummarySchema>;

export const knowledgeBasePageSchema = pageSchema(knowledgeBaseSummarySchema, 'KnowledgeBasePage');

export const documentSchema = sourceSchema
  .extend({ text: z.string().nullable().meta({ description: 'Extracted text; null until the source is ready' }) })
  .meta({ id: 'Document' });

export const markdownDocumentSchema = documentSchema
  .extend({ markdown: z.string().nullable().meta({ description: 'The extraction as Markdown; null until the source is ready' }) })
  .meta({ id: 'MarkdownDocument' });

export const sourcePageSchema = pageSchema(sourceSchema, 'SourcePage');

/** `status` filter of the source list. */
export const sourceListQuerySchema = z.object({
  status: z
    .enum(SOURCE_STATUSES, { error: `must be one of ${SOURCE_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'Only sources with this status' }),
});

/** `format` of GET document: `text` (default) or `markdown`. */
export const documentQuerySchema = z.object({
  format: z
    .enum(['text', 'markdown'], { error: 'must be text or markdown' })
    .optional()
    .meta({ description: '`markdown` adds the `markdown` field; `text` (the default) leaves the document as it is' }),
});
