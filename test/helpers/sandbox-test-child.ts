/**
 * A sandbox child with fault hooks, for the pool and worker tests: the bytes
 * are a command. `hang` never answers; `alloc:N` holds N MiB of ArrayBuffers
 * and never answers; `grow:N` adds 8 MiB of ArrayBuffers every 20 ms up to N
 * MiB and never answers; `heap` fills the JS heap until V8 gives up; `reserve:N` asks for one ArrayBuffer of N MiB in one
 * step, never touches it, and never answers; `retain:N` keeps N MiB for good
 * and answers; `crash` exits; `signal:NAME:FILE` appends a line to FILE (an
 * absolute path), then kills itself with signal NAME; `sleep:N` answers
 * after N ms with its pid and the span it was busy; `pid` answers with its
 * pid; `progress:N` reports pages 1 to N, 300 ms apart, then answers;
 * `spin:N:FILE` appends a line to FILE, then keeps the CPU busy for N ms
 * without yielding (as a long synchronous parse does) and answers;
 * `share-channel:FILE` starts `sleep 60` holding its IPC channel open,
 * appends that process's pid to FILE, and exits.
 * Anything else is extracted as in production.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { extractText, type Extraction } from '../../worker/extractors/index.js';
import { serveRequests, type ChildRequest } from '../../worker/sandbox/sandbox-protocol.js';

process.setSourceMapsEnabled(false);

const retained: Uint8Array[] = [];

function answer(text: string): Extraction {
  return { markdown: text, text, truncated: false, format: 'txt', mimeType: 'text/plain' };
}

function allocate(mb: number, into: Uint8Array[]): void {
  for (let i = 0; i < mb; i++) into.push(new Uint8Array(1024 * 1024).fill(1));
}

serveRequests(async (request) => ({ extraction: await run(request) }));

async function run({ bytes, opts }: ChildRequest): Promise<Extraction> {
  const [command = '', arg = '0', file] = Buffer.from(bytes).toString('utf8').trim().split(':');
  switch (command) {
    case 'hang':
      return new Promise<never>(() => setInterval(() => undefined, 1000));
    case 'alloc': {
      // ArrayBuffers live outside the V8 heap, so --max-old-space-size never stops this; the RSS watchdog must.
      const hold: Uint8Array[] = [];
      allocate(Number(arg), hold);
      return new Promise<never>(() => setInterval(() => hold.length, 1000));
    }
    case 'grow': {
      const hold: Uint8Array[] = [];
      const timer = setInterval(() => (hold.length < Number(arg) ? allocate(8, hold) : clearInterval(timer)), 20);
      return new Promise<never>(() => setInterval(() => hold.length, 1000));
    }
    case 'heap': {
      const hold: number[][] = [];
      for (;;) hold.push(new Array<number>(4096).fill(hold.length));
    }
    case 'reserve': {
      // Untouched, the buffer costs address space only: without an OS limit it is granted and the job hangs.
      const hold = new ArrayBuffer(Number(arg) * 2 ** 20);
      return new Promise<never>(() => setInterval(() => hold.byteLength, 1000));
    }
    case 'signal':
      if (file) appendFileSync(file, `${process.pid}\n`);
      process.kill(process.pid, arg as NodeJS.Signals);
      return new Promise<never>(() => setInterval(() => undefined, 1000));
    case 'retain':
      allocate(Number(arg), retained);
      return answer(`retained ${retained.length}`);
    case 'crash':
      process.exit(3);
    case 'sleep': {
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, Number(arg)));
      return answer(JSON.stringify({ pid: process.pid, start, end: Date.now() }));
    }
    case 'spin': {
      if (file) appendFileSync(file, `${process.pid}\n`);
      const until = Date.now() + Number(arg);
      let turns = 0;
      while (Date.now() < until) turns += 1;
      return answer(`spun ${turns > 0 ? 'busy' : 'idle'} for ${arg} ms`);
    }
    case 'pid':
      return answer(String(process.pid));
    case 'share-channel': {
      // fd 3 is the IPC channel; the sleeper keeps it open after this process is gone.
      const holder = spawn('sleep', ['60'], { stdio: ['ignore', 'ignore', 'ignore', 3], detached: true });
      appendFileSync(arg, `${holder.pid}\n`);
      holder.unref();
      process.exit(3);
    }
    case 'progress': {
      const total = Number(arg);
      for (let page = 1; page <= total; page++) {
        opts.onProgress?.({ pagesDone: page, pagesTotal: total });
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return answer('done');
    }
    default:
      return extractText(bytes, opts);
  }
}
