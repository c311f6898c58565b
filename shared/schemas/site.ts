import { strictFieldsError } from '../field-suggestion.js';
import { z } from 'zod';
import { isoDateTime } from './common.js';
import { checkSourceUrl } from '../net/url-policy.js';

/**
 * A site source: a start page or a sitemap whose same-origin pages become URL
 * sources of the knowledge base. The form item is declared here once; the API
 * validates `knowledge_base_sites` with it and the OpenAPI document shows it.
 */

/** Hard ceiling of `maxPages`; a deployment lowers it with CRAWL_MAX_PAGES (default 1,000). */
export const SITE_PAGES_CEILING = 100_000;
/** Pages a site takes when `maxPages` is not given. */
export const DEFAULT_SITE_PAGES = 100;
/** Link depth from the start page when `maxDepth` is not given, and its ceiling. */
export const DEFAULT_SITE_DEPTH = 3;
export const MAX_SITE_DEPTH = 10;
/** Sites one knowledge base may hold, and path globs per list. */
export const MAX_SITES_PER_KB = 20;
export const MAX_SITE_GLOBS = 20;
const MAX_GLOB_CHARS = 256;

export const SITEMAP_MODES = ['auto', 'only', 'off'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];
export const SITE_STATES = ['discovering', 'done', 'failed'] as const;
export type SiteState = (typeof SITE_STATES)[number];
/** The quotas that stop a site adding pages: its knowledge base's sources, its workspace's stored bytes, its sources in flight. */
export const SITE_TRUNCATED_REASONS = ['knowledge_base_full', 'workspace_full', 'sources_in_flight'] as const;
export type SiteTruncatedReason = (typeof SITE_TRUNCATED_REASONS)[number];

const glob = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(MAX_GLOB_CHARS, `must be at most ${MAX_GLOB_CHARS} characters`)
  .refine((s) => s.startsWith('/') || s.startsWith('*'), 'must be a path glob starting with / or *');

const globs = (what: string) =>
  z
    .array(glob, { error: 'must be an array of path globs' })
    .max(MAX_SITE_GLOBS, `at most ${MAX_SITE_GLOBS} globs`)
    .meta({ description: `${what}; \`*\` matches within a path segment, \`**\` across segments, \`?\` one character` });

/** An element of `knowledge_base_sites`. */
export const siteItemSchema = z
  .strictObject(
    {
      url: z
        .string({ error: 'must be a string' })
        .transform((raw, ctx) => {
          const checked = checkSourceUrl(raw);
          if (checked.ok) return checked.url;
          ctx.addIssue({ code: 'custom', message: checked.message });
          return z.NEVER;
        })
        .meta({ description: 'A page to start from, or a sitemap (…/sitemap.xml, gzip too)' }),
      maxPages: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(SITE_PAGES_CEILING, `must be at most ${SITE_PAGES_CEILING}`)
        .default(DEFAULT_SITE_PAGES)
        .meta({ description: `Pages to add at most (default ${DEFAULT_SITE_PAGES}, at most CRAWL_MAX_PAGES)` }),
      maxDepth: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(0, 'must be at least 0')
        .max(MAX_SITE_DEPTH, `must be at most ${MAX_SITE_DEPTH}`)
        .default(DEFAULT_SITE_DEPTH)
        .meta({ description: `Links followed from the start page (default ${DEFAULT_SITE_DEPTH})` }),
      include: globs('Only paths matching one of these').optional(),
      exclude: globs('No path matching one of these').optional(),
      sitemap: z
        .enum(SITEMAP_MODES, { error: `must be one of ${SITEMAP_MODES.join(', ')}` })
        .default('auto')
        .meta({ description: '`auto`: the sitemaps robots.txt or /sitemap.xml name, else links; `only`: sitemaps only; `off`: links only' }),
    },
    { error: strictFieldsError('must be an object with a url') },
  )
  .meta({ id: 'SiteSource' });
export type SiteSettings = z.output<typeof siteItemSchema>;

/** Warnings one discovery keeps at most; later ones are dropped. */
export const MAX_SITE_WARNINGS = 20;

/** Something a discovery left out and went on without (a sitemap it could not read). */
export const siteWarningSchema = z
  .object({
    code: z.enum(['sitemap_skipped']).meta({ description: '`sitemap_skipped`: a sitemap that could not be read or was over a bound added no page' }),
    url: z.string(),
    message: z.string().meta({ example: 'the sitemap inflates past 52428800 bytes' }),
  })
  .meta({ id: 'SiteWarning' });
export type SiteWarning = z.infer<typeof siteWarningSchema>;

/** A site as the API answers it. */
export const siteSchema = z
  .object({
    siteId: z.string().meta({ example: 'site_V1StGXR8_Z5jdHi6B-myT' }),
    url: z.string(),
    maxPages: z.number().int(),
    maxDepth: z.number().int(),
    include: z.array(z.string()),
    exclude: z.array(z.string()),
    sitemap: z.enum(SITEMAP_MODES),
    status: z.enum(SITE_STATES).meta({ description: 'discovering while its pages are being found; its pages are then ordinary URL sources' }),
    pagesFound: z.number().int().meta({ description: 'Distinct allowed same-site pages the last discovery found' }),
    pagesAdded: z.number().int().meta({ description: 'Pages of the site in the knowledge base (at most maxPages)' }),
    truncated: z.boolean().meta({ description: 'True when discovery stopped at maxPages, a crawl bound or a quota' }),
    truncatedReason: z
      .enum(SITE_TRUNCATED_REASONS)
      .optional()
      .meta({
        description:
          'When a quota stopped the site adding pages: `knowledge_base_full` (sources per knowledge base), `workspace_full` (stored bytes) or `sources_in_flight`',
      }),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    warnings: z
      .array(siteWarningSchema)
      .max(MAX_SITE_WARNINGS)
      .optional()
      .meta({ description: `What the last discovery skipped and went on without (at most ${MAX_SITE_WARNINGS}); absent when nothing was` }),
    discoveredAt: isoDateTime.optional().meta({ description: 'When the last discovery ended' }),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Site' });
export type Site = z.infer<typeof siteSchema>;
