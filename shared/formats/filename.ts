import { basename } from 'node:path';

const MAX_FILENAME = 255;

// C0 and DEL controls, and the bidirectional marks, embeddings, overrides and
// isolates that can make `evil‮fdp.exe` display as `evilexe.pdf`.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A file name fit for display, or undefined when nothing usable is left. It
 * is only ever metadata (storage keys are generated ids, so a name never
 * reaches a path or a Redis key): path parts, control and bidirectional
 * characters are removed, and it is cut to 255 characters. Used for uploaded
 * files and for names taken from a fetched response alike.
 */
export function cleanFilename(raw: string | undefined): string | undefined {
  const name = basename(String(raw ?? '').replaceAll('\\', '/'))
    .replace(UNSAFE, '')
    .trim();
  const cut = [...name].slice(0, MAX_FILENAME).join('');
  return cut === '' || cut === '.' || cut === '..' ? undefined : cut;
}

/** {@link cleanFilename} for an uploaded part, which always needs a name: `upload` when nothing is left. */
export function sanitizeFilename(raw: string | undefined): string {
  return cleanFilename(raw) ?? 'upload';
}
