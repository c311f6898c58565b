import type { SourceCounts } from '../schemas/knowledge-base.js';
import { countsFrom } from '../sources/lifecycle.js';

/** A change that may have settled its knowledge base: the settle number when it did, and the counts it left. */
export interface SettleReport {
  /** The knowledge base's settle number (its `knowledge_base.settled` event) when this change settled it. */
  settledSeq?: number;
  sourceCounts: SourceCounts;
}

/** From a script's `settled` (0: not settled) and counts in the order of SOURCE_STATUSES. */
export function settleReport(settled: number, counts: readonly string[]): SettleReport {
  return { sourceCounts: countsFrom(counts), ...(settled > 0 && { settledSeq: settled }) };
}
