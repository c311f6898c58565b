import type { IncomingHttpHeaders } from 'node:http';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { SourceError } from '../../shared/source-errors.js';

/**
 * Reads a response body through its decoders into memory, never holding more
 * than `maxBytes`: a declared Content-Length over the cap fails before
 * reading, and both the raw and the decoded byte counts are capped while
 * streaming (a Content-Length may lie, a gzip bomb inflates). `signal` is the
 * fetch's total deadline, which also ends a body that trickles forever.
 */
export async function readCapped(body: Readable, headers: IncomingHttpHeaders, maxBytes: number, signal: AbortSignal) {
  const tooLarge = () => new SourceError('file_too_large', `the response is larger than ${maxBytes} bytes`, false);
  const declared = Number(header(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw tooLarge();
  }
  const decoders = decodersFor(header(headers, 'content-encoding'));
  const chunks: Buffer[] = [];
  let [raw, size] = [0, 0];
  // An encoded stream can decode to nothing (empty gzip members), so the raw side is capped too.
  const countRaw = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      raw += chunk.length;
      cb(raw > maxBytes ? tooLarge() : null, chunk);
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) return cb(tooLarge());
      chunks.push(chunk);
      cb();
    },
  });
  await pipeline([body, countRaw, ...decoders, sink], { signal });
  return Buffer.concat(chunks, size);
}

/** Content-Encoding lists codings in the order applied, so they are undone in reverse; at most two. */
function decodersFor(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase());
  const applied = codings.filter((c) => c !== '' && c !== 'identity');
  if (applied.length > 2) {
    throw new SourceError('unsupported_media_type', 'the server applied more than two content encodings', false);
  }
  return applied.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
    if (coding === 'deflate') return zlib.createInflate();
    if (coding === 'br') return zlib.createBrotliDecompress();
    const message = `the server used an unsupported content encoding (${coding.slice(0, 40)})`;
    throw new SourceError('unsupported_media_type', message, false);
  });
}

/** Drops a body we will not read; undici reports the abort as an error nobody needs. */
export function discard(body: Readable): void {
  body.on('error', () => undefined).destroy();
}

/** One header as a string; repeated headers are joined as HTTP allows. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
