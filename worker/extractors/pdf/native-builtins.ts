/**
 * The engine's own `Array.prototype.push` and `JSON.parse`, kept before
 * pdf.js is evaluated (see pdfjs.ts). Imported first by that module, so
 * ES module order evaluates this before pdf.js.
 */
export const NATIVE_BUILTINS = { push: Array.prototype.push, parse: JSON.parse };
