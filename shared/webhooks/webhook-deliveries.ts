import type { Queue } from 'bullmq';
import { FairShare } from '../queue/fair-share.js';
import { deliverEventJobId, webhookJobOptions, type DeliverEventJob } from '../queue/jobs.js';
import type { EventType } from '../schemas/webhook.js';

/** A delivery job's name: what Bull Board shows, e.g. `webhook source.ready`. Never content. */
export const deliveryJobName = (type: EventType): string => `webhook ${type}`;

/** What one call queues: one event of one workspace, to each of `webhookIds`. */
export interface DeliveryBatch {
  workspaceId: string;
  eventId: string;
  type: EventType;
  webhookIds: readonly string[];
  /** Appended to each job id, for a delivery asked for again (a redelivery): a new job beside the first. */
  jobIdSuffix?: string;
  /** The retry schedule (tests shorten it). */
  retryDelaysMs?: readonly number[];
}

/**
 * Queues the deliveries of one stored event, each with its fair-share
 * priority, so workspaces take turns on the delivery queue as they do on
 * extraction: one workspace's backlog never holds another's delivery. The
 * event's body must be saved first (a delivery job never runs without the
 * bytes it signs). Job ids are deterministic, so queueing the same event
 * again adds nothing while its jobs are kept.
 */
export async function enqueueDeliveries(queue: Queue, batch: DeliveryBatch, fair = new FairShare(queue)): Promise<string[]> {
  if (batch.webhookIds.length === 0) return [];
  const opts = webhookJobOptions(batch.retryDelaysMs);
  const priorities = await fair.priorities(batch.workspaceId, batch.webhookIds.length);
  const jobs = batch.webhookIds.map((webhookId, i) => {
    const data: DeliverEventJob = { workspaceId: batch.workspaceId, webhookId, eventId: batch.eventId };
    const jobId = deliverEventJobId(data) + (batch.jobIdSuffix ? `.${batch.jobIdSuffix}` : '');
    return { name: deliveryJobName(batch.type), data, opts: { ...opts, jobId, priority: priorities[i]! } };
  });
  await queue.addBulk(jobs);
  return jobs.map((j) => j.opts.jobId);
}
