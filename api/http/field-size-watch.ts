/**
 * Longest header block of one part the watch reads; busboy refuses longer
 * ones itself (its own cap is 16 KiB), so past it the watch stops looking.
 */
const MAX_HEADER_BYTES = 16 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const NAME_PARAM = /content-disposition:[^\r\n]*?;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i;

type State = 'seek' | 'headers' | 'body' | 'off';

/**
 * Follows a multipart body as it streams, ahead of the parser, and tells the
 * moment the value of one of `fields` passes `maxBytes`. busboy hands a field
 * over only once it ends, with one size limit for every field; a short field
 * such as the name (512 characters, at most 2 KiB) would otherwise be read up
 * to the 10 MiB the text fields may hold together before its own bound
 * applies. It finds part boundaries and header blocks itself (a search of
 * each piece for the delimiter) and keeps no more than the delimiter's length
 * between pieces, besides a header block while it arrives.
 */
export class FieldSizeWatch {
  private readonly delimiter: Buffer;
  private state: State = 'seek';
  /** Bytes of the previous pieces not yet decided on (a partial delimiter, or a header block). */
  private held: Buffer;
  /** Absolute offset of `held[0]` in the body (as seen with the leading CRLF). */
  private heldAt = 0;
  /** The field whose value is streaming, when it is one of `fields`. */
  private watched: string | undefined;
  private valueAt = 0;

  /**
   * @param boundary the multipart boundary from Content-Type
   * @param fields field names whose values are bounded
   * @param maxBytes most bytes such a value may have
   */
  constructor(
    boundary: string,
    private readonly fields: ReadonlySet<string>,
    private readonly maxBytes: number,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // The first delimiter has no CRLF before it: a virtual one makes it match like the others.
    this.held = Buffer.from('\r\n');
    this.heldAt = -2;
  }

  /** Takes the next piece of the body; returns the field's name once its value has passed the bound. */
  push(piece: Buffer): string | undefined {
    if (this.state === 'off') return undefined;
    const data = this.held.length > 0 ? Buffer.concat([this.held, piece]) : piece;
    const at = this.heldAt;
    let i = 0;
    for (;;) {
      if (this.state === 'headers') {
        const end = data.indexOf(HEADER_END, i);
        if (end === -1) {
          if (data.length - i > MAX_HEADER_BYTES) return this.stop();
          return this.hold(data, at, i);
        }
        const name = NAME_PARAM.exec(data.subarray(i, end).toString('latin1'));
        const field = name?.[1] ?? name?.[2] ?? '';
        this.watched = this.fields.has(field) ? field : undefined;
        this.valueAt = at + end + HEADER_END.length;
        this.state = 'body';
        i = end + HEADER_END.length;
        continue;
      }
      const next = data.indexOf(this.delimiter, i);
      if (next === -1) {
        // Bytes that could begin a delimiter are kept for the next piece; the rest is value.
        const keep = Math.max(i, data.length - (this.delimiter.length - 1));
        if (this.state === 'body' && this.watched && at + keep - this.valueAt > this.maxBytes) return this.over(this.watched);
        return this.hold(data, at, keep);
      }
      if (this.state === 'body' && this.watched && at + next - this.valueAt > this.maxBytes) return this.over(this.watched);
      this.state = 'headers';
      this.watched = undefined;
      i = next + this.delimiter.length;
    }
  }

  private hold(data: Buffer, at: number, from: number): undefined {
    // A copy: the piece belongs to the stream, and a view would keep all of it alive.
    this.held = Buffer.from(data.subarray(from));
    this.heldAt = at + from;
    return undefined;
  }

  private over(field: string): string {
    this.state = 'off';
    this.held = Buffer.alloc(0);
    return field;
  }

  private stop(): undefined {
    this.state = 'off';
    this.held = Buffer.alloc(0);
    return undefined;
  }
}
