import type { Config } from './config.js';
import { QuotaExceededError } from './errors.js';
import type { QuotaName, QuotaOverrides, QuotaStore } from './store/quota-store.js';

/** A workspace's effective quotas; `null` is unlimited. */
export type Quotas = Record<QuotaName, number | null>;

const unlimitedIfZero = (n: number): number | null => (n === 0 ? null : n);

/**
 * The quotas that apply to a workspace: its own overrides where the operator
 * set them, else the global defaults (QUOTA_KNOWLEDGE_BASES and
 * QUOTA_SOURCES_PER_KNOWLEDGE_BASE, both 0: unlimited).
 */
export function effectiveQuotas(config: Config, overrides: QuotaOverrides): Quotas {
  return {
    knowledgeBases: unlimitedIfZero(overrides.knowledgeBases ?? config.QUOTA_KNOWLEDGE_BASES),
    sourcesPerKnowledgeBase: unlimitedIfZero(overrides.sourcesPerKnowledgeBase ?? config.QUOTA_SOURCES_PER_KNOWLEDGE_BASE),
  };
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
}
