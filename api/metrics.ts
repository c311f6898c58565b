import type { Queue } from 'bullmq';
import type { RedisClient } from '../shared/redis.js';
import type { KeySpace } from '../shared/store/keys.js';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { EXTRACT_BUCKETS, readJobMetrics } from '../shared/job-metrics.js';
import type { AppEnv } from './context.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;

export interface Metrics {
  middleware: MiddlewareHandler<AppEnv>;
  render(): Promise<{ body: string; contentType: string }>;
}

/**
 * Prometheus metrics: this process's HTTP traffic, plus the deployment-wide
 * queue depth by state and job and extraction figures that workers keep in
 * Redis. `kb_queue_jobs{state="waiting"}` is the figure to autoscale workers on.
 */
export function createMetrics(redis: RedisClient, keys: KeySpace, queue?: Queue): Metrics {
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
  if (queue) {
    new Gauge({
      name: 'kb_queue_jobs',
      help: 'Jobs in the ingest queue by state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
  }

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
