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
 * Writes parts, in order, into pieces of {@link PIECE_BYTES}: each part's
 * bytes are copied into the piece being filled, and a part larger than a
 * piece becomes a piece of its own, so an answer of 2,000 source rows costs
 * its copies and some fifty allocations, not one object per row.
 */
export class PieceWriter {
  private readonly pieces: Buffer[] = [];
  private total = 0;
  private piece: Buffer;
  private at = 0;

  constructor(private readonly pieceBytes = PIECE_BYTES) {
    this.piece = Buffer.allocUnsafe(pieceBytes);
  }

  /** An encoded part, copied. */
  bytes(part: Buffer): this {
    if (part.length > this.pieceBytes) {
      this.flush();
      this.pieces.push(part);
      this.total += part.length;
      return this;
    }
    if (this.at + part.length > this.pieceBytes) this.flush();
    part.copy(this.piece, this.at);
    this.at += part.length;
    return this;
  }

  /** A string part, encoded as UTF-8. */
  text(part: string): this {
    // At most 3 bytes per UTF-16 unit: written in place when that fits.
    if (part.length * 3 <= this.pieceBytes - this.at) {
      this.at += this.piece.write(part, this.at, 'utf8');
      return this;
    }
    return this.bytes(Buffer.from(part, 'utf8'));
  }

  /** One byte (an ASCII character: `,`, `]`). */
  byte(code: number): this {
    if (this.at === this.pieceBytes) this.flush();
    this.piece[this.at++] = code;
    return this;
  }

  done(): JsonPieces {
    this.flush();
    return { pieces: this.pieces, bytes: this.total };
  }

  private flush(): void {
    if (this.at === 0) return;
    // The piece's filled part; a mostly empty last piece is copied so the rest of its block is not kept.
    const filled = this.at * 2 < this.pieceBytes ? Buffer.from(this.piece.subarray(0, this.at)) : this.piece.subarray(0, this.at);
    this.pieces.push(filled);
    this.total += this.at;
    this.piece = Buffer.allocUnsafe(this.pieceBytes);
    this.at = 0;
  }
}

/** Gathers these parts, in order, into pieces (see {@link PieceWriter}). */
export function piecesOf(parts: Iterable<string | Buffer>, pieceBytes = PIECE_BYTES): JsonPieces {
  const w = new PieceWriter(pieceBytes);
  for (const part of parts) {
    if (typeof part === 'string') w.text(part);
    else w.bytes(part);
  }
  return w.done();
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
