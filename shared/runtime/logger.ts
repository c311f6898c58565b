import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** Causes followed when an error is logged; deeper ones are left out. */
const MAX_CAUSE_DEPTH = 3;

/**
 * Where an error was thrown: the first frame of its stack, with the working
 * directory taken off (`UploadGate.admit (api/http/upload-gate.ts:46:13)`). One
 * location, enough to find the line; the stack itself is never logged.
 */
export function throwSite(stack: string | undefined): string | undefined {
  const frame = stack
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('at '));
  if (!frame) return undefined;
  const cwd = process.cwd();
  return frame
    .slice(3)
    .replaceAll('file://', '')
    .replaceAll(`${cwd}/`, '')
    .slice(0, 300);
}

/**
 * What a logged error may show: its class, message, code and where it was
 * thrown (one frame, not the stack), and the same of its cause. Everything
 * else an error carries stays out of the logs:
 * ioredis attaches the failed command with its arguments (script payloads,
 * file bytes, document text) as `command`/`args`, and a refused transaction
 * its `previousErrors` with theirs.
 */
export function serializeError(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) {
    if (typeof err === 'string') return { message: err };
    // Connection handlers log `{ message }` alone, on purpose without the driver error's other fields.
    const message = (err as { message?: unknown } | null)?.message;
    return { message: typeof message === 'string' ? message : `non-error value (${typeof err})` };
  }
  const out: Record<string, unknown> = { type: err.constructor.name, name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  const at = throwSite(err.stack);
  if (at) out.at = at;
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(err.cause, depth + 1);
  return out;
}

/**
 * Structured JSON logs. Errors go through {@link serializeError}; anything
 * that could carry a secret is redacted by path. No stack trace goes into a
 * log line or a response.
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'kb-ingest', ...bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError, error: serializeError },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'headers["x-api-key"]',
          'headers.authorization',
          'apiKey',
          'key',
          'password',
          'secret',
          '*.secret',
          'token',
          '*.token',
          'ADMIN_TOKEN',
          '*.ADMIN_TOKEN',
          'text',
          '*.text',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
