import { spawnSync } from 'node:child_process';
import { isExecutable } from './executable.js';

/**
 * Address space a sandbox child needs beyond `EXTRACT_MEMORY_MB`, in MB.
 * Measured with Node 20, {@link LIMITED_NODE_FLAGS} and {@link LIMITED_ENV}:
 * a warm compiled child (pdf.js with its canvas module, mammoth, cheerio,
 * the tokenizer) holds 1,240 MB of address space at 100 MB resident, the
 * rest being reservations it never touches (V8's heap and code ranges,
 * thread stacks and malloc arenas); under tsx, 2,140 MB at 190 MB. Over the
 * 142 corpus files, one per fresh child, extraction added at most 280 MB of
 * address space that never became resident (a scanned PDF's images), and the
 * largest child peaked at 2,021 MB with 830 MB resident (a DOCX mammoth
 * takes 11 s over). So a compiled child at the RSS cap holds about 1,140 +
 * `EXTRACT_MEMORY_MB` + 280 MB: 2,048 MB of headroom leaves 600 MB to spare
 * (under tsx, in development and tests, the limit may bind some 200 MB below
 * the RSS cap). The RSS watchdog stays the finer bound; this limit is the
 * ceiling that no allocation, however fast, gets past.
 */
export const ADDRESS_SPACE_HEADROOM_MB = 2048;

/**
 * Node flags for a child under the limit. Some reservations are greedy: they
 * try for a large range and settle for what the limit leaves, so without
 * these a child would fill its headroom before reading a document. With the
 * trap handler, every WebAssembly memory reserves 10 GB for guard pages;
 * with bounds checks instead, it still reserves its maximum (4 GB unless
 * capped), hence the cap at 64 MB (1,024 pages). The only WebAssembly a
 * child runs is the TypeScript loader's module lexers in development: pdf.js
 * gets no `wasmUrl`, so its JPX and ICC decoders stay off.
 */
export const LIMITED_NODE_FLAGS = ['--disable-wasm-trap-handler', '--wasm-max-mem-pages=1024'];

/**
 * Environment for a child under the limit: mimalloc, the allocator of
 * pdf.js's canvas module, otherwise reserves a 1 GB arena at its first
 * allocation (or whatever part of it the limit still allows).
 */
export const LIMITED_ENV: Readonly<Record<string, string>> = { MIMALLOC_ARENA_RESERVE: '0' };

/** How to start a program under an address-space limit: the command and the arguments before the program's own argv. */
export interface LimitedCommand {
  command: string;
  args: string[];
}

type Wrapper = (limitMb: number) => LimitedCommand;

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'];
const SH = '/bin/sh';

let cached: Wrapper | null | undefined;

/**
 * Returns `argv` (a program and its arguments) wrapped so that the OS limits
 * the process's address space (RLIMIT_AS) to `limitMb` before the program
 * starts: through util-linux `prlimit`, or a POSIX shell's `ulimit -v`; both
 * exec the program, so it keeps the wrapper's pid. Undefined when this
 * platform has neither (the caller then runs without the limit).
 */
export function withAddressSpaceLimit(limitMb: number, argv: [string, ...string[]]): LimitedCommand | undefined {
  cached ??= findWrapper();
  if (!cached) return undefined;
  const { command, args } = cached(limitMb);
  return { command, args: [...args, ...argv] };
}

function findWrapper(): Wrapper | null {
  const prlimit = PRLIMIT.find(isExecutable);
  if (prlimit) return (mb) => ({ command: prlimit, args: [`--as=${mb * 1024 * 1024}`, '--'] });
  // Not every shell can lower the limit (macOS refuses -v): try it once.
  if (isExecutable(SH) && spawnSync(SH, ['-c', 'ulimit -v 4194304'], { stdio: 'ignore', timeout: 5_000 }).status === 0) {
    return (mb) => ({ command: SH, args: ['-c', `ulimit -v ${mb * 1024} && exec "$@"`, 'sh'] });
  }
  return null;
}
