import { describe, expect, it } from 'vitest';
import { DirectPort, shared } from '../../worker/extractors/pdf/direct-port.js';

describe("the port between pdf.js's two sides", () => {
  it('passes a chunk of text content on with its items array, in a new message and chunk', () => {
    const items = [{ str: 'a', transform: [1, 0, 0, 1, 0, 0] }];
    const styles = Object.create(null) as object;
    const chunk = { items, styles, lang: null };
    const message = { sourceName: 'worker', targetName: 'main', stream: 4, streamId: 1, chunk };
    const passed = shared(message) as typeof message;
    expect(passed).toEqual(message);
    expect(passed).not.toBe(message);
    expect(passed.chunk).not.toBe(chunk);
    expect(passed.chunk.items).toBe(items);
    expect(passed.chunk.styles).toBe(styles);
  });

  it('copies a message of primitives shallowly and leaves every other message to structuredClone', () => {
    const pull = { sourceName: 'main', targetName: 'worker', stream: 6, streamId: 1, desiredSize: 100 };
    expect(shared(pull)).toEqual(pull);
    expect(shared(pull)).not.toBe(pull);
    const opList = { fnArray: [1], argsArray: [[]], lastChunk: false, separateAnnots: null, length: 1 };
    expect(shared({ sourceName: 'worker', targetName: 'main', stream: 4, streamId: 2, chunk: opList })).toBeUndefined();
    expect(shared({ action: 'GetDocRequest', data: { data: new Uint8Array(1) } })).toBeUndefined();
    expect(shared({ ...pull, chunk: { items: [], styles: {}, lang: null, extra: 1 } })).toBeUndefined();
    expect(shared([1, 2])).toBeUndefined();
    expect(shared(null)).toBeUndefined();
  });

  it('delivers a message to every listener in a microtask, a cloned one detached from its sender', async () => {
    const port = new DirectPort();
    const seen: unknown[] = [];
    port.addEventListener('message', (event) => seen.push(event.data));
    const data = { action: 'x', data: { list: [1, 2] } };
    port.postMessage(data);
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen).toEqual([data]);
    expect(seen[0]).not.toBe(data);
    const buffer = new ArrayBuffer(8);
    port.postMessage({ action: 'y', data: buffer }, [buffer]);
    expect(buffer.byteLength).toBe(0);
    await Promise.resolve();
    port.terminate();
    port.postMessage({ action: 'z' });
    await Promise.resolve();
    expect(seen).toHaveLength(2);
  });
});
