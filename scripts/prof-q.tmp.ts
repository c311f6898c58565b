import { searchLoad } from './lib/search-load.js';
import { MemoryIndex } from '../shared/search/memory-index.js';
const orig = MemoryIndex.prototype.top;
let topMs = 0, topN = 0, postings = 0;
MemoryIndex.prototype.top = function (...a: Parameters<typeof orig>) { const t = performance.now(); const r = orig.apply(this, a); topMs += performance.now() - t; topN++; return r; };
const r = await searchLoad({ chunks: 100000, queries: 200, clients: 1 });
console.log('1 client', r.p50Ms.toFixed(1), r.p95Ms.toFixed(1), r.queriesPerSecond.toFixed(0), 'top() mean ms', (topMs / topN).toFixed(2), topN);
