import { setImmediate as nextTurn } from 'node:timers/promises';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** Characters tokenized between two turns of the event loop (a few ms of work at most). */
export const SLICE_CHARS = 64 * 1024;

/** How a scan ended: the whole input read, stopped by its handlers, or out of time. */
export type ScanEnd = 'done' | 'stopped' | 'over_time';

/** What the handlers of a scan are given. */
export interface ScanContext {
  /** The input between two of the tokenizer's indices (those of the callbacks). */
  text(start: number, end: number): string;
  /** Ends the scan at once: no further callback is made. */
  stop(): void;
}

/** Options of {@link scanMarkup}. */
export interface ScanOptions {
  /** XML rules (case kept, CDATA, only the XML entities) rather than HTML's. */
  xmlMode: boolean;
  /** Time the tokenizer may spend on the event loop in all, in ms; past it the scan ends `over_time`. */
  budgetMs: number;
}

/**
 * Runs htmlparser2's tokenizer over markup, which is one linear pass: no
 * tree and no stack of open elements (both cost time that grows with the
 * square of a hostile input's nesting), entities decoded but never defined.
 * The input is fed at most {@link SLICE_CHARS} characters at a time and the
 * event loop gets a turn between two slices, so no document holds it for
 * more than a few milliseconds, and the tokenizer's total time on the loop
 * is bounded by `budgetMs`. `handlers` builds the callbacks; those not given
 * do nothing.
 */
export async function scanMarkup(
  chunks: AsyncIterable<string> | Iterable<string>,
  opts: ScanOptions,
  handlers: (ctx: ScanContext) => Partial<TokenizerCallbacks>,
): Promise<ScanEnd> {
  const input = new SlicedInput();
  let stopped = false;
  const ctx: ScanContext = {
    text: (start, end) => input.text(start, end),
    stop: () => {
      stopped = true;
      tokenizer.pause();
    },
  };
  const given = handlers(ctx);
  const callbacks: TokenizerCallbacks = {
    ...IGNORE,
    ...given,
    // Text is where most input goes by; reading it lets the slices before it go.
    ontext: (start, end) => {
      input.text(start, start);
      given.ontext?.(start, end);
    },
  };
  const tokenizer = new Tokenizer({ xmlMode: opts.xmlMode, decodeEntities: true }, callbacks);
  let busyMs = 0;
  const run = (step: () => void): ScanEnd | undefined => {
    const began = performance.now();
    step();
    busyMs += performance.now() - began;
    if (stopped) return 'stopped';
    return busyMs > opts.budgetMs ? 'over_time' : undefined;
  };
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += SLICE_CHARS) {
      const slice = chunk.length <= SLICE_CHARS ? chunk : chunk.slice(at, at + SLICE_CHARS);
      input.push(slice);
      const ended = run(() => tokenizer.write(slice));
      if (ended) return ended;
      await nextTurn();
    }
  }
  return run(() => tokenizer.end()) ?? 'done';
}

const noop = (): void => undefined;
const IGNORE: TokenizerCallbacks = {
  onattribdata: noop,
  onattribentity: noop,
  onattribend: noop,
  onattribname: noop,
  oncdata: noop,
  onclosetag: noop,
  oncomment: noop,
  ondeclaration: noop,
  onend: noop,
  onopentagend: noop,
  onopentagname: noop,
  onprocessinginstruction: noop,
  onselfclosingtag: noop,
  ontext: noop,
  ontextentity: noop,
};

/**
 * The slices written so far, addressed by the tokenizer's indices (which
 * count from the start of the input). Slices wholly before the start of the
 * latest read are dropped: the tokenizer's sections only move forward.
 */
class SlicedInput {
  private slices: string[] = [];
  /** Index of the first character of `slices[0]`. */
  private offset = 0;

  push(slice: string): void {
    this.slices.push(slice);
  }

  text(start: number, end: number): string {
    while (this.slices.length > 1 && start - this.offset >= this.slices[0]!.length) {
      this.offset += this.slices.shift()!.length;
    }
    let out = '';
    let from = start - this.offset;
    let to = end - this.offset;
    for (const slice of this.slices) {
      if (from < slice.length && to > 0) out += slice.slice(Math.max(0, from), Math.min(slice.length, to));
      from -= slice.length;
      to -= slice.length;
      if (to <= 0) break;
    }
    return out;
  }
}
