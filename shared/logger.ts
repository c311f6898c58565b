import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/**
 * Structured JSON logs. Anything that could carry a secret is redacted by
 * path, and error objects are logged with their stack (logs only, never in a
 * response).
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'kb-ingest', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'headers["x-api-key"]',
        'headers.authorization',
        'apiKey',
        'key',
        'password',
        'text',
        '*.text',
      ],
      censor: '[redacted]',
    },
  });
}
