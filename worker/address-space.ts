import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/**
 * Address space a sandbox child needs beyond `EXTRACT_MEMORY_MB`, in MB.
 * Measured with Node 20: a warm child (pdf.js with its canvas module,
 * mammoth, cheerio, the tokenizer) holds about 1,270 MB of address space at
 * about 100 MB resident, the rest being reservations never touched (thread
 * arenas, V8's heap and code ranges); under tsx it is about 1,930 MB at 190
 * MB. Extracting the corpus added at most 200 MB of address space beyond
 * what became resident. 2,048 MB covers both with room; the RSS watchdog
 * stays the tighter, finer bound, and this limit is the ceiling no single
 * allocation can jump past.
 */
export const ADDRESS_SPACE_HEADROOM_MB = 2048;

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

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
