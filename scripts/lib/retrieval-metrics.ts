/**
 * How the retrieval set judges a ranking. A question names its answer by
 * short phrases copied from the documents; a chunk is relevant when its text
 * holds one of them, compared as `normalized` makes both sides, so the
 * judgement does not depend on where the chunker cut.
 */

/** One question of the set, with the phrases its answer holds. */
export interface RetrievalQuestion {
  query: string;
  answers: string[];
}

/**
 * Lower case, Markdown's marks dropped (emphasis `*`, code `` ` ``, escaping
 * `\`, which HTML turned into Markdown adds around words), every run of white
 * space one space, trimmed.
 */
export const normalized = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[*`\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Judges questions against one set of chunks, each chunk's text normalized once. */
export interface PhraseJudge {
  /** The ids of the chunks that hold one of the phrases. */
  relevant(answers: string[]): Set<string>;
  /** The phrases no chunk holds: a question whose phrases all are here cannot be judged. */
  unmatched(answers: string[]): string[];
}

export function phraseJudge(chunks: { id: string; text: string }[]): PhraseJudge {
  const texts = chunks.map((c) => ({ id: c.id, text: normalized(c.text) }));
  const holding = (answer: string) => {
    const phrase = normalized(answer);
    return phrase.length === 0 ? [] : texts.filter((t) => t.text.includes(phrase)).map((t) => t.id);
  };
  return {
    relevant: (answers) => new Set(answers.flatMap(holding)),
    unmatched: (answers) => answers.filter((a) => holding(a).length === 0),
  };
}

/** 1 when a relevant chunk is among the first `k` of the ranking, else 0 (the answer was found or not). */
export function recallAt(k: number, ranked: string[], relevant: Set<string>): number {
  return ranked.slice(0, k).some((id) => relevant.has(id)) ? 1 : 0;
}

/** 1 / the rank of the first relevant chunk within the first `k`, 0 when none is. */
export function reciprocalRankAt(k: number, ranked: string[], relevant: Set<string>): number {
  const first = ranked.slice(0, k).findIndex((id) => relevant.has(id));
  return first < 0 ? 0 : 1 / (first + 1);
}

/** Mean recall@5 and MRR@10 of one ranking per question (`relevant[i]` for `ranked[i]`). */
export function retrievalScores(relevant: Set<string>[], ranked: string[][]): { recall5: number; mrr10: number } {
  if (relevant.length !== ranked.length) throw new Error(`${relevant.length} questions but ${ranked.length} rankings`);
  if (relevant.length === 0) return { recall5: 0, mrr10: 0 };
  let recall5 = 0;
  let mrr10 = 0;
  relevant.forEach((r, i) => {
    recall5 += recallAt(5, ranked[i]!, r);
    mrr10 += reciprocalRankAt(10, ranked[i]!, r);
  });
  return { recall5: recall5 / relevant.length, mrr10: mrr10 / relevant.length };
}
