import { ValidationError } from '../errors.js';

/** How a knowledge base's Markdown is cut into chunks. */
export interface ChunkSettings {
  /** No chunk holds more cl100k_base tokens than this. */
  maxTokens: number;
  /** Tokens of a chunk's tail repeated at the start of the next; 0 for none. */
  overlapTokens: number;
}

/** The service's defaults, those of CHUNK_MAX_TOKENS and CHUNK_OVERLAP_TOKENS, for callers without a configuration. */
export const DEFAULT_CHUNK_SETTINGS: ChunkSettings = { maxTokens: 512, overlapTokens: 0 };

/**
 * Smallest and largest chunk bound, for CHUNK_MAX_TOKENS and a knowledge
 * base's `chunk_max_tokens` alike: the chunker keeps every chunk, with the
 * fence or table header it repeats, within any bound from 16.
 */
export const MIN_CHUNK_TOKENS = 16;
export const MAX_CHUNK_TOKENS = 8192;

/** Form and JSON names of the two settings. */
export const CHUNK_FIELDS = { maxTokens: 'chunk_max_tokens', overlapTokens: 'chunk_overlap_tokens' } as const;

/**
 * The settings as one string (`<max>/<overlap>`), stored on every source
 * beside its chunks: chunks are reused or kept only where this tag matches
 * their knowledge base's, so no chunk outlives the bound it was cut for.
 */
export function chunkingTag(s: ChunkSettings): string {
  return `${s.maxTokens}/${s.overlapTokens}`;
}

/** Largest overlap for a maximum: half of it, rounded down. */
export const maxOverlapFor = (maxTokens: number): number => Math.floor(maxTokens / 2);

/** A requested change of a knowledge base's settings; either may be left out. */
export type ChunkSettingsChange = Partial<ChunkSettings>;

/**
 * The settings after `change` is applied to `current`. An overlap over half
 * the resulting maximum is refused with the field it concerns; an overlap
 * left out is lowered to that half when only the maximum shrinks below it,
 * so a PATCH of `chunk_max_tokens` alone never fails for an old overlap.
 */
export function applyChunkChange(current: ChunkSettings, change: ChunkSettingsChange): ChunkSettings {
  const maxTokens = change.maxTokens ?? current.maxTokens;
  const limit = maxOverlapFor(maxTokens);
  if (change.overlapTokens !== undefined && change.overlapTokens > limit) {
    throw new ValidationError({ [CHUNK_FIELDS.overlapTokens]: `must be at most half of chunk_max_tokens (${limit} for ${maxTokens})` });
  }
  return { maxTokens, overlapTokens: Math.min(change.overlapTokens ?? current.overlapTokens, limit) };
}

/** A knowledge base's settings, or the deployment's (`defaults`) for one that never chose any. */
export function effectiveChunking(own: ChunkSettings | undefined, defaults: ChunkSettings): ChunkSettings {
  return own ?? defaults;
}
