/**
 * A JSON text held as encoded pieces of about {@link PIECE_CHARS} characters
 * each: a knowledge base of 2,000 sources answers 1.5 MB, and building that as
 * one string, then one buffer, costs more (large allocations, their garbage)
 * than the reading it comes from. The pieces go to the socket one by one.
 */
export interface JsonPieces {
  readonly pieces: readonly Buffer[];
  /** Their length in bytes (the answer's Content-Length). */
  readonly bytes: number;
}

/** Characters gathered into one piece before it is encoded. */
export const PIECE_CHARS = 32 * 1024;

/** Gathers these strings, in order, into pieces. */
export function piecesOf(parts: Iterable<string>, pieceChars = PIECE_CHARS): JsonPieces {
  const pieces: Buffer[] = [];
  let bytes = 0;
  let pending: string[] = [];
  let chars = 0;
  const flush = (): void => {
    const piece = Buffer.from(pending.join(''), 'utf8');
    pieces.push(piece);
    bytes += piece.length;
    pending = [];
    chars = 0;
  };
  for (const part of parts) {
    pending.push(part);
    chars += part.length;
    if (chars >= pieceChars) flush();
  }
  if (pending.length > 0) flush();
  return { pieces, bytes };
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
