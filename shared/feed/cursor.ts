import { ValidationError } from '../errors.js';

/** The feed position before every event. */
export const FEED_START = '0-0';

const STREAM_ID = /^(\d{1,15})-(\d{1,15})$/;

/**
 * A feed cursor: opaque to clients (`c1.` and the base64url of the position),
 * so the store may change how it counts without breaking stored cursors' shape.
 */
export function encodeCursor(streamId: string): string {
  return `c1.${Buffer.from(streamId).toString('base64url')}`;
}

/** The position a cursor names; a string this service did not give out is a 400 on `field`. */
export function decodeCursor(cursor: string, field = 'after'): string {
  const id = cursor.startsWith('c1.') ? Buffer.from(cursor.slice(3), 'base64url').toString('utf8') : '';
  if (!STREAM_ID.test(id)) throw new ValidationError({ [field]: 'is not a cursor of this change feed' });
  return id;
}

/** The events one write added to a feed: the position before the first, and the last. */
export interface FeedRange {
  from: string;
  to: string;
}

/** The range a script reports (`feedTo` empty when it wrote nothing), or undefined. */
export function feedRange(feedFrom: string, feedTo: string): FeedRange | undefined {
  return feedTo === '' ? undefined : { from: feedFrom, to: feedTo };
}
