/**
 * Defaults that code outside the configuration also falls back on
 * (extractors called directly, in tests and tools). A module of its own:
 * `config.ts` loads zod and the stemmers, which a sandbox child reading one
 * HTML page should not pay for (some 120 ms of CPU and 18 MB).
 */
export const LIMIT_DEFAULTS = { HTML_MAX_DEPTH: 4096, DOCX_MAX_UNPACKED_MB: 256 } as const;
