/**
 * Entry point of a sandbox child (see sandbox.ts): receives one request over
 * IPC, extracts, sends one reply and exits. Whatever a hostile file does to
 * this process (heap exhaustion, a parser stuck in a loop) stays here.
 */
import { isSourceError, type SourceErrorCode } from '../shared/source-errors.js';
import { extractText, type ExtractOptions, type Extraction } from './extractors/index.js';

/** What the parent sends: the bytes (structured-cloned over IPC) and the options. */
export interface ChildRequest {
  bytes: Uint8Array;
  opts: ExtractOptions;
  /** Test-only: hold this many MiB of ArrayBuffers and never answer (the watchdog test). */
  testAllocateMb?: number;
}

/** The child's one answer. */
export type ChildReply =
  | { ok: true; extraction: Extraction }
  | { ok: false; code: SourceErrorCode; message: string; retryable: boolean };

// tsx turns source maps on; Node would then parse pdf.js's multi-megabyte maps in every child.
process.setSourceMapsEnabled(false);

if (process.send) {
  // A parent that died cannot kill us any more; do not outlive it.
  process.once('disconnect', () => process.exit(1));
  process.once('message', (message: ChildRequest) => {
    void handle(message).then((reply) => process.send?.(reply, undefined, {}, () => process.exit(0)));
  });
}

async function handle({ bytes, opts, testAllocateMb }: ChildRequest): Promise<ChildReply> {
  try {
    if (testAllocateMb) await holdMemory(testAllocateMb);
    return { ok: true, extraction: await extractText(bytes, opts) };
  } catch (err) {
    if (isSourceError(err)) return { ok: false, code: err.code, message: err.message, retryable: err.retryable };
    const name = err instanceof Error ? err.name : typeof err;
    // Library messages can quote document content; only the error's class leaves the child.
    return { ok: false, code: 'internal', message: `Extraction failed unexpectedly (${name}).`, retryable: false };
  }
}

// ArrayBuffers live outside the V8 heap, so --max-old-space-size never stops this; the RSS watchdog must.
async function holdMemory(mb: number): Promise<never> {
  const hold: Uint8Array[] = [];
  for (let i = 0; i < mb; i++) hold.push(new Uint8Array(1024 * 1024).fill(1));
  return new Promise<never>(() => setInterval(() => hold.length, 1000));
}
