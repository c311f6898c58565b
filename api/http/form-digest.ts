import { createHash, type Hash } from 'node:crypto';
import type { FileTap, PartTap } from './multipart.js';

const sha256 = (head: string): Hash => createHash('sha256').update(head);

/**
 * The Idempotency-Key fingerprint of a multipart form, taken as the parse
 * streams by: SHA-256 over every part in order (field name, file name and
 * declared type, and the value or bytes), so the same form sent twice has the
 * same digest whatever its boundary. The parser only sees a {@link PartTap}.
 */
export class FormDigest implements PartTap {
  /** One hex digest per part; a file's slot is taken when it begins, so parts stay in order. */
  private readonly parts: string[] = [];
  private completed = false;

  field(name: string, value: string): void {
    this.parts.push(sha256(`field\0${name}\0`).update(value).digest('hex'));
  }

  file(name: string, info: { filename: string | undefined; mimeType: string }): FileTap {
    const slot = this.parts.push('') - 1;
    const hash = sha256(`file\0${name}\0${info.filename}\0${info.mimeType}\0`);
    return {
      data: (chunk) => void hash.update(chunk),
      end: () => void (this.parts[slot] = hash.digest('hex')),
    };
  }

  complete(): void {
    this.completed = true;
  }

  /** The form's digest (hex), or undefined while the form has not been read whole and accepted. */
  value(): string | undefined {
    if (!this.completed) return undefined;
    return this.parts.reduce((h, d) => h.update(d), createHash('sha256')).digest('hex');
  }
}
