import type { Stem } from './tokenize.js';

/** Words whose term numbers are remembered at most (emptied when full). */
const MAX_WORDS = 200_000;
/** Slots of the spelling cache, fewest and most (powers of two), and bytes a slot takes with its string, about. */
const MIN_SPELLING_SLOTS = 256;
const MAX_SPELLING_SLOTS = 1 << 14;
const SPELLING_SLOT_BYTES = 12 + 56;
/** Bytes a remembered word takes: its string and its map entry, about. */
const wordBytes = (w: string) => 2 * w.length + 40 + 40;

/**
 * The words an index has met, each with the number of the term it stems to,
 * so that a word is stemmed and looked up among the terms once: by the word
 * (a map), and by its spelling as the text holds it (a small table by a hash
 * of its characters, compared in place), which finds a word without making
 * its string. A cache: it may be emptied at any time, and must be when a
 * term's number is given to another term.
 */
export class WordTerms {
  private byWord = new Map<string, number>();
  private wordsBytes = 0;
  private spellings: (string | undefined)[] = new Array<string | undefined>(MIN_SPELLING_SLOTS);
  private spellingTerms = new Int32Array(MIN_SPELLING_SLOTS);

  /** `termOf` gives the number of a term (a stemmed word), made when new. */
  constructor(private readonly termOf: (term: string) => number) {}

  /** Bytes the cache takes, about. */
  get bytes(): number {
    return this.wordsBytes + this.spellings.length * SPELLING_SLOT_BYTES;
  }

  /** The number of the term `word` (lower case, compatibility form) stems to. */
  ofWord(word: string, stem: Stem): number {
    let t = this.byWord.get(word);
    if (t !== undefined) return t;
    t = this.termOf(stem(word));
    if (this.byWord.size >= MAX_WORDS) this.forget();
    this.byWord.set(word, t);
    this.wordsBytes += wordBytes(word);
    return t;
  }

  /** The number of the term of the word `text` holds from `start` to `end`, which is the word but for case. */
  ofSpelling(text: string, start: number, end: number, stem: Stem): number {
    let h = 0;
    for (let i = start; i < end; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
    const at = (h ^ (h >>> 15)) & (this.spellings.length - 1);
    const known = this.spellings[at];
    if (known !== undefined && known.length === end - start && text.startsWith(known, start)) return this.spellingTerms[at]!;
    const spelling = text.slice(start, end);
    const t = this.ofWord(spelling.toLowerCase(), stem);
    this.spellings[at] = spelling;
    this.spellingTerms[at] = t;
    return t;
  }

  /** Sizes the spelling table for an index of `terms` terms (emptied when it grows), so a small index keeps a small one. */
  fit(terms: number): void {
    let slots = this.spellings.length;
    while (slots < MAX_SPELLING_SLOTS && slots < terms) slots *= 2;
    if (slots === this.spellings.length) return;
    this.spellings = new Array<string | undefined>(slots);
    this.spellingTerms = new Int32Array(slots);
  }

  /** Forgets every word and spelling. */
  forget(): void {
    this.byWord.clear();
    this.wordsBytes = 0;
    this.spellings.fill(undefined);
  }
}
