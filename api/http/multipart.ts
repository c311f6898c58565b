import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError, StoredBytesQuotaError, UnsupportedMediaTypeError, ValidationError } from '../../shared/errors.js';
import { SNIFF_BYTES, detectType } from '../../shared/formats/detect-type.js';
import { refusalMessage } from '../../shared/formats/format-policy.js';
import type { SourceFormat } from '../../shared/formats/formats.js';
import { FORM_FIELD, FORM_FILE_FIELDS, FORM_TEXT_FIELDS, MAX_NAME_CHARS, MAX_TEXT_FIELDS_BYTES } from '../../shared/schemas/source-form.js';
import type { Stage } from '../../shared/store/stage-store.js';
import { sanitizeFilename } from '../../shared/formats/filename.js';
import { BodyMeter } from './body-meter.js';
import { FieldSizeWatch } from './field-size-watch.js';
import { fileTooLargeMessage } from './limit-messages.js';
import { unknownFieldMessage } from '../../shared/field-suggestion.js';

const FILE_FIELDS = new Set<string>(FORM_FILE_FIELDS);
const TEXT_FIELDS = new Set<string>(FORM_TEXT_FIELDS);
/** Distinct text fields a request can carry (the name has an alias); a field sent twice is refused anyway. */
const MAX_TEXT_PARTS = TEXT_FIELDS.size;
/**
 * busboy's own cap on one part's header block (it is not configurable); with
 * the parts limit it bounds the non-file bytes besides the text fields.
 */
const PART_HEADER_BYTES = 16 * 1024;
/** Slack for boundaries and for file bytes on their way from the meter to a stage. */
const IN_FLIGHT_BYTES = 1024 * 1024;
/** RFC 2046: a boundary is 1 to 70 characters. A longer one only makes every search for it dearer. */
const MAX_BOUNDARY_CHARS = 70;
const BOUNDARY_PARAM = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i;
/** The most UTF-8 bytes a name within MAX_NAME_CHARS can have: past them it is refused while it streams. */
const MAX_NAME_BYTES = MAX_NAME_CHARS * 4;
const NAME_FIELDS = new Set<string>([FORM_FIELD.name, FORM_FIELD.nameAlias]);

/** The `validationErrors` message for a text field sent as a file part. */
export const FILED_TEXT_MESSAGE = "must be a text field, not a file part (with curl, -F 'name=<file' sends a file's content as the field; -F 'name=@file' uploads it as a file)";

export interface FormLimits {
  /** Per-file byte limit; exactly this many bytes is accepted. */
  maxFileBytes: number;
  /** Most file parts in one request. */
  maxFiles: number;
  /** Whole request body in bytes. */
  maxRequestBytes: number;
  /** Minimum rate of the body while it streams, bytes per second (0: off). */
  minBytesPerSecond: number;
  /** Window over which the minimum rate is judged, milliseconds. */
  rateWindowMs: number;
  /** The deployment's format policy (`ACCEPTED_FORMATS`); default the contract's five. */
  acceptedFormats?: readonly SourceFormat[];
}

/** Where a file's bytes go: a Redis stage, or nowhere for a read that keeps nothing. */
export type StageSink = Pick<Stage, 'key' | 'bytes' | 'write' | 'flush' | 'discard'>;

export interface FormHooks {
  /** A new stage for the next file part. */
  openStage(): StageSink;
  /**
   * Sniff each file's type from its bytes and refuse what is not allowed
   * (415). Default true; a read that keeps nothing may skip it.
   */
  sniff?: boolean;
  /** Sees every accepted part go by, in order, without changing it. */
  tap?: PartTap;
  /**
   * Runs once, before the first byte of the first file part is written: the
   * place to refuse uploads (slots, Redis memory). Requests without file
   * parts never call it.
   */
  beforeFirstFile?(): Promise<void>;
  /**
   * File bytes the request may still stage in all (the workspace's
   * stored-bytes quota left), read once `beforeFirstFile` has run; null or
   * absent: no bound besides the limits.
   */
  fileBytesRoom?(): number | null;
}

/**
 * An observer of the parts a parse accepts, in part order: a text field with
 * its value, a file part with its raw (unsanitized) name and declared type,
 * then its bytes as they stream and its end; `complete` once the whole form
 * is accepted. A failed parse never calls `complete` and may leave parts
 * unended.
 */
export interface PartTap {
  field(name: string, value: string): void;
  file(name: string, info: { filename: string | undefined; mimeType: string }): FileTap;
  complete(): void;
}

/** The bytes of one file part, as {@link PartTap.file} watches them. */
export interface FileTap {
  data(chunk: Buffer): void;
  /** The part was received whole (within the limits, of an allowed type). */
  end(): void;
}

export interface StagedFile {
  filename: string;
  declaredType?: string;
  mimeType: string;
  sizeBytes: number;
  /** SHA-256 of the file's bytes (hex), for de-duplication. */
  sha256: string;
  stage: StageSink;
}

export interface RawForm {
  fields: Map<string, string>;
  files: StagedFile[];
}

/**
 * Text fields past this many bytes (1 MiB) make a request take an upload slot
 * (MAX_UPLOAD_CONCURRENCY, MAX_UPLOADS_PER_KEY) as a file would.
 */
export const LARGE_TEXT_BYTES = 1024 * 1024;

/**
 * Parses a multipart body as it streams. The body is metered (413 past
 * `maxRequestBytes`, 408 below the minimum rate); each file is counted
 * against the limit as bytes arrive (413 the moment it passes it), its type is
 * sniffed from its first bytes (415, naming the part), and its bytes go
 * straight to a stage. Text fields are bounded together while they stream. On
 * any failure the stages written so far are discarded before the error is
 * thrown.
 */
export async function parseMultipart(body: Readable, headers: Record<string, string>, limits: FormLimits, hooks: FormHooks): Promise<RawForm> {
  const fields = new Map<string, string>();
  const files: StagedFile[] = [];
  const stages: StageSink[] = [];
  const unknown: string[] = [];
  // Text fields sent as file parts (curl's `-F name=@file`), named apart from unknown ones.
  const filedText: string[] = [];
  const maxParts = limits.maxFiles + MAX_TEXT_PARTS;

  const boundary = BOUNDARY_PARAM.exec(headers['content-type'] ?? '');
  const boundaryText = boundary?.[1] ?? boundary?.[2] ?? '';
  if (boundaryText.length > MAX_BOUNDARY_CHARS) {
    throw new BadRequestError(`The multipart boundary must be at most ${MAX_BOUNDARY_CHARS} characters`);
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers,
      // File names are UTF-8 in every current browser and client.
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: MAX_TEXT_PARTS,
        parts: maxParts,
        fieldSize: MAX_TEXT_FIELDS_BYTES + 1,
      },
    });
  } catch {
    throw new UnsupportedMediaTypeError('The request body must be multipart/form-data with a boundary');
  }

  const meter = new BodyMeter(body, { maxBytes: limits.maxRequestBytes, minBytesPerSecond: limits.minBytesPerSecond, rateWindowMs: limits.rateWindowMs });
  const nonFileBudget = MAX_TEXT_FIELDS_BYTES + maxParts * PART_HEADER_BYTES + IN_FLIGHT_BYTES;
  const received = { passed: 0, fileBytes: 0, textBytes: 0 };
  const nameWatch = boundaryText === '' ? undefined : new FieldSizeWatch(boundaryText, NAME_FIELDS, MAX_NAME_BYTES);
  let firstFile: Promise<void> | undefined;
  let filePart = 0;

  const work: Promise<void>[] = [];
  const open = new Set<Readable>();
  const done = new Promise<void>((resolve, reject) => {
    // Stops reading the body at once. File streams busboy already started
    // would never end once the body is unpiped, so they are destroyed too,
    // which ends their receivers and lets the cleanup below run.
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      body.unpipe(meter);
      meter.unpipe(bb);
      meter.destroy();
      bb.removeAllListeners('file');
      bb.removeAllListeners('field');
      for (const s of open) s.destroy();
      reject(err);
    };
    meter.on('data', (piece: Buffer) => {
      // Text fields are held in memory until they end, so their bytes are bounded as they arrive.
      received.passed += piece.length;
      const longName = nameWatch?.push(piece);
      if (longName !== undefined) {
        const field = longName === FORM_FIELD.nameAlias ? FORM_FIELD.name : longName;
        return fail(new ValidationError({ [field]: `must be at most ${MAX_NAME_CHARS} characters` }));
      }
      const held = received.passed - received.fileBytes;
      if (held > nonFileBudget) {
        fail(new PayloadTooLargeError(`The text fields of a request may hold at most ${MAX_TEXT_FIELDS_BYTES} bytes together`));
      }
      // Large text bodies cost API memory as files do (several times their size once parsed): they take an upload slot too.
      if (firstFile === undefined && held > LARGE_TEXT_BYTES) {
        firstFile = hooks.beforeFirstFile?.() ?? Promise.resolve();
        // Part of the work the parse waits for: a refused slot fails the request even when the body is already read.
        work.push(firstFile);
        firstFile.catch(fail);
      }
    });
    meter.on('error', fail);
    bb.on('field', (name, value, info) => {
      if (!TEXT_FIELDS.has(name)) return void unknown.push(name);
      received.textBytes += Buffer.byteLength(value, 'utf8');
      if (info.valueTruncated || received.textBytes > MAX_TEXT_FIELDS_BYTES) {
        const detail = `the text fields of a request may hold at most ${MAX_TEXT_FIELDS_BYTES} bytes together`;
        return fail(new PayloadTooLargeError(`The text fields of a request may hold at most ${MAX_TEXT_FIELDS_BYTES} bytes together`, { part: name, detail }));
      }
      hooks.tap?.field(name, value);
      const key = name === FORM_FIELD.nameAlias ? FORM_FIELD.name : name;
      if (fields.has(key)) return fail(new ValidationError({ [key]: 'must be sent once' }));
      fields.set(key, value);
    });
    bb.on('file', (name, stream, info) => {
      if (!FILE_FIELDS.has(name)) {
        (TEXT_FIELDS.has(name) ? filedText : unknown).push(name);
        stream.resume();
        return;
      }
      const part = `${FORM_FIELD.files}[${filePart++}]`;
      firstFile ??= hooks.beforeFirstFile?.() ?? Promise.resolve();
      const stage = hooks.openStage();
      stages.push(stage);
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      const filename = sanitizeFilename(info.filename);
      const tap = hooks.tap?.file(name, { filename: info.filename, mimeType: info.mimeType });
      const p: FilePart = {
        part,
        filename,
        declaredType: info.mimeType,
        maxBytes: limits.maxFileBytes,
        received,
        room: () => hooks.fileBytesRoom?.() ?? null,
        detect: hooks.sniff !== false,
        accepted: limits.acceptedFormats,
      };
      const receiving = firstFile
        .then(() => receiveFile(stream, stage, p, tap))
        .then(
          (file) => {
            tap?.end();
            files.push(file);
          },
          (err: unknown) => fail(err),
        );
      work.push(receiving);
    });
    bb.on('partsLimit', () => fail(new PayloadTooLargeError(`The request has more than ${maxParts} parts`)));
    bb.on('filesLimit', () => fail(new PayloadTooLargeError(`The request has more than ${limits.maxFiles} files`)));
    bb.on('fieldsLimit', () => fail(new BadRequestError('The request has too many fields')));
    bb.on('error', () => fail(new BadRequestError('The multipart body is malformed')));
    bb.on('close', () => {
      Promise.all(work).then(() => resolve(), fail);
    });
    body.on('error', () => fail(new BadRequestError('The request body ended early')));
    body.on('aborted', () => fail(new BadRequestError('The request was aborted')));
  });
  body.pipe(meter).pipe(bb);

  try {
    await done;
    await Promise.all(work);
    if (unknown.length > 0 || filedText.length > 0) {
      throw new ValidationError({
        ...Object.fromEntries(unknown.map((n) => [n, unknownFieldMessage(n, [...TEXT_FIELDS, FORM_FIELD.files])])),
        ...Object.fromEntries(filedText.map((n) => [n, FILED_TEXT_MESSAGE])),
      });
    }
    hooks.tap?.complete();
    return { fields, files: orderByStage(files, stages) };
  } catch (err) {
    await Promise.allSettled(work);
    await Promise.allSettled(stages.map((s) => s.discard()));
    throw err;
  } finally {
    meter.destroy();
  }
}

/** Files finish in stream order, but keep part order explicit all the same. */
function orderByStage(files: StagedFile[], stages: StageSink[]): StagedFile[] {
  const rank = new Map(stages.map((s, i) => [s, i]));
  return [...files].sort((a, b) => (rank.get(a.stage) ?? 0) - (rank.get(b.stage) ?? 0));
}

interface FilePart {
  /** `knowledge_base_files[i]`, for error messages. */
  part: string;
  filename: string;
  declaredType: string;
  maxBytes: number;
  received: { fileBytes: number };
  /** The request's file bytes left under the workspace's stored-bytes quota (null: no such bound). */
  room: () => number | null;
  /** Sniff the type (415); off for a read that keeps nothing. */
  detect: boolean;
  /** Formats the deployment accepts; default the contract's five. */
  accepted?: readonly SourceFormat[] | undefined;
}

async function receiveFile(stream: Readable & { truncated?: boolean }, stage: StageSink, p: FilePart, tap: FileTap | undefined): Promise<StagedFile> {
  const hints = { filename: p.filename, declaredType: p.declaredType };
  const content = createHash('sha256');
  const tooLarge = (): PayloadTooLargeError =>
    new PayloadTooLargeError(fileTooLargeMessage(p.maxBytes), { part: p.part, detail: `${p.filename} is larger than ${p.maxBytes} bytes` });
  const unsupported = (why: string): UnsupportedMediaTypeError =>
    new UnsupportedMediaTypeError(refusalMessage(p.accepted), { part: p.part, detail: `${p.filename}: ${why}` });
  let head: Buffer[] = [];
  let headBytes = 0;
  let detected: Awaited<ReturnType<typeof detectType>> | undefined;

  // busboy stops a file at maxBytes + 1 bytes, so the sum below passes the
  // limit exactly when the file is one byte too large.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    p.received.fileBytes += chunk.length;
    tap?.data(chunk);
    content.update(chunk);
    if (stage.bytes + chunk.length > p.maxBytes) throw tooLarge();
    const room = p.room();
    if (room !== null && p.received.fileBytes > room) {
      throw new StoredBytesQuotaError(`The files of this request would pass the workspace's quota of stored bytes (${room} bytes left)`, {
        part: p.part,
        detail: `the request's files pass the ${room} bytes its workspace may still store`,
      });
    }
    if (p.detect && !detected) {
      head.push(chunk);
      headBytes += chunk.length;
      if (headBytes >= SNIFF_BYTES) {
        detected = await detectType(Buffer.concat(head, headBytes).subarray(0, SNIFF_BYTES), hints, false, p.accepted);
        if (!detected.ok) throw unsupported(detected.message);
        head = [];
      }
    }
    await stage.write(chunk);
  }
  if (stream.truncated) throw tooLarge();
  const sha256 = content.digest('hex');
  if (!p.detect) return { filename: p.filename, mimeType: 'application/octet-stream', sizeBytes: stage.bytes, sha256, stage };
  detected ??= await detectType(Buffer.concat(head, headBytes), hints, true, p.accepted);
  if (!detected.ok) throw unsupported(detected.message);
  await stage.flush();
  const file: StagedFile = { filename: p.filename, mimeType: detected.mimeType, sizeBytes: stage.bytes, sha256, stage };
  if (p.declaredType && p.declaredType !== 'application/octet-stream') file.declaredType = p.declaredType;
  return file;
}
