import type { StoreRedis } from './commands.js';
import { EXTRACTION_FIELDS, type NewSource, type ReusedExtraction } from './kb-records.js';
import type { KeySpace } from './keys.js';
import { readList, readString } from './staging.js';

/**
 * A workspace's index of extracted files: an upload of bytes the workspace
 * has extracted before takes that extraction over instead of running again.
 */
export class ExtractionReuse {
  constructor(
    private readonly redis: StoreRedis,
    private readonly keys: KeySpace,
  ) {}

  /** Remembers that a ready file source holds the extraction of these bytes, for the workspace to reuse. */
  async recordExtractedFile(workspaceId: string, sha256: string, kbId: string, documentId: string): Promise<void> {
    await this.redis.hset(this.keys.extractedFiles(workspaceId), sha256, `${kbId}/${documentId}`);
  }

  /**
   * For each file whose bytes were already extracted in the workspace (and
   * whose source is still ready with the same bytes), that extraction, to be
   * taken over by the new source. Stale entries are dropped.
   */
  async findReusable(workspaceId: string, sources: NewSource[]): Promise<Map<string, ReusedExtraction>> {
    const found = new Map<string, ReusedExtraction>();
    const files = sources.filter((s) => s.type === 'file' && s.sha256);
    if (files.length === 0) return found;
    const index = this.keys.extractedFiles(workspaceId);
    const refs = await this.redis.hmget(index, ...files.map((s) => s.sha256!));
    for (const [i, ref] of refs.entries()) {
      const file = files[i]!;
      if (!ref) continue;
      const [kbId = '', documentId = ''] = ref.split('/');
      const reused = await this.readExtraction(kbId, documentId, file.sha256!);
      if (!reused) {
        await this.redis.hdel(index, file.sha256!);
        continue;
      }
      // A title that was only the old file's name becomes the new one's.
      if (reused.fields.title === reused.fields.filename || !reused.fields.title) reused.fields.title = file.filename ?? file.content;
      delete reused.fields.filename;
      found.set(file.documentId, reused);
    }
    return found;
  }

  private async readExtraction(kbId: string, documentId: string, sha256: string): Promise<ReusedExtraction | null> {
    const k = this.keys.sourceKeys(kbId, documentId);
    const h = await this.redis.hgetall(k.record);
    // Only a source whose run ended ready holds a whole extraction of these bytes.
    if (h.status !== 'ready' || h.sha256 !== sha256) return null;
    // Read in slices, each command short: a run or re-chunk that rewrites the source meanwhile changes
    // its `updatedAt`, and a torn read is dropped (the new source is then extracted on its own).
    const [text, markdown, chunks] = await Promise.all([readString(this.redis, k.text), readString(this.redis, k.markdown), readList(this.redis, k.chunks)]);
    const [status, updatedAt] = await this.redis.hmget(k.record, 'status', 'updatedAt');
    if (text === null || status !== 'ready' || updatedAt !== h.updatedAt) return null;
    const fields = Object.fromEntries(EXTRACTION_FIELDS.flatMap((f) => (h[f] !== undefined ? [[f, h[f]!]] : [])));
    return { fields, text, markdown: markdown ?? text, chunks };
  }
}
