import { basename } from 'node:path';

const MAX_FILENAME = 255;

/**
 * A display name for an uploaded file. It is only ever metadata: storage keys
 * are generated ids, so the name never reaches a path or a Redis key. Path
 * parts, control and bidirectional-override characters are removed.
 */
export function sanitizeFilename(raw: string | undefined): string {
  const name = basename(String(raw ?? '').replaceAll('\\', '/'))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069\u200e\u200f]/g, '')
    .trim();
  const cut = [...name].slice(0, MAX_FILENAME).join('');
  return cut === '' || cut === '.' || cut === '..' ? 'upload' : cut;
}
