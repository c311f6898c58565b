/**
 * pdf.js for this process: the only module that imports it (others take
 * what they need from here). The legacy build carries core-js, which on
 * Node 20 (V8 11) replaces `Array.prototype.push` for the whole process with
 * a JavaScript function (for a length past 2^32 and a non-writable length,
 * two cases no parser here meets) and `JSON.parse` with one that hands a
 * reviver the source text. The replacement push made every push of pdf.js
 * and of the page rebuild several times slower: about a tenth of a PDF's CPU time.
 * Both are put back once pdf.js and its worker side are loaded; what core-js
 * only adds (Promise.withResolvers, Uint8Array.fromBase64, ...) stays, as
 * pdf.js needs it. The worker side is loaded here and handed to pdf.js
 * (`globalThis.pdfjsWorker`, its own hook for a worker in the same thread),
 * so it is not loaded later, after the restore. It is loaded with the
 * patches of `worker-patches.ts` when they match the installed pdf.js, as
 * shipped otherwise (`PDFJS_WORKER.patched` tells which). Each document
 * gets a worker of its own on a {@link DirectPort}, which does not deep-copy
 * the text content the worker side sends (see `direct-port.ts`).
 */
import { NATIVE_BUILTINS } from './native-builtins.js';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DirectPort } from './direct-port.js';
import { loadPdfjsWorker, type LoadedWorker } from './worker-source.js';

const worker = await loadPdfjsWorker();
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker.module;
Array.prototype.push = NATIVE_BUILTINS.push;
JSON.parse = NATIVE_BUILTINS.parse;

/** Whether pdf.js's worker side runs with its patches, and which did not match. */
export const PDFJS_WORKER: Pick<LoadedWorker, 'patched' | 'missing'> = { patched: worker.patched, missing: worker.missing };
export const { OPS } = pdfjs;

type DocumentParameters = Exclude<Parameters<typeof pdfjs.getDocument>[0], string | URL | ArrayBuffer | ArrayBufferView | undefined>;
const { WorkerMessageHandler } = worker.module as { WorkerMessageHandler: { initializeFromPort(port: DirectPort): void } };

/**
 * pdf.js's `getDocument`, on a worker of the document's own whose two sides
 * talk through a {@link DirectPort}; destroying the task destroys that
 * worker, as it does the one pdf.js makes itself. A `worker` given is used as it is.
 */
export function getDocument(src: DocumentParameters): ReturnType<typeof pdfjs.getDocument> {
  if (src.worker) return pdfjs.getDocument(src);
  const port = new DirectPort();
  WorkerMessageHandler.initializeFromPort(port);
  const pdfWorker = new pdfjs.PDFWorker({ port: port as never, verbosity: src.verbosity });
  const task = pdfjs.getDocument({ ...src, worker: pdfWorker });
  const destroy = task.destroy.bind(task);
  task.destroy = () =>
    destroy().finally(() => {
      pdfWorker.destroy();
      port.terminate();
    });
  return task;
}
export type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
