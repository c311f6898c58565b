/** Types of bin/build.mjs, for the tests that import it. */
export declare const STAMP: string;
export declare function buildInputs(root: string): string[];
export declare function staleReason(root: string): string | undefined;
export declare function build(root: string): number;
