/**
 * A source's life, declared once: its statuses, which moves between them the
 * store's scripts may make, and the counter each status keeps on its
 * knowledge base. The Lua scripts cannot import this module, so the store
 * generates their `lifecycle` include from it (see `lifecycle-lua.ts`):
 * adding a status or a move is a change here, not in every script.
 */

/** Every status a source can have, in the order counts are reported. */
export const SOURCE_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

/** Statuses that still wait for a worker: listed in the active index, watched by the reconciler. */
export const ACTIVE_STATUSES = ['pending', 'processing'] as const satisfies readonly SourceStatus[];
/** Statuses a run ends in: a finished source is never changed by a worker again. */
export const FINAL_STATUSES = ['ready', 'failed'] as const satisfies readonly SourceStatus[];

/** Where a source comes from or goes to when it is added or deleted. */
export const ABSENT = 'absent';
export type LifecycleState = SourceStatus | typeof ABSENT;

/**
 * The moves a script may make, by the script family that makes them. A
 * move not listed here is refused by the generated Lua helper at run time.
 */
export const TRANSITIONS = {
  /** Added: to be extracted, or ready with an extraction of the same bytes taken over. */
  commit: [[ABSENT, 'pending'], [ABSENT, 'ready']],
  /** A worker claims its run. */
  start: [['pending', 'processing']],
  /** A run ends; a pending one too, when the reconciler gives up on its job. */
  finish: [['processing', 'ready'], ['processing', 'failed'], ['pending', 'ready'], ['pending', 'failed']],
  /** A user retries a failed source. */
  retry: [['failed', 'pending']],
  /** A URL source is fetched again. */
  refresh: [['ready', 'pending'], ['failed', 'pending']],
  /** A user replaces a file or text source with a new version (PUT), keeping its id. */
  replace: [['ready', 'pending'], ['failed', 'pending']],
  /** The reconciler mends a ready source whose extraction was torn. */
  repair: [['ready', 'pending'], ['ready', 'failed']],
  /** A user deletes a source, whatever its status. */
  delete: SOURCE_STATUSES.map((s) => [s, ABSENT] as const),
} as const satisfies Record<string, readonly (readonly [LifecycleState, LifecycleState])[]>;

export type TransitionFamily = keyof typeof TRANSITIONS;

/** Whether a source may move from `from` to `to` (by any script). */
export function isAllowedMove(from: LifecycleState, to: LifecycleState): boolean {
  return Object.values(TRANSITIONS).some((moves) => moves.some(([f, t]) => f === from && t === to));
}

/** Whether a status still waits for a worker. */
export function isActiveStatus(status: string): status is (typeof ACTIVE_STATUSES)[number] {
  return (ACTIVE_STATUSES as readonly string[]).includes(status);
}

/** Whether a status ends a run. */
export function isFinalStatus(status: string): status is (typeof FINAL_STATUSES)[number] {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** Prefix of the knowledge-base hash fields that count its sources by status (as stored data has it). */
export const COUNTER_PREFIX = 'n:';

/** The knowledge-base hash field counting its sources of one status (`n:<status>`). */
export function counterField(status: SourceStatus): string {
  return `${COUNTER_PREFIX}${status}`;
}

/** How many sources of each status a knowledge base has. */
export type SourceCounts = Record<SourceStatus, number>;

/** Zero sources of every status. */
export function emptyCounts(): SourceCounts {
  return Object.fromEntries(SOURCE_STATUSES.map((s) => [s, 0])) as SourceCounts;
}

/** Counts read from a knowledge base's meta hash (a torn write may leave one below zero: read as zero). */
export function readCounts(meta: Record<string, string | undefined>): SourceCounts {
  const counts = {} as SourceCounts;
  for (const s of SOURCE_STATUSES) counts[s] = Math.max(0, Number(meta[counterField(s)] ?? 0) || 0);
  return counts;
}

/** Counts from a script's reply, given in {@link SOURCE_STATUSES} order. */
export function countsFrom(values: readonly (string | number)[]): SourceCounts {
  const counts = {} as SourceCounts;
  SOURCE_STATUSES.forEach((s, i) => (counts[s] = Number(values[i] ?? 0)));
  return counts;
}
