import { z } from 'zod';
import { CidrAllowList } from '../net/address-policy.js';
import { MAX_CHUNK_TOKENS, maxOverlapFor, MIN_CHUNK_TOKENS } from '../chunking/chunk-settings.js';
import { parseAcceptedFormats } from '../formats/format-policy.js';
import { LIMIT_DEFAULTS } from './limit-defaults.js';
import { STEMMER_LANGUAGES } from '../search/tokenize.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) =>
  z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

export { LIMIT_DEFAULTS };

/** Below EXTRACT_MEMORY_MB plus this, sandbox children could not even start under SANDBOX_ADDRESS_SPACE_MB. */
const MIN_ADDRESS_SPACE_HEADROOM_MB = 1536;

const envSchema = z
  .object({
    PORT: int(0, 65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    HTTP_HEADERS_TIMEOUT_MS: int(1000, 3_600_000).default(30_000),
    HTTP_REQUEST_TIMEOUT_MS: int(1000, 3_600_000).default(300_000),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    REDIS_CLUSTER_NODES: z
      .string()
      .regex(
        /^\s*[A-Za-z0-9._-]+:\d{1,5}\s*(,\s*[A-Za-z0-9._-]+:\d{1,5}\s*)*$/,
        'must be comma-separated host:port seed nodes, e.g. redis-1:6379,redis-2:6379',
      )
      .optional(),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1 to 32 letters, digits, _ or -')
      .default('kbi'),
    WORKER_CONCURRENCY: int(1, 64).default(2),
    MAX_FILE_BYTES: int(1, 1024 * 1024 * 1024).default(26_214_400),
    ACCEPTED_FORMATS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const parsed = parseAcceptedFormats(value);
        if ('error' in parsed) {
          ctx.addIssue({ code: 'custom', message: parsed.error });
          return z.NEVER;
        }
        return parsed.formats;
      }),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    URL_FETCH_ALLOW_PRIVATE: bool.default(false),
    URL_FETCH_ALLOW_CIDRS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const list = CidrAllowList.parse(value);
        if ('error' in list) {
          ctx.addIssue({ code: 'custom', message: list.error });
          return z.NEVER;
        }
        return list;
      }),
    BULL_BOARD_USER: z.string().min(1).optional(),
    BULL_BOARD_PASSWORD: z.string().min(1).optional(),
    METRICS_REQUIRE_AUTH: bool.default(true),
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
    ADMIN_TOKEN: z
      .string()
      .min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)')
      .max(256, 'must be at most 256 characters')
      .regex(/^\S+$/, 'must not contain spaces (it is sent as a bearer token)')
      .optional(),
    URL_FETCH_TIMEOUT_MS: int(1000, 600_000).default(30_000),
    URL_FETCH_MAX_PER_HOST: int(1, 1000).default(2),
    URL_FETCH_HOST_SPACING_MS: int(0, 60_000).default(250),
    EXTRACT_TIMEOUT_MS: int(1000, 600_000).default(60_000),
    EXTRACT_MEMORY_MB: int(64, 16_384).default(1024),
    SANDBOX_MAX_JOBS: int(1, 1_000_000).default(200),
    SANDBOX_RECYCLE_RSS_MB: int(32, 16_384).optional(),
    SANDBOX_ADDRESS_SPACE_MB: int(0, 1_048_576).optional(),
    MAX_TEXT_CHARS: int(1000, 100_000_000).default(5_000_000),
    CHUNK_MAX_TOKENS: int(MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS).default(512),
    CHUNK_OVERLAP_TOKENS: int(0, maxOverlapFor(MAX_CHUNK_TOKENS)).default(0),
    MAX_PDF_PAGES: int(1, 100_000).default(2000),
    OCR_ENABLED: bool.default(true),
    OCR_LANGUAGES: z
      .string()
      .regex(/^[a-z][a-z0-9_]{1,31}(\+[a-z][a-z0-9_]{1,31}){0,7}$/, 'must be Tesseract language codes joined by +, e.g. eng or eng+deu+fra')
      .default('eng'),
    OCR_MAX_PAGES: int(1, 10_000).default(100),
    OCR_PAGE_TIMEOUT_MS: int(1000, 600_000).default(30_000),
    DOCX_MAX_UNPACKED_MB: int(1, 16_384).default(LIMIT_DEFAULTS.DOCX_MAX_UNPACKED_MB),
    HTML_MAX_DEPTH: int(16, 100_000).default(LIMIT_DEFAULTS.HTML_MAX_DEPTH),
    MAX_SOURCES_PER_REQUEST: int(1, 1000).default(100),
    MAX_UPLOAD_CONCURRENCY: int(1, 1000).default(16),
    MAX_UPLOADS_PER_KEY: int(1, 1000).default(4),
    MAX_REQUEST_BYTES: int(1024, 16 * 1024 * 1024 * 1024).default(104_857_600),
    UPLOAD_MIN_BYTES_PER_SECOND: int(0, 1024 * 1024 * 1024).default(16_384),
    UPLOAD_MIN_RATE_WINDOW_SECONDS: int(1, 3600).default(10),
    REDIS_UPLOAD_HIGH_WATER_PERCENT: int(1, 100).default(90),
    RATE_LIMIT_PER_MINUTE: int(0, 1_000_000).default(600),
    REFRESH_COOLDOWN_SECONDS: int(0, 86_400).default(60),
    KB_VIEW_CACHE_MB: int(0, 16_384).default(32),
    KB_VIEW_VERIFY: bool.default(false),
    QUOTA_KNOWLEDGE_BASES: int(0, 100_000_000).default(0),
    QUOTA_SOURCES_PER_KNOWLEDGE_BASE: int(0, 100_000_000).default(0),
    QUOTA_STORED_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(0),
    QUOTA_SOURCES_IN_FLIGHT: int(0, 100_000_000).default(0),
    IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE: int(1, 10_000_000).default(10_000),
    IDEMPOTENCY_MAX_BODY_BYTES: int(256, 16 * 1024 * 1024).default(4096),
    CHANGES_RETENTION_HOURS: int(1, 8760).default(168),
    CHANGES_MAX_EVENTS: int(100, 10_000_000).default(100_000),
    CHANGES_MAX_BYTES: int(1024 * 1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    CHANGES_WORKSPACE_MAX_BYTES: int(1024 * 1024, 1024 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
    SEARCH_STEMMER: z.enum([...STEMMER_LANGUAGES, 'none']).default('english'),
    SEARCH_INDEX_CACHE_MB: int(16, 1_048_576).default(256),
    SHUTDOWN_GRACE_MS: int(0, 3_600_000).default(25_000),
    REDIS_STARTUP_BACKOFF_MAX_MS: int(100, 600_000).default(10_000),
    STAGING_TTL_SECONDS: int(60, 30 * 86_400).default(7 * 86_400),
    WORKER_LOCK_DURATION_MS: int(1_000, 600_000).default(30_000),
    JOB_ATTEMPTS: int(1, 50).default(5),
    JOB_BACKOFF_MS: int(10, 600_000).default(2_000),
    WORKER_MAX_STALLED_COUNT: int(0, 100).default(2),
    RECONCILE_INTERVAL_MS: int(1_000, 3_600_000).default(60_000),
    MAX_WEBHOOKS_PER_WORKSPACE: int(1, 1000).default(20),
    WEBHOOK_CONCURRENCY: int(1, 256).default(8),
    WEBHOOK_ENDPOINT_CONCURRENCY: int(1, 256).default(2),
    WEBHOOK_DISABLE_AFTER_DAYS: int(1, 90).default(5),
    WEBHOOK_SECRET_GRACE_HOURS: int(0, 720).default(24),
    CRAWL_MAX_PAGES: int(1, 100_000).default(1_000),
    CRAWL_WORKSPACE_MAX_PAGES: int(1, 10_000_000).default(5_000),
    CRAWL_WORKSPACE_MAX_DISCOVERIES: int(1, 1_000).default(2),
    CRAWL_MAX_DELAY_SECONDS: int(0, 3_600).default(30),
    URL_FETCH_USER_AGENT: z
      .string()
      .regex(/^[\x21-\x7e][\x20-\x7e]{0,199}$/, 'must be 1 to 200 printable ASCII characters')
      .default('kb-ingest/0.1 (+url-source)'),
  })
  .superRefine((env, ctx) => {
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must not be above HTTP_REQUEST_TIMEOUT_MS' });
    }
    if (env.CHUNK_OVERLAP_TOKENS > maxOverlapFor(env.CHUNK_MAX_TOKENS)) {
      ctx.addIssue({ code: 'custom', path: ['CHUNK_OVERLAP_TOKENS'], message: 'must be at most half of CHUNK_MAX_TOKENS' });
    }
    for (const node of parseNodes(env.REDIS_CLUSTER_NODES)) {
      if (node.port < 1 || node.port > 65535) {
        ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER_NODES'], message: `port of ${node.host} must be 1 to 65535` });
      }
    }
    // Slot holders of one host start one spacing apart, so the last waits this long within its fetch's deadline.
    if ((env.URL_FETCH_MAX_PER_HOST - 1) * env.URL_FETCH_HOST_SPACING_MS > env.URL_FETCH_TIMEOUT_MS / 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['URL_FETCH_HOST_SPACING_MS'],
        message: '(URL_FETCH_MAX_PER_HOST - 1) x URL_FETCH_HOST_SPACING_MS must be at most half of URL_FETCH_TIMEOUT_MS',
      });
    }
    if (env.SANDBOX_RECYCLE_RSS_MB !== undefined && env.SANDBOX_RECYCLE_RSS_MB >= env.EXTRACT_MEMORY_MB) {
      ctx.addIssue({
        code: 'custom',
        path: ['SANDBOX_RECYCLE_RSS_MB'],
        message: 'must be below EXTRACT_MEMORY_MB',
      });
    }
    const space = env.SANDBOX_ADDRESS_SPACE_MB;
    if (space !== undefined && space !== 0 && space < env.EXTRACT_MEMORY_MB + MIN_ADDRESS_SPACE_HEADROOM_MB) {
      ctx.addIssue({
        code: 'custom',
        path: ['SANDBOX_ADDRESS_SPACE_MB'],
        message: `must be 0 (no limit) or at least EXTRACT_MEMORY_MB + ${MIN_ADDRESS_SPACE_HEADROOM_MB}: a sandbox child holds about 1.2 GB of address space before it reads a document`,
      });
    }
    if (Boolean(env.BULL_BOARD_USER) !== Boolean(env.BULL_BOARD_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: ['BULL_BOARD_PASSWORD'],
        message: 'BULL_BOARD_USER and BULL_BOARD_PASSWORD must be set together',
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

/** Validated runtime configuration. Only this module reads `process.env`. */
export interface Config extends Env {
  /** The Redis URL actually used (REDIS_URL, or the one a launcher filled in). */
  redisUrl: string;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES); with them, redisUrl is not used. */
  redisClusterNodes?: { host: string; port: number }[];
}

function parseNodes(list: string | undefined): { host: string; port: number }[] {
  if (!list) return [];
  return list.split(',').map((entry) => {
    const [host = '', port = ''] = entry.trim().split(':');
    return { host, port: Number(port) };
  });
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses the environment once. Every problem is listed in one error, one line
 * per variable, so an operator fixes them all in one go.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || 'env'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const nodes = parseNodes(parsed.data.REDIS_CLUSTER_NODES);
  return {
    ...parsed.data,
    redisUrl: parsed.data.REDIS_URL ?? 'redis://127.0.0.1:6379',
    ...(nodes.length > 0 && { redisClusterNodes: nodes }),
  };
}
