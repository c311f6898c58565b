import { describe, expect, it } from 'vitest';
import { LEGACY_JOB_NAMES, SOURCE_JOB_TYPES, sourceJobInfo } from '../../shared/queue/jobs.js';

describe('what an extraction job is named after', () => {
  it('names a file after its format from the recorded MIME type, an image as image, an unknown type as file', () => {
    expect(sourceJobInfo({ type: 'file', mimeType: 'application/pdf', sizeBytes: 1234 })).toEqual({ jobType: 'pdf', sizeBytes: 1234 });
    expect(sourceJobInfo({ type: 'file', mimeType: 'text/markdown', sizeBytes: 9 })).toEqual({ jobType: 'markdown', sizeBytes: 9 });
    expect(sourceJobInfo({ type: 'file', mimeType: 'image/jpeg', sizeBytes: 5 })).toEqual({ jobType: 'image', sizeBytes: 5 });
    expect(sourceJobInfo({ type: 'file', mimeType: 'application/octet-stream' })).toEqual({ jobType: 'file' });
  });

  it('names URL and text sources by their type; a text has its size in bytes, a URL not fetched yet none', () => {
    expect(sourceJobInfo({ type: 'url', content: 'https://example.com/a' })).toEqual({ jobType: 'url' });
    expect(sourceJobInfo({ type: 'url', content: 'https://example.com/a', sizeBytes: 42 })).toEqual({ jobType: 'url', sizeBytes: 42 });
    expect(sourceJobInfo({ type: 'text', content: 'née' })).toEqual({ jobType: 'text', sizeBytes: 4 });
  });

  it('keeps the names of other jobs apart from the source types, old names included', () => {
    for (const name of ['site', 'refresh', 'rechunk', ...Object.keys(LEGACY_JOB_NAMES)]) expect(SOURCE_JOB_TYPES).not.toContain(name);
  });
});
