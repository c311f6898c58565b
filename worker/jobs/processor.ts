import { UnrecoverableError } from 'bullmq';
import type { ChunkSettings } from '../../shared/chunking/chunk-settings.js';
import {
  DISCOVER_SITE_JOB,
  EXTRACT_SOURCE_JOB,
  LEGACY_JOB_NAMES,
  RECHUNK_KB_JOB,
  rechunkKbJobSchema,
  REFRESH_KB_JOB,
  refreshKbJobSchema,
  TEXT_BATCH_JOB,
} from '../../shared/queue/jobs.js';
import { runSiteJob } from '../sites/site-job.js';
import { extractSourceJob } from './extract-source.js';
import type { JobContext, JobHandler, JobResult, ProcessorDeps } from './job-context.js';
import { rechunkKnowledgeBase } from './rechunk-kb.js';
import { refreshKnowledgeBase } from './refresh-kb.js';
import { textBatchJob } from './text-batch.js';

export type { JobResult, ProcessorDeps } from './job-context.js';

/** The re-chunk of a knowledge base's ready sources after a change of its settings. */
const rechunkJob: JobHandler = async ({ job, deps, chunkDefaults }) => {
  const rechunk = rechunkKbJobSchema.safeParse(job.data);
  if (!rechunk.success) throw new UnrecoverableError('invalid job data');
  const done = await rechunkKnowledgeBase({ ...deps, chunkDefaults }, rechunk.data);
  return { status: 'ready', reason: `${done.rechunked} sources re-chunked` };
};

/** The scheduled refresh of a knowledge base's URL sources. */
const refreshJob: JobHandler = async ({ job, deps }) => {
  const refresh = refreshKbJobSchema.safeParse(job.data);
  if (!refresh.success) throw new UnrecoverableError('invalid job data');
  const count = await refreshKnowledgeBase(deps, refresh.data);
  return { status: 'ready', reason: `${count} URL sources queued again` };
};

/** A discovery run of a site. */
const siteJob: JobHandler = async ({ job, token, deps }) => {
  if (!deps.sites || !deps.siteFetch) throw new UnrecoverableError('site discovery is not set up in this worker');
  return runSiteJob({ ...deps, sites: deps.sites, fetchFor: deps.siteFetch }, job, token);
};

/** Each kind of job of the ingest queue (shared/queue/jobs.ts) and its handler. */
const HANDLERS: Readonly<Record<string, JobHandler>> = {
  [RECHUNK_KB_JOB]: rechunkJob,
  [REFRESH_KB_JOB]: refreshJob,
  [DISCOVER_SITE_JOB]: siteJob,
  [TEXT_BATCH_JOB]: textBatchJob,
  [EXTRACT_SOURCE_JOB]: extractSourceJob,
};

/**
 * Processes one job of the ingest queue with the handler of its kind. Jobs
 * queued before an upgrade carry the names of the time; any other name is an
 * extraction job, named after its source's type.
 */
export function createProcessor(deps: ProcessorDeps) {
  const chunkDefaults: ChunkSettings = { maxTokens: deps.config.CHUNK_MAX_TOKENS, overlapTokens: deps.config.CHUNK_OVERLAP_TOKENS };
  return (job: JobContext['job'], token?: string): Promise<JobResult> => {
    const name = LEGACY_JOB_NAMES[job.name] ?? job.name;
    const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name]! : extractSourceJob;
    return handler({ job, token, deps, chunkDefaults });
  };
}
