import type { Queue } from 'bullmq';
import type { RedisClient } from '../../shared/redis/redis.js';
import type { KeySpace } from '../../shared/store/keys.js';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { EXTRACT_BUCKETS, readJobMetrics } from '../../shared/queue/job-metrics.js';
import { safeEqual } from '../middleware/safe-equal.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../middleware/errors.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;

/** A gauge of a BullMQ queue's job counts by state, read at each scrape. */
function queueGauge(registry: Registry, name: string, help: string, queue: Queue): void {
  new Gauge({
    name,
    help,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts(...QUEUE_STATES);
      for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
}

export interface Metrics {
  middleware: MiddlewareHandler<AppEnv>;
  render(): Promise<{ body: string; contentType: string }>;
}

/**
 * Prometheus metrics: this process's HTTP traffic, plus the deployment-wide
 * queue depth by state and job and extraction figures that workers keep in
 * Redis. `kb_queue_jobs{state="waiting"}` is the figure to autoscale workers on;
 * `kb_webhook_queue_jobs` shows deliveries piling up behind slow receivers.
 */
export function createMetrics(redis: RedisClient, keys: KeySpace, queue?: Queue, webhookQueue?: Queue): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'kb_' });
  const requests = new Counter({
    name: 'kb_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'kb_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  if (queue) queueGauge(registry, 'kb_queue_jobs', 'Jobs in the ingest queue by state', queue);
  if (webhookQueue) queueGauge(registry, 'kb_webhook_queue_jobs', 'Webhook deliveries in the delivery queue by state', webhookQueue);

  return {
    middleware: async (c, next) => {
      const end = latency.startTimer();
      await next();
      // The deepest matched route pattern, also when middleware (auth) answered
      // first; never the raw path, so label values stay few.
      const matched = routePath(c, -1);
      const route = matched && !matched.includes('*') ? matched : 'unmatched';
      const labels = { method: c.req.method, route, status: String(c.res.status) };
      requests.inc(labels);
      end(labels);
    },
    async render() {
      const [own, jobs] = await Promise.all([registry.metrics(), readJobMetrics(redis, keys)]);
      const lines: string[] = [
        '# HELP kb_jobs_finished_total Sources finished by workers, by source type, status and error code',
        '# TYPE kb_jobs_finished_total counter',
        ...jobs.jobs.map((j) => `kb_jobs_finished_total{type="${j.type}",status="${j.status}",code="${j.code}"} ${j.count}`),
        '# HELP kb_extract_duration_seconds Time to fetch or read and extract a source, by format',
        '# TYPE kb_extract_duration_seconds histogram',
      ];
      for (const e of jobs.extract) {
        EXTRACT_BUCKETS.forEach((le, i) => lines.push(`kb_extract_duration_seconds_bucket{format="${e.format}",le="${le}"} ${e.buckets[i]}`));
        lines.push(`kb_extract_duration_seconds_bucket{format="${e.format}",le="+Inf"} ${e.count}`);
        lines.push(`kb_extract_duration_seconds_sum{format="${e.format}"} ${e.secondsSum}`);
        lines.push(`kb_extract_duration_seconds_count{format="${e.format}"} ${e.count}`);
      }
      lines.push('# HELP kb_extract_bytes_total Bytes of sources extracted, by format', '# TYPE kb_extract_bytes_total counter');
      for (const e of jobs.extract) lines.push(`kb_extract_bytes_total{format="${e.format}"} ${e.bytes}`);
      return { body: `${own}${lines.join('\n')}\n`, contentType: registry.contentType };
    },
  };
}

/** Who may read `/metrics`: from METRICS_REQUIRE_AUTH, METRICS_TOKEN and the board's credentials. */
export interface MetricsAccess {
  requireAuth: boolean;
  /** Accepted as `Authorization: Bearer <token>` (Prometheus's `authorization` or `bearer_token`). */
  token?: string;
  /** The operator credentials, accepted as HTTP Basic (Prometheus's `basic_auth`). */
  user?: string;
  password?: string;
}

/** True when a closed `/metrics` has no credential that could open it (start-up warns). */
export function metricsUnreachable(access: MetricsAccess): boolean {
  return access.requireAuth && !access.token && !(access.user && access.password);
}

/**
 * Guards `/metrics`: a bearer token or the operator credentials, each
 * compared in constant time. Every configured check runs on every request,
 * so timing tells nothing of which one matched or how much of a guess was
 * right. With METRICS_REQUIRE_AUTH=false it lets everyone through.
 */
export function metricsAuth(access: MetricsAccess): MiddlewareHandler<AppEnv> {
  const challenges: string[] = [];
  if (access.token) challenges.push('Bearer realm="kb-ingest metrics"');
  if (access.user && access.password) challenges.push('Basic realm="kb-ingest metrics", charset="UTF-8"');
  // A closed /metrics with nothing configured still says what a scraper would send.
  if (challenges.length === 0) challenges.push('Bearer realm="kb-ingest metrics"');
  const message = metricsUnreachable(access)
    ? 'Metrics need credentials: set METRICS_TOKEN (or BULL_BOARD_USER and BULL_BOARD_PASSWORD), or METRICS_REQUIRE_AUTH=false on a private network'
    : 'Metrics credentials are missing or wrong: send the metrics token as a bearer token or the operator credentials as HTTP Basic';
  return async (c, next) => {
    if (!access.requireAuth) return next();
    const header = c.req.header('authorization') ?? '';
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
    let ok = false;
    if (access.token) ok = safeEqual(bearer ?? '', access.token) && bearer !== undefined;
    if (access.user && access.password) {
      const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
      const sep = decoded.indexOf(':');
      const userOk = safeEqual(decoded.slice(0, Math.max(sep, 0)), access.user);
      const passwordOk = safeEqual(decoded.slice(sep + 1), access.password);
      ok = ok || (sep > 0 && userOk && passwordOk);
    }
    if (!ok) {
      return errorResponse(c, 'unauthenticated', { path: '/metrics', message, headers: { 'WWW-Authenticate': challenges.join(', ') } });
    }
    await next();
  };
}
