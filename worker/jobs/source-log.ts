import type { SourceType } from '../../shared/schemas/knowledge-base.js';
import type { StoredSource } from '../../shared/store/kb-records.js';

/** Longest name a log line carries, characters; a longer one is cut with an ellipsis. */
const MAX_LOGGED_NAME = 300;

/**
 * A URL as a log line may show it: scheme, host and path. A user name or
 * password is dropped, and so are the query string (shown as `?…`, since a
 * signed or tokened URL keeps its secret there) and the fragment.
 */
export function loggableUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}${u.search === '' ? '' : '?…'}`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * The fields that say which source a log line is about: its type and its
 * name, that is the file name, the URL (see {@link loggableUrl}) or a text's
 * title. A text's content is never a name; an untitled text has none.
 */
export function sourceLogFields(source: Pick<StoredSource, 'type' | 'content' | 'title' | 'filename'>): { type: SourceType; name?: string } {
  const name = source.type === 'url' ? loggableUrl(source.content) : source.type === 'file' ? (source.filename ?? source.content) : source.title;
  if (name === undefined || name === '') return { type: source.type };
  return { type: source.type, name: name.length > MAX_LOGGED_NAME ? `${name.slice(0, MAX_LOGGED_NAME - 1)}…` : name };
}
