import type { Config } from './config.js';
import { InFlightQuotaError, QuotaExceededError, StoredBytesQuotaError } from './errors.js';
import type { NewSource } from './store/kb-records.js';
import type { QuotaName, QuotaOverrides, QuotaStore, WorkspaceHoldings } from './store/quota-store.js';

/** A workspace's effective quotas; `null` is unlimited. */
export type Quotas = Record<QuotaName, number | null>;

const unlimitedIfZero = (n: number): number | null => (n === 0 ? null : n);

/** Seconds a client refused for sources in flight is told to wait: about one short extraction. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 10;

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

/** The checks the API makes before it stages or writes anything that a quota bounds. */
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
    const used = await this.store.knowledgeBaseCount(workspaceId);
    if (used >= limit) throw new QuotaExceededError(`This workspace has reached its quota of ${limit} knowledge bases; delete one or ask the operator for more`);
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
    throw new QuotaExceededError(
      `This knowledge base would have ${existing + adding} sources, past its workspace's quota of ${limit} sources per knowledge base`,
    );
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
