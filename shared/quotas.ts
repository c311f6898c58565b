import { randomUUID } from 'node:crypto';
import type { Config } from './runtime/config.js';
import { AppError, InFlightQuotaError, QuotaExceededError, StoredBytesQuotaError, UnavailableError } from './errors.js';
import type { SiteTruncatedReason } from './schemas/site.js';
import type { NewSource } from './store/kb-records.js';
import type { QuotaName, QuotaOverrides, QuotaStore, WorkspaceHoldings } from './store/quota-store.js';

/** A workspace's effective quotas; `null` is unlimited. */
export type Quotas = Record<QuotaName, number | null>;

const unlimitedIfZero = (n: number): number | null => (n === 0 ? null : n);

/** Seconds a client refused for sources in flight is told to wait: about one short extraction. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 10;

/** How long a reservation lives unless its request settles it: a process that dies mid-request holds nothing longer. */
export const RESERVATION_TTL_MS = 60_000;
/** How long a settled commit is counted for requests that summed the workspace before it. */
export const SETTLED_KEEP_MS = 30_000;
/** Reads of the workspace's holdings one reservation makes at most when settles keep overtaking it. */
const RESERVE_ATTEMPTS = 5;
/** Pause before a fresh read, times the attempt, with jitter. */
const RECOUNT_PAUSE_MS = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A reservation of what one request adds, between the check and the commit. */
export interface QuotaHold {
  /**
   * Ends the reservation: `committed` false when nothing was written (a
   * refusal), which gives it back; true (or an error that leaves it unknown)
   * settles it, counted by the requests that summed the workspace before it.
   */
  end(committed: boolean): Promise<void>;
}

const NO_HOLD: QuotaHold = { end: async () => undefined };

/** The 409 of a workspace that has as many knowledge bases as its quota allows. */
export function knowledgeBasesQuotaError(limit: number): QuotaExceededError {
  return new QuotaExceededError(`This workspace has reached its quota of ${limit} knowledge bases; delete one or ask the operator for more`);
}

/** The 409 of a knowledge base that would have `would` sources, past the quota. */
export function sourcesQuotaError(would: number, limit: number): QuotaExceededError {
  return new QuotaExceededError(`This knowledge base would have ${would} sources, past its workspace's quota of ${limit} sources per knowledge base`);
}

/** The quotas a commit checks itself: the workspace's knowledge bases and the sources per knowledge base. */
export interface CommitLimits {
  maxKnowledgeBases?: number;
  maxSources?: number;
}

/**
 * The quotas that apply to a workspace: its own overrides where the operator
 * set them, else the global defaults (QUOTA_KNOWLEDGE_BASES,
 * QUOTA_SOURCES_PER_KNOWLEDGE_BASE, QUOTA_STORED_BYTES and
 * QUOTA_SOURCES_IN_FLIGHT, all 0: unlimited).
 */
export function effectiveQuotas(config: Config, overrides: QuotaOverrides): Quotas {
  return {
    knowledgeBases: unlimitedIfZero(overrides.knowledgeBases ?? config.QUOTA_KNOWLEDGE_BASES),
    sourcesPerKnowledgeBase: unlimitedIfZero(overrides.sourcesPerKnowledgeBase ?? config.QUOTA_SOURCES_PER_KNOWLEDGE_BASE),
    storedBytes: unlimitedIfZero(overrides.storedBytes ?? config.QUOTA_STORED_BYTES),
    sourcesInFlight: unlimitedIfZero(overrides.sourcesInFlight ?? config.QUOTA_SOURCES_IN_FLIGHT),
  };
}

/** What one POST or PATCH would add to the quotas counted across the workspace. */
export interface Intake {
  /** Uploaded file bytes plus the UTF-8 bytes of its texts. */
  bytes: number;
  /** New sources (texts, URLs and files). */
  sources: number;
}

/**
 * The quota checks. The `assert…` ones are cheap early refusals, read
 * before a body is read or a file staged. What holds under concurrency is
 * taken in one step each: the knowledge-base count with the index entry
 * ({@link commitLimits}, checked by the store), the sources per knowledge
 * base by the commit script itself, and the workspace's stored bytes and
 * sources in flight by a reservation ({@link reserveIntake},
 * {@link reservePages}) that the request ends once its commit is done.
 */
export class QuotaGuard {
  constructor(
    private readonly config: Config,
    private readonly store: QuotaStore,
  ) {}

  async quotas(workspaceId: string): Promise<Quotas> {
    return effectiveQuotas(this.config, await this.store.get(workspaceId));
  }

  /** 409 when the workspace already has as many knowledge bases as its quota allows. */
  async assertRoomForKnowledgeBase(workspaceId: string): Promise<void> {
    const limit = (await this.quotas(workspaceId)).knowledgeBases;
    if (limit === null) return;
    if ((await this.store.knowledgeBaseCount(workspaceId)) < limit) return;
    // Full: entries left by a process that died before its commit are dropped, and the count read again.
    if ((await this.store.dropDanglingKbs(workspaceId)) > 0 && (await this.store.knowledgeBaseCount(workspaceId)) < limit) return;
    throw knowledgeBasesQuotaError(limit);
  }

  /** The quotas the store checks atomically in a commit (see CreateKbInput, AddSourcesInput). */
  async commitLimits(workspaceId: string): Promise<CommitLimits> {
    const q = await this.quotas(workspaceId);
    return {
      ...(q.knowledgeBases !== null && { maxKnowledgeBases: q.knowledgeBases }),
      ...(q.sourcesPerKnowledgeBase !== null && { maxSources: q.sourcesPerKnowledgeBase }),
    };
  }

  /**
   * 409 when `existing + adding` sources would pass the per-knowledge-base
   * quota. Called with `adding = 1` before the body is read (a knowledge base
   * already full is refused before anything is staged), and with the real
   * count once the form is parsed.
   */
  async assertRoomForSources(workspaceId: string, existing: number, adding: number): Promise<void> {
    if (adding === 0) return;
    const limit = (await this.quotas(workspaceId)).sourcesPerKnowledgeBase;
    if (limit === null || existing + adding <= limit) return;
    throw sourcesQuotaError(existing + adding, limit);
  }

  /**
   * The workspace-wide quotas on what a request adds: 413 when its bytes would
   * take the workspace past its stored-bytes quota (a workspace at its quota
   * is refused any new byte), 429 with Retry-After when its new sources would
   * pass the sources-in-flight quota (they pass by themselves as workers end
   * sources). Called with `{bytes: 1, sources: 1}` before the first file is
   * staged, and with the real figures once the form is parsed. Returns the
   * bytes the request may still add (null: unlimited), which bounds the files
   * while they stream. Reads nothing when neither quota is set.
   */
  async assertRoomForIntake(workspaceId: string, intake: Intake): Promise<number | null> {
    const quotas = await this.quotas(workspaceId);
    if (quotas.storedBytes === null && quotas.sourcesInFlight === null) return null;
    const held = await this.store.holdings(workspaceId);
    assertInFlight(quotas, held, intake.sources);
    return assertStoredBytes(quotas, held, intake.bytes);
  }

  /**
   * Checks what a parsed request adds against the stored-bytes and in-flight
   * quotas and reserves it, in one step (413 or 429 as
   * {@link assertRoomForIntake}). End the hold once the commit is done or
   * refused. Nothing is reserved when neither quota is set.
   */
  async reserveIntake(workspaceId: string, intake: Intake): Promise<QuotaHold> {
    const quotas = await this.quotas(workspaceId);
    if (quotas.storedBytes === null && quotas.sourcesInFlight === null) return NO_HOLD;
    if (intake.bytes === 0 && intake.sources === 0) return NO_HOLD;
    const taken = await this.reserve(workspaceId, quotas, intake, false);
    if (taken.kind === 'in_flight') assertInFlight(quotas, { storedBytes: 0, sourcesInFlight: taken.used }, intake.sources);
    if (taken.kind === 'bytes') assertStoredBytes(quotas, { storedBytes: taken.used, sourcesInFlight: 0 }, intake.bytes);
    if (taken.kind !== 'ok') throw new Error(`the quota script refused (${taken.kind}) what the quotas allow`);
    return taken.hold;
  }

  /**
   * Reserves room for up to `count` pages of a site: as many as the
   * sources-in-flight quota leaves, none when the workspace is at its
   * stored-bytes quota (a page stores bytes once fetched). `refused` says
   * which quota left no room at all.
   */
  async reservePages(workspaceId: string, count: number): Promise<{ granted: number; hold: QuotaHold; refused?: SiteTruncatedReason }> {
    const quotas = await this.quotas(workspaceId);
    if (quotas.storedBytes === null && quotas.sourcesInFlight === null) return { granted: count, hold: NO_HOLD };
    const taken = await this.reserve(workspaceId, quotas, { bytes: 0, sources: count }, true);
    if (taken.kind === 'ok') return { granted: taken.granted, hold: taken.hold };
    return { granted: 0, hold: NO_HOLD, refused: taken.kind === 'bytes' ? 'workspace_full' : 'sources_in_flight' };
  }

  /**
   * The reservation: the holds' epoch is read before the knowledge bases'
   * counters are summed, so the script can add the commits settled after it
   * (see reserveQuota.lua). A sum slower than the settles kept is read again,
   * and so is one refused (or a site's pages cut) only by reservations and
   * settles counted beside it, which the sum may hold too: concurrent
   * requests are not refused for room that ended requests left. The last
   * attempt decides on what it counts.
   */
  private async reserve(workspaceId: string, quotas: Quotas, adding: Intake, partial: boolean) {
    const id = randomUUID();
    const limits = {
      ...(quotas.storedBytes !== null && { bytes: quotas.storedBytes }),
      ...(quotas.sourcesInFlight !== null && { sources: quotas.sourcesInFlight }),
    };
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
      // Another read right away would likely see the same requests still between their commit and its settle.
      if (attempt > 0) await sleep(RECOUNT_PAUSE_MS * attempt * (0.5 + Math.random()));
      const seen = await this.store.holdsEpoch(workspaceId);
      const held = await this.store.holdings(workspaceId);
      const reply = await this.store.reserve({
        workspaceId,
        id,
        seen,
        held: { bytes: held.storedBytes, sources: held.sourcesInFlight },
        limits,
        adding,
        partial,
        last: attempt === RESERVE_ATTEMPTS - 1,
        ttlMs: RESERVATION_TTL_MS,
        keepMs: SETTLED_KEEP_MS,
      });
      if (reply.kind === 'stale') continue;
      // Refused (or cut short) by what others hold that the sum may hold already: a fresh read may find the room.
      if (reply.kind !== 'ok' && reply.recount === 1) continue;
      if (reply.kind !== 'ok') return reply;
      const hold: QuotaHold = { end: (committed) => this.store.settle(workspaceId, id, committed, SETTLED_KEEP_MS) };
      return { kind: 'ok' as const, granted: reply.granted, hold };
    }
    throw new UnavailableError('the workspace is changing too fast to check its quotas; try again');
  }
}

/**
 * Runs `commit` under `hold` and ends the hold: given back when the commit
 * refused (an error of the service: nothing was written), settled otherwise.
 */
export async function underHold<T>(hold: QuotaHold, commit: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await commit();
  } catch (err) {
    await hold.end(!(err instanceof AppError)).catch(() => undefined);
    throw err;
  }
  // A settle lost to a Redis error is done by the next check once the reservation lapses.
  await hold.end(true).catch(() => undefined);
  return result;
}

function assertInFlight(quotas: Quotas, held: WorkspaceHoldings, adding: number): void {
  const limit = quotas.sourcesInFlight;
  if (limit === null || adding === 0 || held.sourcesInFlight + adding <= limit) return;
  throw new InFlightQuotaError(
    IN_FLIGHT_RETRY_AFTER_SECONDS,
    `This workspace has ${held.sourcesInFlight} sources pending or processing; ${adding} more would pass its quota of ${limit} sources in flight. Retry once some have ended`,
  );
}

function assertStoredBytes(quotas: Quotas, held: WorkspaceHoldings, adding: number): number | null {
  const limit = quotas.storedBytes;
  if (limit === null) return null;
  if (adding > 0 && held.storedBytes + adding > limit) {
    throw new StoredBytesQuotaError(
      `This workspace stores ${held.storedBytes} bytes; ${adding} more would pass its quota of ${limit} stored bytes. Delete sources or ask the operator for more`,
    );
  }
  return Math.max(0, limit - held.storedBytes);
}

/** What a parsed form adds: its staged files' bytes and its texts' bytes, and its sources. */
export function intakeOf(sources: readonly Pick<NewSource, 'type' | 'content' | 'sizeBytes'>[]): Intake {
  let bytes = 0;
  for (const s of sources) {
    if (s.type === 'file') bytes += s.sizeBytes ?? 0;
    else if (s.type === 'text') bytes += Buffer.byteLength(s.content, 'utf8');
  }
  return { bytes, sources: sources.length };
}
