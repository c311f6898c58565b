import { z } from 'zod';
import { chunkSchema } from './chunk.js';

const upsertedSchema = z
  .object({
    type: z.literal('chunk.upserted'),
    chunk: chunkSchema.meta({ description: 'The chunk as GET …/chunks shows it, with its source fields as they were when it was written' }),
  })
  .meta({ id: 'ChunkUpserted' });

const deletedSchema = z
  .object({
    type: z.literal('chunk.deleted'),
    chunkId: z.string().meta({ example: 'chk_2bF1x0cXlq3m9k0aQ4uR7w' }),
    documentId: z.string(),
  })
  .meta({ id: 'ChunkDeleted' });

const kbDeletedSchema = z
  .object({
    type: z.literal('knowledge_base.deleted'),
    kbId: z.string(),
  })
  .meta({
    id: 'KnowledgeBaseDeleted',
    description: "The knowledge base was deleted: drop every chunk of it. The feed's last event, read by every cursor of the feed however old, for CHANGES_RETENTION_HOURS",
  });

/** One event of a knowledge base's change feed. Consumers should skip types they do not know. */
export const changeEventSchema = z.discriminatedUnion('type', [upsertedSchema, deletedSchema, kbDeletedSchema]).meta({ id: 'ChangeEvent' });
export type ChangeEvent = z.infer<typeof changeEventSchema>;

/** A page of the change feed. */
export const changesPageSchema = z
  .object({
    data: z.array(changeEventSchema),
    nextCursor: z.string().meta({ description: 'Pass as `after` next time; the same cursor comes back while nothing new has happened' }),
    hasMore: z.boolean().meta({ description: 'More events follow right away (read again at once); false: the feed is read to its end' }),
  })
  .meta({ id: 'ChangesPage' });
export type ChangesPage = z.infer<typeof changesPageSchema>;
