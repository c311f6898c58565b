/**
 * One run of one source: what a job names, what the worker's transitions
 * are fenced by, and what completion events are about. A source's wire name
 * stays `documentId` (URLs and stored data use it).
 */
export interface SourceRef {
  kbId: string;
  documentId: string;
  run: number;
}

/** A source as a user's request names it: the caller's workspace, its knowledge base and the source. */
export interface SourceTarget {
  workspaceId: string;
  kbId: string;
  documentId: string;
}
