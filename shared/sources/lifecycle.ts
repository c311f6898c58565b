import { SITE_STATES, type SiteState } from '../schemas/site.js';

/**
 * The life of a knowledge base's sources and sites, declared once: their
 * statuses, which moves between them each family of the store's scripts may
 * make, the counter each source status keeps on its knowledge base, and the
 * knowledge base's own bookkeeping (its revision, its sites discovering).
 * The Lua scripts cannot import this module, so the store generates their
 * `lifecycle` include from it (see `lifecycle-lua.ts`): adding a status or a
 * move is a change here, not in every script.
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
 * The moves a script may make, by the script family that makes them. The
 * generated Lua helper refuses at run time a move not listed here, and a
 * move listed for another family than the script's own.
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

export { SITE_STATES, type SiteState };
export type SiteLifecycleState = SiteState | typeof ABSENT;

/** The state a site's discovery runs in: counted in its knowledge base's {@link KB_FIELDS}.sitesDiscovering. */
export const DISCOVERING = 'discovering' satisfies SiteState;

/** A site's moves, by the script family that makes them (as {@link TRANSITIONS} for sources). */
export const SITE_TRANSITIONS = {
  /** Added with its knowledge base's sources; its first discovery starts. */
  commit: [[ABSENT, DISCOVERING]],
  /** A discovery ends. */
  finish: [[DISCOVERING, 'done'], [DISCOVERING, 'failed']],
  /** A refresh starts a new discovery of a site whose last one ended. */
  restart: [['done', DISCOVERING], ['failed', DISCOVERING]],
  /** A user deletes a site, whatever its state. */
  delete: SITE_STATES.map((s) => [s, ABSENT] as const),
} as const satisfies Record<string, readonly (readonly [SiteLifecycleState, SiteLifecycleState])[]>;

export type SiteTransitionFamily = keyof typeof SITE_TRANSITIONS;

/** The moves one script may make: its source family and its site family (none when absent). */
export interface ScriptLifecycle {
  sources?: TransitionFamily;
  sites?: SiteTransitionFamily;
}

/**
 * The knowledge base's own bookkeeping fields in its meta hash, written only
 * through the generated helpers: `rev` rises with every change a client can
 * see (the If-Match revision), `sitesDiscovering` counts its sites in
 * {@link DISCOVERING}, and `settles` numbers its settled events.
 */
export const KB_FIELDS = {
  rev: 'rev',
  updatedAt: 'updatedAt',
  sitesDiscovering: 'sitesDiscovering',
  settles: 'settles',
  /** Raised by every change of one of its source records, progress included (see touchSource in the generated include). */
  sourceSeq: 'sourceSeq',
} as const;

/**
 * The key, beside a knowledge base's meta hash (`…:meta`), of its sorted set
 * of changed sources: each source id scored with the {@link KB_FIELDS}.sourceSeq
 * of its record's last change; a deleted source leaves it. It holds one entry
 * per source at most, so it is bounded and counted with the sources.
 */
export const CHANGED_SOURCES_SUFFIX = 'changed';

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
