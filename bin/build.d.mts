/** Types of bin/build.mjs, for the tests that import it. */
export declare const STAMP: string;
export declare function buildInputs(root: string): string[];
export declare function staleReason(root: string): string | undefined;
export declare function build(root: string): number;
export declare const SCHEMA: string;
export declare const SCHEMA_INPUTS: string[];
export declare function schemaStaleReason(root: string): string | undefined;
export declare function ensureSchema(root: string, asOf?: Date): number;
