/** Words of a text, lower-cased; CJK characters count one by one since they are not space-separated; a ligature character ("ﬀ") counts as its letters. */
export const wordBag = (s: string): string[] => s.toLowerCase().replace(/[\ufb00-\ufb06]/g, (c) => c.normalize('NFKC')).match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu) ?? [];

/** Word recall and precision of `actual` against `expected`, counting repeated words. */
export function recallPrecision(expected: string, actual: string): { recall: number; precision: number } {
  const have = new Map<string, number>();
  const got = wordBag(actual);
  for (const w of got) have.set(w, (have.get(w) ?? 0) + 1);
  const want = wordBag(expected);
  let hit = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      hit++;
      have.set(w, n - 1);
    }
  }
  return { recall: want.length ? hit / want.length : 1, precision: got.length ? hit / got.length : 1 };
}
