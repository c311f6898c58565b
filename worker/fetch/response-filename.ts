import { cleanFilename } from '../../shared/formats/filename.js';

/**
 * A display name for a fetched response: Content-Disposition `filename*`
 * (RFC 5987, percent-decoded) or `filename`, else the last segment of the URL
 * path; cleaned by the same sanitiser as uploaded file names. Undefined when
 * nothing usable is left.
 */
export function responseFilename(disposition: string | undefined, url: URL): string | undefined {
  const star = disposition && /filename\*\s*=\s*[\w-]*'[^']*'([^;\s]+)/i.exec(disposition)?.[1];
  const plain = disposition && /filename\s*=\s*(?:"((?:\\.|[^"\\])*)"|([^;]+))/i.exec(disposition);
  const fromHeader = star ? decode(star) : plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : undefined;
  return cleanFilename(fromHeader ?? decode(url.pathname.split('/').pop() ?? ''));
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a stray % is kept as written
  }
}
