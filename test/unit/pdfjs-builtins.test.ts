import { describe, expect, it } from 'vitest';

describe('pdf.js in a sandbox child', () => {
  it('leaves the engine its own Array.prototype.push and JSON.parse, and keeps what pdf.js adds', async () => {
    const push = Array.prototype.push;
    const parse = JSON.parse;
    const { getDocument } = await import('../../worker/extractors/pdf/pdfjs.js');
    expect(Array.prototype.push).toBe(push);
    expect(JSON.parse).toBe(parse);
    expect(Object.keys(Array.prototype)).not.toContain('push');
    expect(typeof (Promise as { withResolvers?: unknown }).withResolvers).toBe('function');
    // The worker side is handed over, not loaded later (which would replace push again).
    expect(typeof (globalThis as { pdfjsWorker?: { WorkerMessageHandler?: unknown } }).pdfjsWorker?.WorkerMessageHandler).toBe('function');
    const task = getDocument({ data: new Uint8Array(Buffer.from('%PDF-1.4\n%%EOF\n')), verbosity: 0 });
    await task.promise.catch(() => undefined);
    await task.destroy();
    expect(Array.prototype.push).toBe(push);
  });
});
