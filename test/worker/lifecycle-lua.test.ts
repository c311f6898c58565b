import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCounts, type ScriptLifecycle } from '../../shared/sources/lifecycle.js';
import { loadScript } from '../../shared/store/commands.js';
import { lifecycleLua } from '../../shared/store/lifecycle-lua.js';
import { deleteSiteScript, finishSiteScript, restartSiteScript } from '../../shared/store/scripts/site-scripts.js';
import { scriptArgs } from '../../shared/store/scripts/script.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const arg = (v: string): string => `ARGV[${v}] ~= '' and ARGV[${v}] or nil`;

/** Runs one moveStatus call of the include generated for `lifecycle` on a throwaway knowledge base. */
async function move(kbId: string, from: string, to: string, lifecycle: ScriptLifecycle): Promise<void> {
  const lua = `${lifecycleLua(lifecycle, 'test')}\nmoveStatus(KEYS[1], KEYS[2], ${arg('1')}, ${arg('2')})\nreturn {'ok'}`;
  await h.redis.eval(lua, 2, h.store.keys.kb(kbId), h.store.keys.source(kbId, 'src'), from, to);
}

/** Runs one moveSite call, then touchKb, of the include generated for `lifecycle`. */
async function moveSite(kbId: string, from: string, to: string, lifecycle: ScriptLifecycle): Promise<number> {
  const lua = `${lifecycleLua(lifecycle, 'test')}\nmoveSite(KEYS[1], KEYS[2], ${arg('1')}, ${arg('2')})\nreturn touchKb(KEYS[1], 'now')`;
  return Number(await h.redis.eval(lua, 2, h.store.keys.kb(kbId), h.store.keys.site(kbId, 'site'), from, to));
}

/** A knowledge base of workspace `ws` with one site of that state, written by hand. */
async function kbWithSite(kbId: string, state: string): Promise<void> {
  await h.redis.hset(h.store.keys.kb(kbId), { kbId, workspaceId: 'ws', sitesDiscovering: state === 'discovering' ? 1 : 0, rev: 3 });
  await h.redis.hset(h.store.keys.site(kbId, 'site'), { siteId: 'site', url: 'http://127.0.0.1/', state, run: 1 });
  await h.redis.rpush(h.store.keys.sites(kbId), 'site');
}

/** Runs a script of the store as it would be loaded with `lifecycle` for its families. */
async function runAs<In>(def: { file: string; keys: readonly string[] }, lifecycle: ScriptLifecycle | undefined, input: In): Promise<unknown> {
  const args = scriptArgs(def as Parameters<typeof scriptArgs<In, string>>[0], input, h.store.keys);
  return h.redis.eval(loadScript(def.file, lifecycle), def.keys.length, ...args);
}

describe('the generated lifecycle helpers', () => {
  it('moves the counters and the status together for a move of the family', async () => {
    await move('kb_lifecycle_ok', '', 'pending', { sources: 'commit' });
    await move('kb_lifecycle_ok', 'pending', 'processing', { sources: 'start' });
    await move('kb_lifecycle_ok', 'processing', 'ready', { sources: 'finish' });
    expect(readCounts(await h.redis.hgetall(h.store.keys.kb('kb_lifecycle_ok')))).toEqual({ pending: 0, processing: 0, ready: 1, failed: 0 });
    expect(await h.redis.hget(h.store.keys.source('kb_lifecycle_ok', 'src'), 'status')).toBe('ready');
  });

  it('refuses a move the lifecycle does not declare, writing nothing', async () => {
    await expect(move('kb_lifecycle_bad', 'ready', 'processing', { sources: 'start' })).rejects.toThrow(/undeclared_move: undeclared source move ready -> processing/);
    expect(await h.redis.exists(h.store.keys.kb('kb_lifecycle_bad'), h.store.keys.source('kb_lifecycle_bad', 'src'))).toBe(0);
  });

  it("refuses a declared move of another family than the script's, writing nothing", async () => {
    await expect(move('kb_lifecycle_foreign', 'pending', 'processing', { sources: 'finish' })).rejects.toThrow(
      /foreign_move: test \(source family finish\) may not make the source move pending -> processing/,
    );
    await expect(move('kb_lifecycle_foreign', '', 'pending', {})).rejects.toThrow(/foreign_move/);
    expect(await h.redis.exists(h.store.keys.kb('kb_lifecycle_foreign'), h.store.keys.source('kb_lifecycle_foreign', 'src'))).toBe(0);
  });

  it("moves a site and keeps its knowledge base's sites discovering, never below zero, with a new revision each time", async () => {
    const meta = h.store.keys.kb('kb_lifecycle_site');
    expect(await moveSite('kb_lifecycle_site', '', 'discovering', { sites: 'commit' })).toBe(1);
    expect(await h.redis.hmget(meta, 'sitesDiscovering', 'updatedAt')).toEqual(['1', 'now']);
    expect(await moveSite('kb_lifecycle_site', 'discovering', 'done', { sites: 'finish' })).toBe(2);
    expect(await h.redis.hget(h.store.keys.site('kb_lifecycle_site', 'site'), 'state')).toBe('done');
    await moveSite('kb_lifecycle_site', 'done', 'discovering', { sites: 'restart' });
    await h.redis.hset(meta, 'sitesDiscovering', 0); // as a torn write could leave it
    await moveSite('kb_lifecycle_site', 'discovering', '', { sites: 'delete' });
    expect(await h.redis.hget(meta, 'sitesDiscovering')).toBe('0');
    await expect(moveSite('kb_lifecycle_site', 'done', 'failed', { sites: 'finish' })).rejects.toThrow(/undeclared_move: undeclared site move done -> failed/);
    await expect(moveSite('kb_lifecycle_site', 'done', 'discovering', { sites: 'finish' })).rejects.toThrow(/foreign_move/);
  });
});

describe('the site scripts, checked against their families at run time', () => {
  const target = (kbId: string) => ({ workspaceId: 'ws', kbId, siteId: 'site', now: '2026-01-01T00:00:00.000Z' });

  it('deletes a discovering site under its own families', async () => {
    await kbWithSite('kb_site_del_ok', 'discovering');
    expect(await runAs(deleteSiteScript, undefined, target('kb_site_del_ok'))).toEqual(['ok', 0, '', '', 1]);
    expect(await h.redis.hmget(h.store.keys.kb('kb_site_del_ok'), 'sitesDiscovering', 'rev')).toEqual(['0', '4']);
    expect(await h.redis.exists(h.store.keys.site('kb_site_del_ok', 'site'))).toBe(0);
  });

  it.each([
    ['deleteSite', deleteSiteScript, 'discovering', { sources: 'delete' }, target('kb_site_foreign_deleteSite')],
    ['restartSite', restartSiteScript, 'done', { sites: 'finish' }, target('kb_site_foreign_restartSite')],
    [
      'finishSite',
      finishSiteScript,
      'discovering',
      { sites: 'restart' },
      { kbId: 'kb_site_foreign_finishSite', siteId: 'site', run: 1, now: 'now', state: 'done', fields: {}, event: { type: 'site.discovered', key: 'k', data: '{}' } },
    ],
  ] as const)('%s, loaded with another family, errors with foreign_move and changes nothing', async (_name, def, state, lifecycle, input) => {
    await kbWithSite(input.kbId, state);
    const meta = await h.redis.hgetall(h.store.keys.kb(input.kbId));
    const site = await h.redis.hgetall(h.store.keys.site(input.kbId, 'site'));
    await expect(runAs(def, lifecycle, input)).rejects.toThrow(/foreign_move/);
    expect(await h.redis.hgetall(h.store.keys.kb(input.kbId))).toEqual(meta);
    expect(await h.redis.hgetall(h.store.keys.site(input.kbId, 'site'))).toEqual(site);
  });
});
