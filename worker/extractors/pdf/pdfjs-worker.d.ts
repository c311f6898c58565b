/** pdf.js's worker side, which ships without types; pdfjs.ts only hands it to pdf.js. */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
