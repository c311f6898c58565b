import { z } from 'zod';
import { ID_PATTERN } from '../ids.js';

/** Path identifier: 1 to 64 characters of [A-Za-z0-9_-]. */
export const idSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(ID_PATTERN, 'may contain only letters, digits, _ and -');

export const isoDateTime = z.string().meta({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' });

/** The error body of the source's section 7, used by every error response. */
export const errorBodySchema = z
  .object({
    timestamp: isoDateTime,
    status: z.number().int().meta({ example: 400 }),
    error: z.string().meta({ example: 'Bad Request' }),
    message: z.string().meta({ example: 'Invalid request parameters' }),
    path: z.string().meta({ example: '/v1/knowledge-bases' }),
    validationErrors: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Field name to message; present on 400s caused by fields' }),
  })
  .meta({ id: 'ErrorBody' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** `page` and `size` of list endpoints: page from 0, size 1..100, defaults 0 and 20. */
export const pageQuerySchema = z.object({
  page: z
    .string()
    .regex(/^\d+$/, 'must be an integer 0 or greater')
    .transform(Number)
    .pipe(z.number().int().min(0, 'must be an integer 0 or greater').max(Number.MAX_SAFE_INTEGER))
    .optional()
    .meta({ description: 'Zero-based page number', example: 0, type: 'integer', minimum: 0, default: 0, pattern: undefined }),
  size: z
    .string()
    .regex(/^\d+$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be an integer from 1 to 100').max(100, 'must be an integer from 1 to 100'))
    .optional()
    .meta({ description: 'Items per page, 1 to 100', example: 20, type: 'integer', minimum: 1, maximum: 100, default: 20, pattern: undefined }),
});

/** The page wrapper of the source's section 2.5. */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      page: z.number().int(),
      size: z.number().int(),
      totalCount: z.number().int(),
      totalPages: z.number().int(),
      hasNext: z.boolean(),
      hasPrevious: z.boolean(),
    })
    .meta({ id });
}

export interface Page<T> {
  data: T[];
  page: number;
  size: number;
  totalCount: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

/** Builds the wrapper with exact arithmetic: totalPages = ceil(totalCount / size). */
export function toPage<T>(data: T[], page: number, size: number, totalCount: number): Page<T> {
  const totalPages = Math.ceil(totalCount / size);
  return {
    data,
    page,
    size,
    totalCount,
    totalPages,
    hasNext: page + 1 < totalPages,
    hasPrevious: page > 0,
  };
}
