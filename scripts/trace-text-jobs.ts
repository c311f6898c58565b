/**
 * Every Redis command a batch of text sources costs, from PATCH to ready,
 * grouped by what sent it: MONITOR on the bench's throwaway redis-server
 * (the compiled service, one worker process), each Lua script's inner calls
 * counted under the script, BullMQ's scripts and ours named by the sha1 of
 * their text, and the bench's own reads left out. A development aid beside the bench's `text` section (which counts from INFO
 * and is not slowed by MONITOR).
 *
 *   npx tsx scripts/trace-text-jobs.ts [--texts 200] [--concurrency 2] [--dist dist]
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as bullScripts from 'bullmq/dist/esm/scripts/index.js';
import { Redis } from 'ioredis';
import { BenchService, benchTexts } from './lib/bench-service.js';
import { flag } from './lib/cli-args.js';

const count = Number(flag('texts') ?? 200);
const concurrency = Number(flag('concurrency') ?? 2);
const distDir = flag('dist') ?? 'dist';

/** sha1 of each of the measured tree's scripts and of BullMQ's, to a readable name. */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const sha = (lua: string): string => createHash('sha1').update(lua).digest('hex');
  // The compiled tree's own scripts, so that another tree (`--dist`) is named as well.
  type Commands = { SCRIPTS: readonly { name: string; file: string }[]; loadScript(file: string): string };
  const { SCRIPTS, loadScript } = (await import(pathToFileURL(resolve(distDir, 'shared/store/commands.js')).href)) as Commands;
  for (const s of SCRIPTS) names.set(sha(loadScript(s.file)), s.name);
  for (const def of Object.values(bullScripts) as { name: string; content: string }[]) names.set(sha(def.content), `bull:${def.name}`);
  return names;
}

async function main(): Promise<void> {
  const svc = await BenchService.start(distDir);
  const names = await scriptNames();
  const monitor = new Redis(svc.redisUrl);
  try {
    const procs = await svc.startWorkers(1, concurrency);
    const apiKey = await svc.freshWorkspaceKey();
    const warm = await svc.createKb(apiKey, ['warm-up note']);
    await svc.settled(warm, 1);
    const kbId = await svc.createKb(apiKey);
    // MONITOR names each client by its address: the bench's reads come from this one.
    const benchClient = `127.0.0.1:${svc.redis.stream.localPort}`;
    const lines: string[] = [];
    const m = await monitor.monitor();
    m.on('monitor', (_time: string, argv: string[], source: string) => lines.push(`${source}\t${argv.join('\u0001')}`));
    await new Promise((r) => setTimeout(r, 200));
    const skip = lines.length;
    for (let offset = 0; offset < count; offset += 1000) {
      const texts = benchTexts(offset, Math.min(1000, count - offset));
      await svc.patch(kbId, (form) => form.set('knowledge_base_texts', JSON.stringify(texts)), apiKey);
    }
    await svc.settled(kbId, count);
    await new Promise((r) => setTimeout(r, 200));
    m.disconnect();
    await svc.stopWorkers(procs);

    const byCaller = new Map<string, number>();
    const byCommand = new Map<string, number>();
    let current = 'client';
    let total = 0;
    for (const line of lines.slice(skip)) {
      const [source, joined] = line.split('\t') as [string, string];
      const argv = joined.split('\u0001');
      const cmd = argv[0]!.toLowerCase();
      // The bench's own settle polling is not a job's cost.
      if (source === benchClient) continue;
      total++;
      let caller: string;
      if (source === 'lua') caller = current;
      else if (cmd === 'evalsha' || cmd === 'eval') {
        const sha = cmd === 'evalsha' ? argv[1]! : createHash('sha1').update(argv[1]!).digest('hex');
        current = names.get(sha) ?? `script ${sha.slice(0, 8)}`;
        caller = current;
      } else caller = 'client';
      const key = source === 'lua' ? `${caller} > ${cmd}` : caller === 'client' ? `client ${cmd}` : `${caller} (call)`;
      byCaller.set(caller, (byCaller.get(caller) ?? 0) + 1);
      byCommand.set(key, (byCommand.get(key) ?? 0) + 1);
    }
    const per = (n: number): string => (n / count).toFixed(2);
    console.log(`${count} texts: ${per(total)} commands per text (MONITOR, the bench's own reads left out)`);
    console.log('\nby caller:');
    for (const [k, n] of [...byCaller].sort((a, b) => b[1] - a[1])) console.log(`  ${per(n).padStart(7)}  ${k}`);
    console.log('\nby caller and command:');
    for (const [k, n] of [...byCommand].sort((a, b) => b[1] - a[1])) if (n / count >= 0.05) console.log(`  ${per(n).padStart(7)}  ${k}`);
  } finally {
    monitor.disconnect();
    await svc.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
