import type { Redis } from 'ioredis';

/** Counters of a whole redis-server, read from INFO (no MONITOR, which slows Redis down). */
export interface RedisCounters {
  /** `total_commands_processed`: client commands and the commands scripts ran. */
  commands: number;
  /** `total_reads_processed`: socket reads, about one per round trip (a pipeline arrives in one read). */
  reads: number;
  /** Redis's own CPU time, user and system, seconds. */
  cpuSeconds: number;
  /** Calls by command (INFO commandstats), scripts' inner calls included. */
  byCommand: Record<string, number>;
}

/** What a batch of jobs cost Redis, per job. */
export interface RedisCost {
  jobs: number;
  commandsPerJob: number;
  roundTripsPerJob: number;
  redisCpuMsPerJob: number;
  /** The commands with the most calls per job, most first. */
  topCommands: { command: string; perJob: number }[];
}

const field = (info: string, name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);

/** Reads the counters of the server `redis` is connected to (one INFO round trip). */
export async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const info = await redis.info('everything');
  const byCommand: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) byCommand[m[1]!] = Number(m[2]);
  return {
    commands: field(info, 'total_commands_processed'),
    reads: field(info, 'total_reads_processed'),
    cpuSeconds: field(info, 'used_cpu_user') + field(info, 'used_cpu_sys'),
    byCommand,
  };
}

/**
 * The difference of two readings divided by `jobs`. Everything the server
 * did in between counts: the API, the workers, BullMQ's own polling and the
 * bench's reads, which is the point (a job's whole cost), and why a counter
 * of an otherwise idle throwaway server must be used.
 */
export function costPerJob(before: RedisCounters, after: RedisCounters, jobs: number, top = 8): RedisCost {
  const per = (n: number): number => n / jobs;
  const calls = Object.entries(after.byCommand)
    .map(([command, n]) => ({ command, perJob: per(n - (before.byCommand[command] ?? 0)) }))
    .filter((c) => c.perJob > 0)
    .sort((a, b) => b.perJob - a.perJob);
  return {
    jobs,
    commandsPerJob: per(after.commands - before.commands),
    roundTripsPerJob: per(after.reads - before.reads),
    redisCpuMsPerJob: per((after.cpuSeconds - before.cpuSeconds) * 1000),
    topCommands: calls.slice(0, top),
  };
}

/** `evalsha 3.0, hgetall 2.0, ...`: the busiest commands as the bench prints them. */
export function formatTopCommands(cost: RedisCost, count = 5): string {
  return cost.topCommands
    .slice(0, count)
    .map((c) => `${c.command} ${c.perJob.toFixed(1)}`)
    .join(', ');
}
