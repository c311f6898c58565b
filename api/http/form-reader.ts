import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { UnsupportedMediaTypeError } from '../../shared/errors.js';
import type { AppEnv } from '../context.js';
import type { AppDeps } from '../deps.js';
import { LARGE_TEXT_BYTES, parseMultipart, type FormLimits, type PartTap, type StageSink } from './multipart.js';
import { readJsonSourceBody } from './json-source-body.js';
import { readSourceForm, type SourceForm } from './source-form.js';
import { UploadGate } from './upload-gate.js';
import { closeIfBodyUnread } from './unread-body.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Keeps nothing: the sink of a read that is only observed. */
class DiscardingSink implements StageSink {
  readonly key = '';
  bytes = 0;
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
  }
  async flush(): Promise<void> {}
  async discard(): Promise<void> {}
}

/** What one {@link createFormReader} `read` is for. */
export interface FormReadOptions {
  /** The knowledge base the staged files belong to. */
  kbId: string;
  /** The name field must be present (create) rather than an optional rename (update). */
  requireName: boolean;
  /** Sees the parts as they are parsed (the Idempotency-Key fingerprint). */
  tap?: PartTap | undefined;
  /**
   * Runs before the first file is staged (a quota check); what it throws ends
   * the request with nothing staged. A number it returns bounds the request's
   * file bytes while they stream (413 past it): the workspace's stored-bytes
   * quota left.
   */
  beforeStaging?: () => Promise<number | null | void>;
}

/**
 * Reads the body of POST and PATCH, a multipart form (the default) or the
 * same fields as a JSON object: streams it through the limits and the upload
 * gate into staged sources, hands them to `commit`, and discards the staged
 * bytes when either fails.
 */
export function createFormReader(deps: AppDeps) {
  const { config, store } = deps;
  const gate = new UploadGate(deps.redis, {
    maxUploads: config.MAX_UPLOAD_CONCURRENCY,
    maxUploadsPerKey: config.MAX_UPLOADS_PER_KEY,
    redisHighWaterPercent: config.REDIS_UPLOAD_HIGH_WATER_PERCENT,
  });
  const limits: FormLimits = {
    maxFileBytes: config.MAX_FILE_BYTES,
    maxFiles: config.MAX_SOURCES_PER_REQUEST,
    maxRequestBytes: config.MAX_REQUEST_BYTES,
    minBytesPerSecond: config.UPLOAD_MIN_BYTES_PER_SECOND,
    rateWindowMs: config.UPLOAD_MIN_RATE_WINDOW_SECONDS * 1000,
    acceptedFormats: config.ACCEPTED_FORMATS,
  };

  function bodyOf(c: Context<AppEnv>): { body: Readable; headers: Record<string, string>; json: boolean } {
    const type = c.req.header('content-type') ?? '';
    const json = JSON_TYPE.test(type);
    if (!json && !/^multipart\/form-data\b/i.test(type)) {
      throw new UnsupportedMediaTypeError('The request body must be multipart/form-data or application/json');
    }
    const body = c.env?.incoming ?? Readable.fromWeb((c.req.raw.body ?? new Blob([]).stream()) as never);
    return { body, headers: { 'content-type': type }, json };
  }
  const meterLimits = { maxBytes: limits.maxRequestBytes, minBytesPerSecond: limits.minBytesPerSecond, rateWindowMs: limits.rateWindowMs };
  const formOptions = (requireName: boolean) => ({ maxSources: config.MAX_SOURCES_PER_REQUEST, requireName, maxSitePages: config.CRAWL_MAX_PAGES });

  /** A JSON body: no file to stage, so no stage and no quota check before staging; a large one takes an upload slot as large text fields do. */
  async function readJson<T>(c: Context<AppEnv>, body: Readable, { requireName, tap }: FormReadOptions, commit: (form: SourceForm) => Promise<T>): Promise<T> {
    let release: (() => void) | undefined;
    try {
      await gate.assertRoom();
      const declared = Number(c.req.header('content-length') ?? Number.NaN);
      if (!(declared <= LARGE_TEXT_BYTES)) release = await gate.admit(c.get('principal').keyId);
      const raw = await readJsonSourceBody(body, meterLimits, tap);
      return await commit(readSourceForm(raw, formOptions(requireName)));
    } catch (err) {
      closeIfBodyUnread(c);
      throw err;
    } finally {
      release?.();
    }
  }

  return {
    async read<T>(c: Context<AppEnv>, { kbId, requireName, tap, beforeStaging }: FormReadOptions, commit: (form: SourceForm) => Promise<T>): Promise<T> {
      const { body, headers, json } = bodyOf(c);
      if (json) return readJson(c, body, { kbId, requireName, tap, beforeStaging }, commit);
      let release: (() => void) | undefined;
      let stages: StageSink[] = [];
      let room: number | null = null;
      try {
        await gate.assertRoom();
        const raw = await parseMultipart(body, headers, limits, {
          openStage: () => store.stages.open(kbId),
          beforeFirstFile: async () => {
            room = (await beforeStaging?.()) ?? null;
            release = await gate.admit(c.get('principal').keyId);
          },
          fileBytesRoom: () => room,
          ...(tap && { tap }),
        });
        stages = raw.files.map((f) => f.stage);
        return await commit(readSourceForm(raw, formOptions(requireName)));
      } catch (err) {
        await store.stages.discard(stages);
        closeIfBodyUnread(c);
        throw err;
      } finally {
        release?.();
      }
    },

    /**
     * Reads a body only for `tap` (an idempotent repeat): the same limits
     * apply, but nothing is staged, sniffed or admitted.
     */
    async observe(c: Context<AppEnv>, tap: PartTap): Promise<void> {
      const { body, headers, json } = bodyOf(c);
      try {
        if (json) {
          await readJsonSourceBody(body, meterLimits, tap);
          return;
        }
        await parseMultipart(body, headers, limits, { openStage: () => new DiscardingSink(), sniff: false, tap });
      } catch (err) {
        closeIfBodyUnread(c);
        throw err;
      }
    },
  };
}
