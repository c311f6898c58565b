import type { SourceWarning } from '../../shared/schemas/knowledge-base.js';

/**
 * A doubt about a `ready` extraction, shown to clients as `warnings`. It is the
 * API's own type, so a code the contract does not list cannot be produced.
 */
export type ExtractionWarning = SourceWarning;
