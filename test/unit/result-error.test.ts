import { describe, expect, it } from 'vitest';
import { resultError, type Refusal } from '../../shared/store/scripts/result-error.js';

/** What an error tells a client: its message and its details. */
const said = (e: Error): string => `${e.message} ${JSON.stringify(e)}`;

describe('resultError', () => {
  it('names what is missing, and the revision a precondition failed on', () => {
    expect(resultError('missing', { kbId: 'kb_x' }).code).toBe('not_found');
    expect(said(resultError('missing', { kbId: 'kb_x' }))).toMatch(/kb_x/);
    expect(said(resultError('missing_site', { kbId: 'kb_x', siteId: 'site_y' }))).toMatch(/site_y/);
    expect(said(resultError('missing_source', { kbId: 'kb_x', documentId: 'doc_z' }))).toMatch(/doc_z/);
    expect(resultError('precondition_failed', { rev: 7 }).code).toBe('precondition_failed');
    expect(said(resultError('busy', { status: 'processing' }))).toMatch(/processing/);
  });

  it('throws on a tag cast past its type', () => {
    expect(() => resultError('brand_new' as Refusal)).toThrow(/no error is declared for the script result 'brand_new'/);
  });

  it('refuses at compile time a tag it declares no error for', () => {
    // @ts-expect-error a refusal without an error does not type-check
    expect(() => resultError('brand_new')).toThrow();
  });
});
