import { describe, expect, it } from 'vitest';
import { KbViewCache, viewStamp } from '../../shared/verbs/kb-view-cache.js';
import { piecesOf, piecesText } from '../../shared/verbs/json-pieces.js';
import { knowledgeBaseJson, knowledgeBaseView } from '../../shared/verbs/knowledge-bases.js';
import { publicSource, type StoredSource } from '../../shared/store/kb-records.js';
import type { Site } from '../../shared/schemas/site.js';

describe('KbViewCache', () => {
  it('answers a body only at the stamp it was kept for', () => {
    const cache = new KbViewCache(100);
    const at = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z' };
    cache.set('kb_a', viewStamp(at, 3), piecesOf(['{"r":3}']));
    expect(piecesText(cache.get('kb_a', viewStamp(at, 3))!)).toBe('{"r":3}');
    expect(cache.get('kb_a', viewStamp(at, 4))).toBeUndefined();
    expect(cache.get('kb_a', viewStamp({ ...at, createdAt: '2026-02-01T00:00:00.000Z' }, 3))).toBeUndefined();
    expect(cache.get('kb_a', viewStamp({ ...at, updatedAt: '2026-01-03T00:00:00.000Z' }, 3))).toBeUndefined();
    expect(cache.has('kb_a')).toBe(true);
  });

  it('drops the least recently used bodies past its bound and keeps its count exact', () => {
    const cache = new KbViewCache(10);
    cache.set('a', 's', piecesOf(['1234']));
    cache.set('b', 's', piecesOf(['1234']));
    expect(piecesText(cache.get('a', 's')!)).toBe('1234');
    cache.set('c', 's', piecesOf(['1234']));
    expect(cache.has('b')).toBe(false);
    expect([cache.has('a'), cache.has('c'), cache.chars]).toEqual([true, true, 8]);
    cache.set('a', 't', piecesOf(['12']));
    expect(cache.chars).toBe(6);
    cache.delete('c');
    expect(cache.chars).toBe(2);
  });

  it('keeps no body larger than its bound, and none at all with a bound of 0', () => {
    const cache = new KbViewCache(3);
    cache.set('a', 's', piecesOf(['12']));
    cache.set('a', 't', piecesOf(['1234']));
    expect([cache.has('a'), cache.chars]).toEqual([false, 0]);
    const off = new KbViewCache(0);
    expect(off.enabled).toBe(false);
  });
});

describe('KbViewCache rows', () => {
  const rows = (n: number) => ({ createdAt: 't', sourceSeq: n, rows: new Map(Array.from({ length: n }, (_, i) => [`s${i}`, { json: Buffer.from('x'.repeat(36)), status: 'ready' as const }])) });

  it('keeps source rows beside a body, counts both against its bound, and drops the least recently used', () => {
    const cache = new KbViewCache(1000);
    cache.setRows('a', rows(5));
    expect(cache.chars).toBe(500);
    cache.set('a', 's', piecesOf(['12345']));
    expect(cache.chars).toBe(505);
    expect(cache.rows('a')?.sourceSeq).toBe(5);
    cache.delete('a');
    expect(cache.has('a')).toBe(false);
    expect(cache.rows('a')?.sourceSeq).toBe(5);
    cache.setRows('b', rows(6));
    expect(cache.rows('a')).toBeUndefined();
    expect(cache.chars).toBe(600);
    cache.setRows('c', rows(11));
    expect(cache.rows('c')).toBeUndefined();
    cache.forget('b');
    expect(cache.chars).toBe(0);
  });
});

describe('knowledgeBaseJson', () => {
  const meta = {
    kbId: 'kb_json',
    workspaceId: 'ws',
    name: 'Rows "quoted"',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-02T00:00:00.000Z',
    sourceCounts: { pending: 1, processing: 0, ready: 2, failed: 0 },
    rev: 7,
    autoRefreshHours: 24,
    sitesDiscovering: 0,
    sourceSeq: 12,
    chunking: { maxTokens: 400, overlapTokens: 40 },
  };
  const defaults = { maxTokens: 512, overlapTokens: 64 };
  const source = (id: string, status: StoredSource['status'], extra: Partial<StoredSource> = {}): StoredSource => ({
    documentId: id,
    type: 'text',
    content: `text of ${id} \u2028 "x"`,
    status,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    run: 1,
    ...extra,
  });
  const rowOf = (s: StoredSource) => ({ json: Buffer.from(JSON.stringify(publicSource(s))), status: s.status, ...(s.chunking !== undefined && { chunking: s.chunking }) });

  it('is the same text as JSON.stringify of the view, with files, rechunking sources and sites', () => {
    const sources = [source('a', 'ready', { chunking: '512/64' }), source('b', 'ready', { chunking: '400/40', title: 'B' }), source('c', 'pending')];
    const sites = [{ siteId: 'site_1', url: 'https://example.com/', state: 'done' }] as unknown as Site[];
    for (const s of [[], sites]) {
      expect(piecesText(knowledgeBaseJson(meta, sources.map(rowOf), defaults, s))).toBe(JSON.stringify(knowledgeBaseView(meta, sources, defaults, s)));
    }
    expect(JSON.parse(piecesText(knowledgeBaseJson(meta, sources.map(rowOf), defaults))).rechunkingSources).toBe(1);
  });

  it('is the same text in pieces of any size, each piece valid UTF-8 on its own', () => {
    const sources = Array.from({ length: 40 }, (_, i) => source(`s${i}`, 'ready', { title: `t\u00e9\u{1F600}${i}` }));
    const whole = JSON.stringify(knowledgeBaseView(meta, sources, defaults));
    const body = knowledgeBaseJson(meta, sources.map(rowOf), defaults);
    expect(body.pieces.length).toBe(1);
    expect(body.bytes).toBe(Buffer.byteLength(whole));
    const small = piecesOf([whole.slice(0, 1000), whole.slice(1000, 1500), whole.slice(1500)], 100);
    expect(small.pieces.length).toBe(3);
    expect(small.pieces.map((p) => p.toString('utf8')).join('')).toBe(whole);
  });

  it('is the same text for a knowledge base without sources', () => {
    expect(piecesText(knowledgeBaseJson(meta, [], defaults))).toBe(JSON.stringify(knowledgeBaseView(meta, [], defaults)));
  });
});
