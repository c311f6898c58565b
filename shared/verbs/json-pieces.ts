/**
 * A JSON text held as encoded pieces of about {@link PIECE_BYTES} bytes
 * each: a knowledge base of 2,000 sources answers 1.5 MB, and building that as
 * one string, then one buffer, costs more (large allocations, their garbage)
 * than the reading it comes from. The pieces go to the socket one by one.
 */
export interface JsonPieces {
  readonly pieces: readonly Buffer[];
  /** Their length in bytes (the answer's Content-Length). */
  readonly bytes: number;
}

/** Bytes gathered into one piece. */
export const PIECE_BYTES = 32 * 1024;

/**
 * Gathers these parts, in order, into pieces: a string is encoded on its own,
 * a buffer (a part encoded once and kept) is copied as it is.
 */
export function piecesOf(parts: Iterable<string | Buffer>, pieceBytes = PIECE_BYTES): JsonPieces {
  const pieces: Buffer[] = [];
  let total = 0;
  let pending: Buffer[] = [];
  let bytes = 0;
  const flush = (): void => {
    pieces.push(pending.length === 1 ? pending[0]! : Buffer.concat(pending, bytes));
    total += bytes;
    pending = [];
    bytes = 0;
  };
  for (const part of parts) {
    const buf = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    pending.push(buf);
    bytes += buf.length;
    if (bytes >= pieceBytes) flush();
  }
  if (pending.length > 0) flush();
  return { pieces, bytes: total };
}

/** The whole text (tests, checks). */
export function piecesText(p: JsonPieces): string {
  return Buffer.concat(p.pieces as Buffer[]).toString('utf8');
}

/** The pieces as a response body stream; the pieces are shared, never changed. */
export function piecesStream(p: JsonPieces): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < p.pieces.length) controller.enqueue(p.pieces[next++]!);
      else controller.close();
    },
  });
}
