import type { Job } from 'bullmq';
import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import type { JobOutcome } from '../../shared/queue/job-metrics.js';
import type { SourceQueue } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { SiteStore } from '../../shared/store/site-store.js';
import type { HostGate } from '../fetch/host-gate.js';
import type { SiteSyncDeps } from '../sites/sync-site.js';
import type { IngestDeps } from './ingest-source.js';

export interface ProcessorDeps extends IngestDeps {
  logger: Logger;
  /** Where scheduled refreshes queue their sources. */
  queue: SourceQueue;
  /** Called once per finished source, for metrics. */
  onOutcome?(o: JobOutcome): void;
  /** Per-host fetch slots shared by every replica; without it URL fetches are not limited per host. */
  hosts?: HostGate;
  /** Site records and the fetch of site discovery; without them site discovery jobs fail. */
  sites?: SiteStore;
  siteFetch?: SiteSyncDeps['fetchFor'];
  /** The workspace quotas a site's pages count against. */
  quotas?: SiteSyncDeps['quotas'];
}

export interface JobResult {
  status: 'ready' | 'failed' | 'skipped';
  reason?: string;
}

/**
 * What a job's handler is given: the job, the attempt's lock token (claiming
 * a source with it fences off an attempt whose lock lapsed, so only the
 * current holder's result is written), the worker's deps and the
 * deployment's chunking settings.
 */
export interface JobContext {
  job: Job;
  token: string | undefined;
  deps: ProcessorDeps;
  chunkDefaults: ChunkSettings;
}

/** Runs one kind of job of the ingest queue. */
export type JobHandler = (ctx: JobContext) => Promise<JobResult>;
