import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../shared/errors.js';
import { SNIFF_BYTES, detectType } from '../shared/detect-type.js';
import type { StageWriter } from '../shared/store/stage-writer.js';
import { sanitizeFilename } from '../shared/filename.js';

export const FILE_FIELDS = new Set(['knowledge_base_files', 'knowledge_base_files.items']);
export const TEXT_FIELDS = new Set(['knowledge_base_name', 'name', 'knowledge_base_texts', 'knowledge_base_urls']);

export interface FormLimits {
  /** Per-file byte limit; exactly this many bytes is accepted. */
  maxFileBytes: number;
  /** Most file parts in one request. */
  maxFiles: number;
  /** Largest text field (bytes); the JSON arrays of texts and URLs live here. */
  maxFieldBytes: number;
}

export interface StagedFile {
  filename: string;
  declaredType?: string;
  mimeType: string;
  sizeBytes: number;
  stage: StageWriter;
}

export interface RawForm {
  fields: Map<string, string>;
  files: StagedFile[];
}

/**
 * Parses a multipart body as it streams. Each file is counted against the
 * limit as bytes arrive (413 the moment it passes it), its type is sniffed
 * from its first bytes (415), and its bytes go straight to a stage key. On any
 * failure the stages written so far are discarded before the error is thrown.
 */
export async function parseMultipart(
  body: Readable,
  headers: Record<string, string>,
  limits: FormLimits,
  newStage: () => StageWriter,
): Promise<RawForm> {
  const fields = new Map<string, string>();
  const files: StagedFile[] = [];
  const stages: StageWriter[] = [];
  const unknown: string[] = [];

  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers,
      // File names are UTF-8 in every current browser and client.
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: 8,
        parts: limits.maxFiles + 8,
        fieldSize: limits.maxFieldBytes,
        headerPairs: 32,
      },
    });
  } catch {
    throw new UnsupportedMediaTypeError('The request body must be multipart/form-data with a boundary');
  }

  const work: Promise<void>[] = [];
  const open = new Set<Readable>();
  const done = new Promise<void>((resolve, reject) => {
    // Stops reading the body at once. File streams busboy already started
    // would never end once the body is unpiped, so they are destroyed too,
    // which ends their receivers and lets the cleanup below run.
    const fail = (err: unknown): void => {
      body.unpipe(bb);
      bb.removeAllListeners('file');
      bb.removeAllListeners('field');
      for (const s of open) s.destroy();
      reject(err);
    };
    bb.on('field', (name, value, info) => {
      if (!TEXT_FIELDS.has(name)) return void unknown.push(name);
      if (info.valueTruncated) return fail(new PayloadTooLargeError(`The field ${name} is larger than ${limits.maxFieldBytes} bytes`));
      const key = name === 'name' ? 'knowledge_base_name' : name;
      if (fields.has(key)) return fail(new ValidationError({ [key]: 'must be sent once' }));
      fields.set(key, value);
    });
    bb.on('file', (name, stream, info) => {
      if (!FILE_FIELDS.has(name)) {
        unknown.push(name);
        stream.resume();
        return;
      }
      const stage = newStage();
      stages.push(stage);
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      const filename = sanitizeFilename(info.filename);
      const job = receiveFile(stream, stage, filename, info.mimeType, limits.maxFileBytes).then(
        (file) => void files.push(file),
        (err: unknown) => fail(err),
      );
      work.push(job);
    });
    bb.on('partsLimit', () => fail(new PayloadTooLargeError('The request has too many parts')));
    bb.on('filesLimit', () => fail(new PayloadTooLargeError(`The request has more than ${limits.maxFiles} files`)));
    bb.on('fieldsLimit', () => fail(new BadRequestError('The request has too many fields')));
    bb.on('error', () => fail(new BadRequestError('The multipart body is malformed')));
    bb.on('close', () => {
      Promise.all(work).then(() => resolve(), fail);
    });
    body.on('error', () => fail(new BadRequestError('The request body ended early')));
    body.on('aborted', () => fail(new BadRequestError('The request was aborted')));
  });
  body.pipe(bb);

  try {
    await done;
    await Promise.all(work);
    if (unknown.length > 0) {
      throw new ValidationError(Object.fromEntries(unknown.map((n) => [n, 'unknown field'])));
    }
    return { fields, files: orderByStage(files, stages) };
  } catch (err) {
    await Promise.allSettled(work);
    await Promise.allSettled(stages.map((s) => s.discard()));
    throw err;
  }
}

/** Files finish in stream order, but keep part order explicit all the same. */
function orderByStage(files: StagedFile[], stages: StageWriter[]): StagedFile[] {
  const rank = new Map(stages.map((s, i) => [s, i]));
  return [...files].sort((a, b) => (rank.get(a.stage) ?? 0) - (rank.get(b.stage) ?? 0));
}

async function receiveFile(
  stream: Readable & { truncated?: boolean },
  stage: StageWriter,
  filename: string,
  declaredType: string,
  maxBytes: number,
): Promise<StagedFile> {
  const hints = { filename, declaredType };
  let head: Buffer[] = [];
  let headBytes = 0;
  let detected: Awaited<ReturnType<typeof detectType>> | undefined;

  // busboy stops a file at maxBytes + 1 bytes, so the sum below passes the
  // limit exactly when the file is one byte too large.
  {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (stage.bytes + chunk.length > maxBytes) throw new PayloadTooLargeError();
      if (!detected) {
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes >= SNIFF_BYTES) {
          detected = await detectType(Buffer.concat(head, headBytes).subarray(0, SNIFF_BYTES), hints, false);
          if (!detected.ok) throw new UnsupportedMediaTypeError();
          head = [];
        }
      }
      await stage.write(chunk);
    }
    if (stream.truncated) throw new PayloadTooLargeError();
    if (!detected) {
      detected = await detectType(Buffer.concat(head, headBytes), hints, true);
      if (!detected.ok) throw new UnsupportedMediaTypeError();
    }
    await stage.flush();
  }
  if (!detected?.ok) throw new UnsupportedMediaTypeError();
  const file: StagedFile = { filename, mimeType: detected.mimeType, sizeBytes: stage.bytes, stage };
  if (declaredType && declaredType !== 'application/octet-stream') file.declaredType = declaredType;
  return file;
}
