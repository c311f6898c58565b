import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';

/** The feed position before every event. */
export const FEED_START = '0-0';

const STREAM_ID = /^(\d{1,15})-(\d{1,15})$/;
const MESSAGE = 'is not a cursor of this change feed';

/** A knowledge base's mark in its cursors: 8 base64url characters of a SHA-256 of its id. */
export function kbMark(kbId: string): string {
  return createHash('sha256').update(kbId).digest('base64url').slice(0, 8);
}

/**
 * A feed cursor: opaque to clients, so the store may change how it counts
 * without breaking stored cursors' shape. With the knowledge base's id it is
 * `c2.` and the base64url of `<position>.<kbMark>`, so a cursor of another
 * knowledge base is refused; without, `c1.` and the base64url of the position
 * (what cursors were before, still read).
 */
export function encodeCursor(streamId: string, kbId?: string): string {
  if (kbId === undefined) return `c1.${Buffer.from(streamId).toString('base64url')}`;
  return `c2.${Buffer.from(`${streamId}.${kbMark(kbId)}`).toString('base64url')}`;
}

/**
 * The position a cursor names; a string this service did not give out is a
 * 400 on `field`. With `kbId`, a `c2.` cursor of another knowledge base is
 * one too (a `c1.` cursor carries no mark: the feed refuses it only when it
 * is ahead of the newest event).
 */
export function decodeCursor(cursor: string, field = 'after', kbId?: string): string {
  const version = cursor.slice(0, 3);
  const body = version === 'c1.' || version === 'c2.' ? Buffer.from(cursor.slice(3), 'base64url').toString('utf8') : '';
  let id = body;
  if (version === 'c2.') {
    const dot = body.lastIndexOf('.');
    id = dot < 0 ? '' : body.slice(0, dot);
    if (dot < 0 || (kbId !== undefined && body.slice(dot + 1) !== kbMark(kbId))) id = '';
  }
  if (!STREAM_ID.test(id)) throw new ValidationError({ [field]: MESSAGE });
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
