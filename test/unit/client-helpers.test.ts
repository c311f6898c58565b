import { describe, expect, it } from 'vitest';
import {
  followChanges,
  KbApiError,
  parseWebhook,
  sourceForm,
  WebhookVerificationError,
  type ChangeEvent,
  type ChangesPage,
  type ChunkListing,
  type FeedPage,
  type FeedReader,
  type SourceFormInput,
} from '../../clients/typescript/src/index.js';
import { signDelivery } from '../../worker/webhooks/sign.js';

type Chunk = Extract<ChangeEvent, { type: 'chunk.upserted' }>['chunk'];
const chunk = (id: string): Chunk => ({ id, documentId: 'doc_1', index: 0, text: id, charStart: 0, charEnd: id.length, tokens: 1, headings: [] });
const upsert = (id: string): ChangeEvent => ({ type: 'chunk.upserted', chunk: chunk(id) });

/**
 * A feed over scripted answers: `listing` pages by `after`, `changes` answers
 * by cursor (a number is a status thrown as KbApiError). It records each read.
 */
function scriptedFeed(listing: Record<string, ChunkListing>, changes: Record<string, ChangesPage | number>): FeedReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async listChunks(after) {
      reads.push(`list ${after ?? '-'}`);
      return listing[after ?? '-']!;
    },
    async changes(after) {
      reads.push(`changes ${after}`);
      const answer = changes[after ?? '-'];
      if (typeof answer === 'number') throw new KbApiError(answer, { error: 'Gone', message: 'cursor expired' } as never, new Headers());
      if (!answer) throw new Error(`no scripted answer for ${after}`);
      return answer;
    },
  };
}

const collect = async (pages: AsyncIterable<FeedPage>): Promise<FeedPage[]> => {
  const out: FeedPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
};

describe('followChanges', () => {
  const listing = {
    '-': { data: [chunk('a'), chunk('b')], nextCursor: 'l1', changesCursor: 'c0' },
    l1: { data: [chunk('c')], nextCursor: null, changesCursor: 'c0-later' },
  };

  it('loads the listing as chunk.upserted with reset on its first page, then follows the feed from the cursor taken before the listing', async () => {
    const feed = scriptedFeed(listing, {
      c0: { data: [upsert('d')], nextCursor: 'c1', hasMore: true },
      c1: { data: [{ type: 'chunk.deleted', chunkId: 'a', documentId: 'doc_1' }], nextCursor: 'c2', hasMore: false },
    });
    const pages = await collect(followChanges(feed, { follow: false }));
    expect(pages.map((p) => [p.reset, p.events.map((e) => (e.type === 'chunk.upserted' ? e.chunk.id : e.type)), p.cursor, p.caughtUp])).toEqual([
      [true, ['a', 'b'], undefined, false],
      [false, ['c'], 'c0', false],
      [false, ['d'], 'c1', false],
      [false, ['chunk.deleted'], 'c2', true],
    ]);
    expect(feed.reads).toEqual(['list -', 'list l1', 'changes c0', 'changes c1']);
  });

  it('loads the listing again with reset after a 410, and keeps no cursor until that load is whole', async () => {
    const feed = scriptedFeed(listing, { old: 410, c0: { data: [], nextCursor: 'c0', hasMore: false } });
    const pages = await collect(followChanges(feed, { after: 'old', follow: false }));
    expect(pages.map((p) => [p.reset, p.cursor])).toEqual([
      [true, undefined],
      [false, 'c0'],
      [false, 'c0'],
    ]);
    expect(feed.reads[0]).toBe('changes old');
  });

  it('ends after knowledge_base.deleted, leaving out anything after it', async () => {
    const feed = scriptedFeed(listing, {
      c5: { data: [upsert('x'), { type: 'knowledge_base.deleted', kbId: 'kb_1' }, upsert('never')], nextCursor: 'c6', hasMore: true },
    });
    const pages = await collect(followChanges(feed, { after: 'c5' }));
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ deleted: true, events: [upsert('x'), { type: 'knowledge_base.deleted', kbId: 'kb_1' }] });
  });

  it('throws an error answer other than 410', async () => {
    const feed = scriptedFeed(listing, { c9: 404 });
    await expect(collect(followChanges(feed, { after: 'c9' }))).rejects.toMatchObject({ name: 'KbApiError', status: 404 });
  });

  it('polls at the end while following, and ends without an error when aborted', async () => {
    const stop = new AbortController();
    const feed = scriptedFeed(listing, { c0: { data: [], nextCursor: 'c0', hasMore: false } });
    const seen: FeedPage[] = [];
    for await (const page of followChanges(feed, { after: 'c0', intervalMs: 5, signal: stop.signal })) {
      seen.push(page);
      if (seen.length === 3) stop.abort();
    }
    expect(seen).toHaveLength(3);
    expect(feed.reads).toEqual(['changes c0', 'changes c0', 'changes c0']);
  });
});

describe('sourceForm', () => {
  it('sends every field under its form name: JSON arrays for texts, URLs and sites, strings for the numbers, one part per file', async () => {
    const form = sourceForm({
      name: 'Docs',
      texts: [{ title: 'T', text: 'x', metadata: { team: 'a' } }],
      urls: ['https://example.com/a', { url: 'https://example.com/b', metadata: { year: 2026 } }],
      sites: [{ url: 'https://example.com/docs/', maxPages: 20, exclude: ['/docs/old/**'] }],
      autoRefreshHours: 24,
      chunkMaxTokens: 256,
      chunkOverlapTokens: 32,
      files: [
        { name: 'a.md', data: new TextEncoder().encode('# A'), type: 'text/markdown' },
        { name: 'b.txt', data: new Blob(['b']) },
      ],
    });
    expect([...form.keys()]).toEqual([
      'knowledge_base_name',
      'knowledge_base_texts',
      'knowledge_base_urls',
      'knowledge_base_sites',
      'auto_refresh_hours',
      'chunk_max_tokens',
      'chunk_overlap_tokens',
      'knowledge_base_files',
      'knowledge_base_files',
    ]);
    expect(JSON.parse(form.get('knowledge_base_sites') as string)).toEqual([{ url: 'https://example.com/docs/', maxPages: 20, exclude: ['/docs/old/**'] }]);
    expect(form.get('chunk_overlap_tokens')).toBe('32');
    const files = form.getAll('knowledge_base_files') as File[];
    expect(files.map((f) => [f.name, f.type])).toEqual([
      ['a.md', 'text/markdown'],
      ['b.txt', ''],
    ]);
    expect(await files[0]!.text()).toBe('# A');
  });

  it('throws on a field it does not know instead of leaving it out', () => {
    const input = { name: 'x', site: [{ url: 'https://example.com/' }] } as unknown as SourceFormInput;
    expect(() => sourceForm(input)).toThrow(/unknown source field "site"; allowed: name, texts, urls, sites/);
  });
});

describe('parseWebhook', () => {
  const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_9', type: 'source.ready', createdAt: '2026-11-28T10:00:00.000Z', data: { kbId: 'kb_1' } });
  const now = 1_800_000_000;

  it('returns the typed event of a delivery that verifies', () => {
    const event = parseWebhook(secret, signDelivery(secret, 'evt_9', now, body), body, { nowSeconds: now });
    expect(event).toMatchObject({ id: 'evt_9', type: 'source.ready', data: { kbId: 'kb_1' } });
  });

  it('throws saying why a delivery does not verify', () => {
    const headers = signDelivery(secret, 'evt_9', now, body);
    expect(() => parseWebhook(secret, headers, body, { nowSeconds: now + 600 })).toThrow(new WebhookVerificationError('webhook-timestamp is more than 300 s from now'));
    expect(() => parseWebhook(secret, headers, body.replace('kb_1', 'kb_2'), { nowSeconds: now })).toThrow(/no v1 signature matches/);
    expect(() => parseWebhook(secret, {}, body)).toThrow(/missing webhook-id/);
  });
});
