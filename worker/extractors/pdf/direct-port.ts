/**
 * The port between pdf.js's two sides in this thread. pdf.js's own
 * (`LoopbackPort`, what it uses when its worker side runs in the same
 * thread) deep-copies every message with `structuredClone`, as a real worker
 * would need: a tenth of the CPU time of a long text PDF went into copying
 * text items that the sender never looks at again. This port delivers
 * messages as that one does (to every listener, in a microtask, one event
 * object each) and copies them the same way, except two kinds whose copy
 * nobody can tell from the original:
 *
 * - a message of primitive values only (a stream's pull, its acknowledgements),
 *   which is copied shallowly;
 * - a chunk of text content (`{ items, styles, lang }`), which gets a fresh
 *   message and chunk object around the same `items` array and `styles`
 *   object. The worker side builds each item and style as a new object and,
 *   once a chunk is sent, starts new `items` and `styles` for the next one
 *   (it reassigns them; it never changes a sent item or array); the main side
 *   copies the items into its own array.
 *
 * Anything else (operator lists, whose arrays the worker side empties once
 * sent; fonts; errors; transferred buffers) is cloned as before.
 */
type Listener = (this: DirectPort, event: { data: unknown }) => void;

const DELIVERED = Promise.resolve();

export class DirectPort {
  #listeners = new Set<Listener>();

  postMessage(message: unknown, transfer?: readonly ArrayBuffer[]): void {
    const event = { data: shared(message) ?? structuredClone(message, transfer ? { transfer: [...transfer] } : undefined) };
    void DELIVERED.then(() => {
      for (const listener of this.#listeners) listener.call(this, event);
    });
  }

  addEventListener(_type: string, listener: Listener): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: string, listener: Listener): void {
    this.#listeners.delete(listener);
  }

  terminate(): void {
    this.#listeners.clear();
  }
}

/** The message passed on without a deep copy, or undefined when it must be cloned. */
export function shared(message: unknown): object | undefined {
  if (!isPlain(message)) return undefined;
  let chunk: unknown;
  for (const key in message) {
    const value = (message as Record<string, unknown>)[key];
    if (key === 'chunk' && isTextChunk(value)) chunk = value;
    else if (typeof value === 'object' ? value !== null : typeof value === 'function') return undefined;
  }
  if (chunk === undefined) return { ...message };
  const { items, styles, lang } = chunk as { items: unknown[]; styles: object; lang: unknown };
  return { ...message, chunk: { items, styles, lang } };
}

function isPlain(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

const TEXT_CHUNK_KEYS = 'items,styles,lang';

function isTextChunk(value: unknown): boolean {
  if (!isPlain(value) || Object.keys(value).join(',') !== TEXT_CHUNK_KEYS) return false;
  const { items, styles, lang } = value as { items: unknown; styles: unknown; lang: unknown };
  return Array.isArray(items) && typeof styles === 'object' && styles !== null && (lang === null || typeof lang === 'string');
}
