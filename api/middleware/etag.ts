import { PreconditionFailedError } from '../../shared/errors.js';

/** The ETag of a knowledge base at revision `rev` (strong: one revision, one representation). */
export const etagOf = (rev: number): string => `"r${rev}"`;

/**
 * The revision an `If-Match` header requires: undefined when the header is
 * absent or `*` (the knowledge base only has to exist). Any other value that
 * is not one of our ETags can never match, so it fails at once. If-Match uses
 * the strong comparison (RFC 9110, 13.1.1): a weak `W/` tag never matches.
 */
export function requiredRevision(ifMatch: string | undefined, current: number): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (!tags.includes(etagOf(current))) throw new PreconditionFailedError(current);
  return current;
}

/** True when an `If-None-Match` header names the current ETag (or is `*`). */
export function notModified(ifNoneMatch: string | undefined, rev: number): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etagOf(rev));
}
