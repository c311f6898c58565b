import type { Chunk } from '../schemas/chunk.js';
import { SCORING } from './rank.js';
import { eachWordSpan, type Stem } from './tokenize.js';
import { WordTerms } from './word-terms.js';

/** A chunk as the index takes it: its id, source, position, text and heading path. */
export type IndexableChunk = Pick<Chunk, 'id' | 'documentId' | 'index' | 'text' | 'headings'>;

/** One ranked chunk: its id, score, source and position in the source's chunk list. */
export interface IndexHit {
  id: string;
  score: number;
  documentId: string;
  index: number;
}

/** A term's postings: slots and weighted term frequencies, in the order the chunks came. */
interface Postings {
  slots: Int32Array;
  tfs: Float32Array;
  size: number;
  /** Chunks alive in the list (the term's document frequency). */
  df: number;
}

const FREE = 0;
const LIVE = 1;
/** Removed, still named by postings until the next purge. */
const DEAD = 2;

/** Bytes a JavaScript string and a Map entry take, about. */
const stringBytes = (s: string) => 2 * s.length + 40;
const MAP_ENTRY_BYTES = 40;
/** An empty postings list: its object and two typed arrays of two entries. */
const POSTINGS_BYTES = 2 * 80 + 16 + 40;
/** Bytes per slot of the per-chunk arrays: state, source, index, length, body and heading lengths, score, touched, id and terms references. */
const SLOT_BYTES = 1 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 8 + 8;
/** Removed chunks kept in the postings before they are purged: at least this many, and at least as many as live ones. */
const PURGE_FLOOR = 4096;

/**
 * One knowledge base's inverted index in the API process: BM25 over each
 * chunk's text and heading path as one field in which a heading word counts
 * `weight` times (the scoring of rank.ts), exhaustive over the postings of the
 * query's terms. Chunks are slots of typed arrays; a removed chunk's slot is
 * only marked, and the postings are purged of such slots once they are as
 * many as the live ones, so a removal costs its own terms and no scan.
 *
 * Scores depend only on the chunks held (counts, lengths and totals are
 * integers, and a chunk's score is summed over the query's terms in the
 * query's order), and ties go to the smaller chunk id, so two indexes that
 * hold the same chunks rank alike whatever order they were built in.
 */
export class MemoryIndex {
  /** The change feed position the index has applied. */
  position: string;

  private state = new Uint8Array(64);
  private docOf = new Int32Array(64);
  private chunkIndex = new Int32Array(64);
  private length = new Float64Array(64);
  private bodyLength = new Int32Array(64);
  private headingLength = new Int32Array(64);
  private ids: string[] = [];
  private termsOf: (Int32Array | undefined)[] = [];
  private used = 0;
  private free: number[] = [];
  private dead = 0;
  private slotById = new Map<string, number>();

  private termNo = new Map<string, number>();
  private postings: Postings[] = [];
  /** Numbers of terms the purge dropped, for new terms. */
  private freeTerms: number[] = [];
  private docNo = new Map<string, number>();
  private docNames: string[] = [];
  /** Words met and their terms' numbers (forgotten when terms are purged). */
  private words = new WordTerms((term) => this.termNumber(term));
  /** Scratch counts of one chunk's terms by number, zero between upserts, and the terms met. */
  private bodyTf = new Int32Array(64);
  private headingTf = new Int32Array(64);
  private seen: number[] = [];

  private n = 0;
  private bodyTotal = 0;
  private headingTotal = 0;
  private fixedBytes = 0;

  private scores = new Float64Array(64);
  private touched = new Int32Array(64);

  constructor(
    position: string,
    private readonly weight: number = SCORING.weight,
  ) {
    this.position = position;
  }

  /** Chunks held. */
  get size(): number {
    return this.n;
  }

  /** Bytes the index takes in the process, about (typed arrays by capacity, strings and map entries by length). */
  get bytes(): number {
    return this.fixedBytes + this.words.bytes + this.state.length * SLOT_BYTES + 8 * this.bodyTf.length;
  }

  has(id: string): boolean {
    return this.slotById.has(id);
  }

  /**
   * Indexes a chunk, in place of the one of the same id if any: the terms of
   * its text and heading path as `stem` makes them (one stemmer for the
   * index's life: the words it has stemmed are remembered by term number).
   */
  upsert(c: IndexableChunk, stem: Stem): void {
    this.remove(c.id);
    const slot = this.free.pop() ?? this.used++;
    if (slot >= this.state.length) this.grow(slot + 1);
    let doc = this.docNo.get(c.documentId);
    if (doc === undefined) {
      doc = this.docNames.length;
      this.docNo.set(c.documentId, doc);
      this.docNames.push(c.documentId);
      this.fixedBytes += stringBytes(c.documentId) + MAP_ENTRY_BYTES;
    }
    // The chunk's counts per term number, in scratch arrays reset below; terms in the order first met.
    const seen = this.seen;
    seen.length = 0;
    this.words.fit(this.termNo.size);
    let body = 0;
    let heading = 0;
    eachWordSpan(c.text, (word, start, end) => {
      const t = word === undefined ? this.words.ofSpelling(c.text, start, end, stem) : this.words.ofWord(word, stem);
      if (this.bodyTf[t] === 0 && this.headingTf[t] === 0) seen.push(t);
      this.bodyTf[t]! += 1;
      body += 1;
    });
    for (const h of c.headings) {
      eachWordSpan(h, (word, start, end) => {
        const t = word === undefined ? this.words.ofSpelling(h, start, end, stem) : this.words.ofWord(word, stem);
        if (this.bodyTf[t] === 0 && this.headingTf[t] === 0) seen.push(t);
        this.headingTf[t]! += 1;
        heading += 1;
      });
    }
    const terms = new Int32Array(seen.length);
    let held = 0;
    for (const t of seen) {
      const tf = this.bodyTf[t]! + this.weight * this.headingTf[t]!;
      this.bodyTf[t] = 0;
      this.headingTf[t] = 0;
      // With no heading weight a chunk whose heading alone holds the term does not have it.
      if (tf <= 0) continue;
      this.append(this.postings[t]!, slot, tf);
      terms[held++] = t;
    }
    this.state[slot] = LIVE;
    this.docOf[slot] = doc;
    this.chunkIndex[slot] = c.index;
    this.bodyLength[slot] = body;
    this.headingLength[slot] = heading;
    this.length[slot] = body + this.weight * heading;
    this.ids[slot] = c.id;
    this.termsOf[slot] = held === terms.length ? terms : terms.slice(0, held);
    this.fixedBytes += stringBytes(c.id) + MAP_ENTRY_BYTES + 4 * held + 16;
    this.slotById.set(c.id, slot);
    this.n += 1;
    this.bodyTotal += body;
    this.headingTotal += heading;
  }

  /** The number of a term, made (with empty postings) when new. */
  private termNumber(term: string): number {
    let t = this.termNo.get(term);
    if (t !== undefined) return t;
    t = this.freeTerms.pop() ?? this.postings.length;
    this.termNo.set(term, t);
    this.postings[t] = { slots: new Int32Array(2), tfs: new Float32Array(2), size: 0, df: 0 };
    this.fixedBytes += stringBytes(term) + MAP_ENTRY_BYTES + POSTINGS_BYTES;
    if (t >= this.bodyTf.length) {
      const grown = (a: Int32Array) => {
        const g = new Int32Array(Math.max(2 * a.length, t + 1));
        g.set(a);
        return g;
      };
      this.bodyTf = grown(this.bodyTf);
      this.headingTf = grown(this.headingTf);
    }
    return t;
  }

  /** Drops a chunk (nothing when the index does not hold it). */
  remove(id: string): void {
    const slot = this.slotById.get(id);
    if (slot === undefined) return;
    this.slotById.delete(id);
    const terms = this.termsOf[slot]!;
    for (const t of terms) this.postings[t]!.df -= 1;
    this.fixedBytes -= stringBytes(id) + MAP_ENTRY_BYTES + 4 * terms.length + 16;
    this.termsOf[slot] = undefined;
    this.state[slot] = DEAD;
    this.n -= 1;
    this.bodyTotal -= this.bodyLength[slot]!;
    this.headingTotal -= this.headingLength[slot]!;
    this.dead += 1;
    if (this.dead >= Math.max(PURGE_FLOOR, this.n)) this.purge();
  }

  /**
   * The best `k` chunks for `terms` (stemmed, each once) among those `admit`
   * lets through (by source), best first, ties to the smaller id.
   */
  top(terms: readonly string[], k: number, admit: (documentId: string) => boolean = () => true): IndexHit[] {
    if (this.n === 0 || k <= 0) return [];
    const avg = Math.max((this.bodyTotal + this.weight * this.headingTotal) / this.n, 1);
    const { k1, b } = SCORING;
    const scores = this.scores;
    const touched = this.touched;
    let count = 0;
    for (const term of terms) {
      const t = this.termNo.get(term);
      if (t === undefined) continue;
      const p = this.postings[t]!;
      if (p.df <= 0) continue;
      const idf = Math.log(1 + (this.n - p.df + 0.5) / (p.df + 0.5));
      const { slots, tfs, size } = p;
      for (let i = 0; i < size; i++) {
        const slot = slots[i]!;
        if (this.state[slot] !== LIVE) continue;
        const tf = tfs[i]!;
        const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.length[slot]!) / avg));
        if (scores[slot] === 0) touched[count++] = slot;
        scores[slot]! += s;
      }
    }
    // The k best in a heap whose root is the worst kept.
    const docOk = new Map<number, boolean>();
    const heap: number[] = [];
    const worse = (x: number, y: number) => scores[x]! < scores[y]! || (scores[x] === scores[y] && this.ids[x]! > this.ids[y]!);
    for (let i = 0; i < count; i++) {
      const slot = touched[i]!;
      if (heap.length === k && !worse(heap[0]!, slot)) continue;
      const doc = this.docOf[slot]!;
      let ok = docOk.get(doc);
      if (ok === undefined) docOk.set(doc, (ok = admit(this.docNames[doc]!)));
      if (!ok) continue;
      if (heap.length < k) {
        heap.push(slot);
        siftUp(heap, heap.length - 1, worse);
      } else {
        heap[0] = slot;
        siftDown(heap, 0, worse);
      }
    }
    heap.sort((x, y) => (worse(x, y) ? 1 : worse(y, x) ? -1 : 0));
    const out = heap.map((slot) => ({ id: this.ids[slot]!, score: scores[slot]!, documentId: this.docNames[this.docOf[slot]!]!, index: this.chunkIndex[slot]! }));
    for (let i = 0; i < count; i++) scores[touched[i]!] = 0;
    return out;
  }

  private append(p: Postings, slot: number, tf: number): void {
    if (p.size === p.slots.length) {
      const cap = p.size * 2;
      const slots = new Int32Array(cap);
      slots.set(p.slots);
      const tfs = new Float32Array(cap);
      tfs.set(p.tfs);
      this.fixedBytes += (cap - p.size) * 8;
      p.slots = slots;
      p.tfs = tfs;
    }
    p.slots[p.size] = slot;
    p.tfs[p.size] = tf;
    p.size += 1;
    p.df += 1;
  }

  /** Drops removed chunks from every term's postings and frees their slots. */
  private purge(): void {
    for (const p of this.postings) {
      let w = 0;
      for (let i = 0; i < p.size; i++) {
        if (this.state[p.slots[i]!] !== LIVE) continue;
        p.slots[w] = p.slots[i]!;
        p.tfs[w] = p.tfs[i]!;
        w += 1;
      }
      p.size = w;
    }
    // A term dropped below frees its number for another: no word may still name it.
    this.words.forget();
    for (const [term, t] of this.termNo) {
      const p = this.postings[t]!;
      if (p.size > 0) continue;
      // A term no chunk holds any more: its entry goes, its list stays empty until the term comes back.
      this.termNo.delete(term);
      this.fixedBytes -= stringBytes(term) + MAP_ENTRY_BYTES + POSTINGS_BYTES + (p.slots.length - 2) * 8;
      p.slots = new Int32Array(2);
      p.tfs = new Float32Array(2);
      this.freeTerms.push(t);
    }
    for (let slot = 0; slot < this.used; slot++) {
      if (this.state[slot] !== DEAD) continue;
      this.state[slot] = FREE;
      this.ids[slot] = '';
      this.free.push(slot);
    }
    this.dead = 0;
  }

  private grow(min: number): void {
    let cap = this.state.length;
    while (cap < min) cap *= 2;
    const grown = <T extends Uint8Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.state = grown(this.state, (c) => new Uint8Array(c));
    this.docOf = grown(this.docOf, (c) => new Int32Array(c));
    this.chunkIndex = grown(this.chunkIndex, (c) => new Int32Array(c));
    this.length = grown(this.length, (c) => new Float64Array(c));
    this.bodyLength = grown(this.bodyLength, (c) => new Int32Array(c));
    this.headingLength = grown(this.headingLength, (c) => new Int32Array(c));
    this.scores = new Float64Array(cap);
    this.touched = new Int32Array(cap);
  }
}

function siftUp(heap: number[], i: number, worse: (x: number, y: number) => boolean): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(heap[i]!, heap[parent]!)) return;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function siftDown(heap: number[], i: number, worse: (x: number, y: number) => boolean): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}
