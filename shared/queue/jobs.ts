import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { FairShare } from './fair-share.js';
import { FORMAT_MIME, SOURCE_FORMATS } from '../formats/formats.js';
import { idSchema } from '../schemas/common.js';
import type { SourceType } from '../schemas/knowledge-base.js';

/** The one queue: every new or retried source becomes one job on it. */
export const INGEST_QUEUE = 'ingest';
/** Scheduled per knowledge base with auto_refresh_hours: fetch its URL sources again. */
export const REFRESH_KB_JOB = 'refresh';
/** After a change of a knowledge base's chunking settings: cut its ready sources' Markdown again. */
export const RECHUNK_KB_JOB = 'rechunk';

/**
 * What an extraction job is named after, so Bull Board says what it is
 * without showing content: a file's format (`pdf`, `docx`, `html`, ...),
 * `url` or `text`; `file` for a file whose format is not recorded.
 */
export const SOURCE_JOB_TYPES = [...SOURCE_FORMATS, 'url', 'text', 'file'] as const;
export type SourceJobType = (typeof SOURCE_JOB_TYPES)[number];
/** The name of an extraction job queued without its source's type (`jobType` left out). */
export const EXTRACT_SOURCE_JOB = 'source';

/**
 * The names jobs had before they were named after what they are, mapped to
 * today's. A worker still runs jobs queued under them before an upgrade
 * (`extract-source` is any extraction job).
 */
export const LEGACY_JOB_NAMES: Readonly<Record<string, string>> = {
  'extract-source': EXTRACT_SOURCE_JOB,
  'refresh-knowledge-base': REFRESH_KB_JOB,
  'rechunk-knowledge-base': RECHUNK_KB_JOB,
  'discover-site': 'site',
};

/**
 * Job data holds references only, never bytes or text (Bull Board shows it),
 * and for operators the source's type and size (bytes uploaded, last
 * fetched, or of the text) where known.
 */
export const extractSourceJobSchema = z.strictObject({
  workspaceId: idSchema,
  kbId: idSchema,
  documentId: idSchema,
  run: z.number().int().min(1),
  jobType: z.enum(SOURCE_JOB_TYPES).optional(),
  sizeBytes: z.number().int().min(0).optional(),
  /** A URL source's refresh asks without the validators held (its site's sitemap says it changed since). */
  unconditional: z.literal(true).optional(),
});
export type ExtractSourceJob = z.infer<typeof extractSourceJobSchema>;

/** A file's format from its recorded MIME type. */
const FORMAT_BY_MIME = new Map<string, SourceJobType>(SOURCE_FORMATS.map((f) => [FORMAT_MIME[f], f]));

/** The type and size an extraction job of this source shows: see {@link SOURCE_JOB_TYPES}. */
export function sourceJobInfo(s: { type: SourceType; content?: string; mimeType?: string; sizeBytes?: number }): Pick<ExtractSourceJob, 'jobType' | 'sizeBytes'> {
  let jobType: SourceJobType = s.type;
  if (s.type === 'file') jobType = FORMAT_BY_MIME.get(s.mimeType ?? '') ?? (s.mimeType?.startsWith('image/') ? 'image' : 'file');
  const sizeBytes = s.sizeBytes ?? (s.type === 'text' && s.content !== undefined ? Buffer.byteLength(s.content) : undefined);
  return { jobType, ...(sizeBytes !== undefined && { sizeBytes }) };
}

/**
 * The text sources of one request run as jobs of up to this many sources
 * ({@link TEXT_BATCH_JOB}): a text is cut into chunks in microseconds, so a
 * job of its own would cost the queue more than its work.
 */
export const TEXT_BATCH_MAX_SOURCES = 64;
/** ... and of up to this many bytes of text, so one job's work stays short (a text is at most 1 MiB). */
export const TEXT_BATCH_MAX_BYTES = 2 * 1024 * 1024;

/**
 * A job that runs several text sources of one knowledge base, each claimed
 * and finished on its own as an extraction job's source is: only the queue's
 * cost is shared. A request's texts are grouped at commit, each record naming
 * its job (`batchJob`), so the reconciler finds it; a retry or a repair runs
 * one source in a job of its own.
 */
export const TEXT_BATCH_JOB = 'texts';

export const textBatchJobSchema = z.strictObject({
  workspaceId: idSchema,
  kbId: idSchema,
  sources: z
    .array(z.strictObject({ documentId: idSchema, run: z.number().int().min(1) }))
    .min(1)
    .max(TEXT_BATCH_MAX_SOURCES),
  sizeBytes: z.number().int().min(0).optional(),
});
export type TextBatchJob = z.infer<typeof textBatchJobSchema>;

/** One batch per request's group of texts, named after its first source: enqueueing it twice is a no-op. */
export const textBatchJobId = (kbId: string, firstDocumentId: string): string => `${kbId}.${firstDocumentId}.texts`;

/**
 * Groups the text sources of one request into batches of at most
 * {@link TEXT_BATCH_MAX_SOURCES} sources and {@link TEXT_BATCH_MAX_BYTES}
 * bytes, in order, and names each source's batch job in `batchJob`. A text
 * left alone in its group keeps a job of its own (no `batchJob`).
 */
export function assignTextBatches<T extends { documentId: string; type: SourceType; content: string; batchJob?: string }>(kbId: string, sources: readonly T[]): T[] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const s of sources) {
    if (s.type !== 'text') continue;
    const size = Buffer.byteLength(s.content);
    if (group.length > 0 && (group.length >= TEXT_BATCH_MAX_SOURCES || bytes + size > TEXT_BATCH_MAX_BYTES)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(s);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  const batchOf = new Map<string, string>();
  for (const g of groups) {
    if (g.length < 2) continue;
    const id = textBatchJobId(kbId, g[0]!.documentId);
    for (const s of g) batchOf.set(s.documentId, id);
  }
  if (batchOf.size === 0) return [...sources];
  return sources.map((s) => (batchOf.has(s.documentId) ? { ...s, batchJob: batchOf.get(s.documentId)! } : s));
}

/** The reference part of an extraction job, what the store and the events take. */
export const sourceJobRef = ({ workspaceId, kbId, documentId, run }: ExtractSourceJob): ExtractSourceJob => ({ workspaceId, kbId, documentId, run });

/**
 * Deterministic id, so enqueueing the same run twice is a no-op. No `:` and
 * never all digits, as BullMQ requires. A retry bumps `run` and gets a new id.
 */
export const extractSourceJobId = (d: ExtractSourceJob): string => `${d.kbId}.${d.documentId}.r${d.run}`;

/** BullMQ key prefix; the hash tag keeps one queue's keys in one cluster slot. */
export const queuePrefix = (keyPrefix: string): string => `${keyPrefix}:{queue}`;

/** How many finished jobs BullMQ keeps, and for how long (seconds): the newest `count` younger than `age`. */
export interface JobHistory {
  completed: { age: number; count: number };
  failed: { age: number; count: number };
}

/**
 * A failed attempt keeps its reason (`failedReason`), never its stack: BullMQ
 * stores the stacks of failed attempts in the job, and Bull Board shows them.
 */
export const NO_STACK_TRACES = 0;

/** Completed jobs a day, at most 1,000; failed ones a week, at most 5,000. */
export const JOB_HISTORY: JobHistory = {
  completed: { age: 24 * 3600, count: 1_000 },
  failed: { age: 7 * 24 * 3600, count: 5_000 },
};

/**
 * Retries with exponential backoff (2 s, 4 s, 8 s, ... with jitter) for
 * transient errors; permanent ones are thrown as UnrecoverableError by the
 * processor. Finished jobs are trimmed to `history` (default
 * {@link JOB_HISTORY}), so Redis memory levels off however many jobs run.
 */
export function defaultJobOptions(attempts: number, backoffMs = 2_000, history: JobHistory = JOB_HISTORY): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs, jitter: 0.2 },
    removeOnComplete: { ...history.completed },
    removeOnFail: { ...history.failed },
    stackTraceLimit: NO_STACK_TRACES,
  };
}

export const refreshKbJobSchema = z.strictObject({ workspaceId: idSchema, kbId: idSchema });
export type RefreshKbJob = z.infer<typeof refreshKbJobSchema>;

/** One job scheduler per knowledge base; no `:` in the id, as BullMQ requires. */
export const refreshSchedulerId = (kbId: string): string => `refresh.${kbId}`;

/** The settings are part of the job, so a second change while one re-chunk waits gets a job of its own. */
export const rechunkKbJobSchema = z.strictObject({
  workspaceId: idSchema,
  kbId: idSchema,
  maxTokens: z.number().int().min(1),
  overlapTokens: z.number().int().min(0),
});
export type RechunkKbJob = z.infer<typeof rechunkKbJobSchema>;

/** One waiting re-chunk per knowledge base and settings: repeating a change adds nothing while it waits. */
export const rechunkKbJobId = (d: RechunkKbJob): string => `rechunk.${d.kbId}.${d.maxTokens}.${d.overlapTokens}`;

/** A site's discovery: its pages found and added as URL sources (see worker/sites/). */
export const DISCOVER_SITE_JOB = 'site';

export const discoverSiteJobSchema = z.strictObject({
  workspaceId: idSchema,
  kbId: idSchema,
  siteId: idSchema,
  run: z.number().int().min(1),
  /** Where the discovery is, between its steps (see worker/sites/discovery-state.ts); absent before its first step. */
  state: z.record(z.string(), z.unknown()).optional(),
});
export type DiscoverSiteJob = z.infer<typeof discoverSiteJobSchema>;

/** One job per discovery run of a site, like {@link extractSourceJobId}. */
export const discoverSiteJobId = (d: DiscoverSiteJob): string => `${d.kbId}.${d.siteId}.d${d.run}`;

/** A source to run: its job's data, and the batch of texts it runs in when its record names one. */
export type QueuedSource = ExtractSourceJob & { batchJob?: string };

/** What the API and the reconciler need from the queue. */
export interface SourceQueue {
  /** Queues each source's run: sources naming one `batchJob` as one {@link TEXT_BATCH_JOB}, the others a job each. */
  enqueue(jobs: QueuedSource[]): Promise<void>;
  /** Queues the re-chunk of a knowledge base's ready sources with the given settings. */
  rechunk(job: RechunkKbJob): Promise<void>;
  /** Queues discovery runs of sites, in fair share with the workspaces' other jobs. */
  discover(jobs: DiscoverSiteJob[]): Promise<void>;
  /** The priority of a workspace's next job in the fair share: what a job that goes back to the queue for a later step takes. */
  nextPriority(workspaceId: string): Promise<number>;
  /** Refreshes the knowledge base's URL sources every `hours` (0 stops it). */
  scheduleRefresh(job: RefreshKbJob, hours: number): Promise<void>;
}

type QueuedJob = { name: string; id: string; data: ExtractSourceJob | TextBatchJob };

/** The jobs that run `sources`: one per batch of texts (in the order of its first source), one per other source. */
function toJobs(sources: readonly QueuedSource[]): QueuedJob[] {
  const jobs: QueuedJob[] = [];
  const batches = new Map<string, TextBatchJob>();
  for (const { batchJob, ...data } of sources) {
    if (!batchJob) {
      jobs.push({ name: data.jobType ?? EXTRACT_SOURCE_JOB, id: extractSourceJobId(data), data });
      continue;
    }
    // A batch's id names its knowledge base: its sources share it and its workspace.
    let batch = batches.get(batchJob);
    if (!batch) {
      batch = { workspaceId: data.workspaceId, kbId: data.kbId, sources: [], sizeBytes: 0 };
      batches.set(batchJob, batch);
      jobs.push({ name: TEXT_BATCH_JOB, id: batchJob, data: batch });
    }
    batch.sources.push({ documentId: data.documentId, run: data.run });
    batch.sizeBytes = (batch.sizeBytes ?? 0) + (data.sizeBytes ?? 0);
  }
  return jobs;
}

/**
 * The order a workspace's new jobs take their turns in: texts first (cut in
 * milliseconds), then URLs (their size unknown until fetched, their time
 * mostly the network's), then files largest first. A request's files are
 * done when its largest is, so starting that one first while the other
 * lanes take the smaller ones ends the request soonest (longest job first);
 * a large file uploaded last no longer runs alone after all the others.
 * The knowledge base lists its sources in request order whatever this order.
 */
export function runOrder<J extends { name: string; data: { jobType?: string; sizeBytes?: number } }>(jobs: readonly J[]): J[] {
  const rank = (j: J): number => (j.name === TEXT_BATCH_JOB || j.data.jobType === 'text' ? 0 : j.data.jobType === 'url' || j.data.jobType === undefined ? 1 : 2);
  return jobs
    .map((j, i) => ({ j, i, rank: rank(j), size: j.data.sizeBytes ?? 0 }))
    .sort((a, b) => a.rank - b.rank || (a.rank === 2 ? b.size - a.size : 0) || a.i - b.i)
    .map((e) => e.j);
}

/**
 * A SourceQueue over a BullMQ Queue, adding jobs with {@link defaultJobOptions}
 * and priorities from {@link FairShare}, so workspaces take turns.
 */
export function bullSourceQueue(queue: Queue, attempts: number, backoffMs?: number, history?: JobHistory): SourceQueue {
  const opts = defaultJobOptions(attempts, backoffMs, history);
  const fair = new FairShare(queue);
  return {
    async enqueue(jobs) {
      const added: { name: string; data: ExtractSourceJob | TextBatchJob; opts: JobsOptions }[] = [];
      const byWorkspace = new Map<string, QueuedJob[]>();
      for (const j of toJobs(jobs)) byWorkspace.set(j.data.workspaceId, [...(byWorkspace.get(j.data.workspaceId) ?? []), j]);
      for (const [workspaceId, queued] of byWorkspace) {
        const own = runOrder(queued);
        const priorities = await fair.priorities(workspaceId, own.length);
        own.forEach((j, i) => added.push({ name: j.name, data: j.data, opts: { ...opts, jobId: j.id, priority: priorities[i]! } }));
      }
      if (added.length > 0) await queue.addBulk(added);
    },
    async rechunk(job) {
      // Removed once done, so a later change back to the same settings queues again.
      await queue.add(RECHUNK_KB_JOB, job, { ...opts, jobId: rechunkKbJobId(job), removeOnComplete: true });
    },
    async discover(jobs) {
      const added: { name: string; data: DiscoverSiteJob; opts: JobsOptions }[] = [];
      for (const data of jobs) {
        const [priority] = await fair.priorities(data.workspaceId, 1);
        added.push({ name: DISCOVER_SITE_JOB, data, opts: { ...opts, jobId: discoverSiteJobId(data), priority: priority! } });
      }
      if (added.length > 0) await queue.addBulk(added);
    },
    async nextPriority(workspaceId) {
      const [priority] = await fair.priorities(workspaceId, 1);
      return priority!;
    },
    async scheduleRefresh(job, hours) {
      const id = refreshSchedulerId(job.kbId);
      if (hours === 0) {
        await queue.removeJobScheduler(id);
        return;
      }
      const every = hours * 3_600_000;
      // With `every` alone BullMQ runs the first job at once; the first refresh is due one period from now.
      await queue.upsertJobScheduler(
        id,
        { every, startDate: Date.now() + every },
        { name: REFRESH_KB_JOB, data: job, opts: { removeOnComplete: true, removeOnFail: { count: 100 }, stackTraceLimit: NO_STACK_TRACES } },
      );
    },
  };
}

/** Completion webhooks have a queue of their own: a slow receiver never holds up extraction. */
export const WEBHOOK_QUEUE = 'webhooks';
export const DELIVER_EVENT_JOB = 'deliver-event';
/** The backoff type of delivery jobs, computed by {@link webhookRetryDelay}. */
export const WEBHOOK_BACKOFF = 'webhook-schedule';

/**
 * The waits between delivery attempts that receivers know from Standard
 * Webhooks senders: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight
 * attempts in all, over about 28 hours.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/**
 * The wait before the next attempt after `attemptsMade` failed ones (BullMQ
 * counts from 1 here), from `delays` (default {@link WEBHOOK_RETRY_DELAYS_MS});
 * past the end of the schedule, its last step.
 */
export function webhookRetryDelay(attemptsMade: number, delays: readonly number[] = WEBHOOK_RETRY_DELAYS_MS): number {
  const i = Math.min(Math.max(attemptsMade, 1), delays.length) - 1;
  return delays[i] ?? 0;
}

/** Job data names the event and the webhook, never the secret or the body (Bull Board shows it). */
export const deliverEventJobSchema = z.strictObject({
  workspaceId: idSchema,
  webhookId: idSchema,
  eventId: idSchema,
});
export type DeliverEventJob = z.infer<typeof deliverEventJobSchema>;

/** One job per event and webhook: emitting an event again is a no-op while its job is kept. */
export const deliverEventJobId = (d: DeliverEventJob): string => `${d.eventId}.${d.webhookId}`;

/**
 * One first attempt plus one per step of `delays`. Finished jobs are kept a
 * week, so an event emitted again after a crash finds its job and adds none.
 */
export function webhookJobOptions(delays: readonly number[] = WEBHOOK_RETRY_DELAYS_MS): JobsOptions {
  return {
    attempts: delays.length + 1,
    backoff: { type: WEBHOOK_BACKOFF },
    removeOnComplete: { age: 7 * 24 * 3600, count: 100_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
    stackTraceLimit: NO_STACK_TRACES,
  };
}
