import type { LookupFunction } from 'node:net';
import type { Worker } from 'bullmq';
import type { Config } from '../../shared/runtime/config.js';
import { WEBHOOK_BACKOFF, WEBHOOK_QUEUE, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelay } from '../../shared/queue/jobs.js';
import type { Logger } from '../../shared/runtime/logger.js';
import type { StartupAttempt } from '../../shared/redis/redis-wait.js';
import { openWebhookQueue, type Runtime } from '../../shared/runtime/runtime.js';
import type { ConnectFunction } from '../fetch/guarded-connector.js';
import { DEFAULT_HEALTH_POLICY, type EndpointHealthPolicy } from '../../shared/store/webhook-store.js';
import { openQueueWorker } from '../queue-worker.js';
import { createDeliveryProcessor } from './deliver.js';
import { eventOutlet } from '../../shared/webhooks/webhook-events.js';
import { startRelay, type RunningRelay, RELAY_INTERVAL_MS } from './relay.js';
import { privateAccess } from '../../shared/net/address-policy.js';

/** Test seams of the webhook side of a worker; production uses the defaults. */
export interface WebhookWorkerOptions {
  /** Waits between attempts. Default {@link WEBHOOK_RETRY_DELAYS_MS} (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
  retryDelaysMs?: readonly number[];
  /** Deadline of one attempt in ms. Default 10000. */
  timeoutMs?: number;
  /** When a failing endpoint is backed off and disabled; default: back off after 5 failures, disable after WEBHOOK_DISABLE_AFTER_DAYS. */
  health?: Partial<EndpointHealthPolicy>;
  lookup?: LookupFunction;
  connect?: ConnectFunction;
  /** How often the outbox relay looks for events, ms. Default {@link RELAY_INTERVAL_MS} (200). */
  relayIntervalMs?: number;
}

export interface RunningWebhooks {
  worker: Worker;
  /** Starts taking deliveries and relaying the knowledge bases' outboxes into them. */
  run(): void;
  /** Stops relaying and taking deliveries, and waits for those under way (no timeout of its own). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The delivery side of a worker process: the relay that turns the events the
 * store's scripts write to the outboxes into deliveries, the queue they go on, and a
 * BullMQ Worker of its own, with WEBHOOK_CONCURRENCY parallel deliveries,
 * so a slow or dead receiver holds up only other deliveries, never
 * extraction. Resolves once both reach Redis; deliveries start with `run()`.
 */
export async function openWebhooks(
  config: Config,
  runtime: Runtime,
  logger: Logger,
  attempt: StartupAttempt,
  opts: WebhookWorkerOptions = {},
): Promise<RunningWebhooks> {
  const delays = opts.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  const log = logger.child({ queue: WEBHOOK_QUEUE });
  const queue = await openWebhookQueue(config, 'worker').opened(attempt, log);
  const processor = createDeliveryProcessor({
    webhooks: runtime.store.webhooks,
    logger: log,
    allowPrivate: privateAccess(config),
    maxPerEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    health: { ...DEFAULT_HEALTH_POLICY, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000, ...opts.health },
    retryDelaysMs: delays,
    ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
    ...(opts.lookup && { lookup: opts.lookup }),
    ...(opts.connect && { connect: opts.connect }),
  });
  const consumer = await openQueueWorker(config, attempt, log, {
    queue: WEBHOOK_QUEUE,
    processor,
    concurrency: config.WEBHOOK_CONCURRENCY,
    settings: {
      backoffStrategy: (attemptsMade, type) => (type === WEBHOOK_BACKOFF ? webhookRetryDelay(attemptsMade, delays) : 0),
    },
  });
  // Deliveries take turns between workspaces as extraction does: one tenant's backlog of slow receivers waits its turn.
  const outlet = eventOutlet(runtime.store.webhooks, queue, delays);
  let relay: RunningRelay | undefined;
  const stopRelay = async (): Promise<void> => {
    await relay?.stop();
  };

  let closing: Promise<void> | undefined;
  return {
    worker: consumer.worker,
    run: () => {
      relay ??= startRelay({ outbox: runtime.store.outbox, outlet, logger: log }, opts.relayIntervalMs);
      consumer.run();
    },
    drain: async () => {
      await stopRelay();
      await consumer.drain();
    },
    close() {
      closing ??= (async () => {
        await stopRelay();
        await consumer.drain();
        await queue.close();
        await consumer.disconnect();
      })();
      return closing;
    },
  };
}
