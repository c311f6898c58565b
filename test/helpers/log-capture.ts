import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shared/runtime/logger.js';

/** A logger built as the service builds its own, whose JSON lines land in `lines` for the test to read. */
export function capturingLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, {}, sink), lines };
}
