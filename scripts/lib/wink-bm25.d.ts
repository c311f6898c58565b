// The parts of wink-bm25-text-search and wink-nlp-utils the retrieval bench uses (neither ships types).
declare module 'wink-bm25-text-search' {
  type Task = (input: never) => unknown;
  interface Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
    definePrepTasks(tasks: Task[], field?: string): number;
    addDoc(doc: Record<string, string>, id: string): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): [string, number][];
  }
  const bm25: () => Engine;
  export default bm25;
}

declare module 'wink-nlp-utils' {
  const nlp: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[] };
    tokens: { removeWords(t: string[]): string[]; stem(t: string[]): string[]; propagateNegations(t: string[]): string[] };
  };
  export default nlp;
}
