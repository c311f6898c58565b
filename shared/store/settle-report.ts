import type { SourceCounts } from '../schemas/knowledge-base.js';

/** A change that may have settled its knowledge base: the settle number when it did, and the counts it left. */
export interface SettleReport {
  /** The knowledge base's settle number (its `knowledge_base.settled` event) when this change settled it. */
  settledSeq?: number;
  sourceCounts: SourceCounts;
}

/** From a script's `settled` (0: not settled) and the counts it left. */
export function settleReport(settled: number, counts: SourceCounts): SettleReport {
  return { sourceCounts: counts, ...(settled > 0 && { settledSeq: settled }) };
}
