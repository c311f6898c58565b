import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FINAL_STATUSES, KB_FIELDS, SITE_TRANSITIONS, TRANSITIONS } from '../../shared/sources/lifecycle.js';
import { LUA_DIR, SCRIPTS, declaredLifecycle, loadScript } from '../../shared/store/commands.js';
import { lifecycleLua } from '../../shared/store/lifecycle-lua.js';
import { takesRest, type ReplySpec } from '../../shared/store/scripts/script.js';

const read = (file: string): string => readFileSync(`${LUA_DIR}${file}.lua`, 'utf8');
const headerOf = (lua: string): string => /^--\[\[([\s\S]*?)\]\]/.exec(lua)?.[1] ?? '';
const bodyOf = (lua: string): string => lua.replace(/^--\[\[[\s\S]*?\]\]/, '');
/** A script's code with its includes from `lua/includes/` (a move made in an include is the script's), without the generated lifecycle include. */
const ownCode = (file: string): string => loadScript(file).replace(lifecycleLua(declaredLifecycle(file), file), '');

/** Every command with its file and number of KEYS. */
const ALL = SCRIPTS.map((s) => [s.name, { file: s.file, keys: s.keys.length }] as const);

/** The replies a header declares: `{'tag', a, ...rest}` to `{ tag: ['a', '...rest'] }`. */
function declaredReplies(header: string): Record<string, string[]> {
  const output = header.slice(header.indexOf('Output:'));
  const out: Record<string, string[]> = {};
  for (const m of output.matchAll(/\{'(\w+)'((?:,\s*(?:\.\.\.)?\w+)*)\}/g)) {
    out[m[1]!] = m[2]!.split(',').map((f) => f.trim()).filter(Boolean);
  }
  // `{<final status>}`: one reply per final status, as the lifecycle declares them.
  if (output.includes('{<final status>}')) for (const s of FINAL_STATUSES) out[s] = [];
  return out;
}

/** The same shape from the TypeScript declaration. */
function typedReplies(replies: ReplySpec): Record<string, string[]> {
  return Object.fromEntries(Object.entries(replies).map(([tag, fields]) => [tag, Object.entries(fields).map(([f, how]) => (takesRest(how) ? `...${f}` : f))]));
}

/** The scripts that move sources, with the family each is declared with. */
const SOURCE_MOVERS = SCRIPTS.flatMap((s) => (declaredLifecycle(s.file).sources ? [[s.file, declaredLifecycle(s.file).sources!] as const] : []));

describe('Lua commands', () => {
  it('declares every Lua file under lua/ as a command', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));
    expect(SCRIPTS.map((s) => s.file).sort()).toEqual(files.sort());
  });

  it.each(ALL)('%s declares in its header exactly the KEYS it is registered with', (_name, command) => {
    const lua = read(command.file);
    const header = headerOf(lua);
    expect(header, 'a header comment').not.toBe('');
    expect(header).toMatch(/Output:/);
    const declared = [...header.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(Math.max(...declared)).toBe(command.keys);
    const used = [...bodyOf(lua).matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(used.every((k) => k <= command.keys)).toBe(true);
  });

  it.each(ALL)('%s returns a table, never a string to parse', (_name, command) => {
    const body = bodyOf(read(command.file));
    const returns = [...body.matchAll(/^\s*(?:if .* then )?return (.+?)(?: end)?$/gm)].map((m) => m[1]!);
    expect(returns.length).toBeGreaterThan(0);
    // A reply built up in a local is a table made where that local is declared.
    const table = (r: string): boolean => r.startsWith('{') || (/^\w+$/.test(r) && new RegExp(`^local ${r} = \\{`, 'm').test(body));
    for (const r of returns) expect(table(r), r).toBe(true);
  });

  it.each(SCRIPTS.map((s) => [s.name, s] as const))('%s declares in its header the replies its TypeScript type reads', (_name, script) => {
    expect(declaredReplies(headerOf(read(script.file)))).toEqual(typedReplies(script.replies));
  });

  it.each(SCRIPTS.map((s) => [s.name, s] as const))('%s takes its arguments as one JSON payload in ARGV[1]', (_name, script) => {
    const lua = read(script.file);
    expect([...headerOf(lua).matchAll(/ARGV\[(\d+)\]/g)].map((m) => m[1])).toEqual(['1']);
    expect(headerOf(lua)).toMatch(/ARGV\[1\] JSON/);
    expect(bodyOf(lua)).toContain('cjson.decode(ARGV[1])');
    expect([...bodyOf(lua).matchAll(/ARGV\[(\d+)\]/g)].every((m) => m[1] === '1')).toBe(true);
  });
});

describe('the lifecycle in the Lua scripts', () => {
  const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));

  it.each(files)('%s writes no status counter, no status, no site state and no knowledge-base bookkeeping by hand', (file) => {
    const body = bodyOf(read(file));
    expect(body).not.toMatch(/'n:/);
    expect(body).not.toMatch(/HSET'[^)]*'status'/);
    expect(body).not.toMatch(/'HSET',[^)]*'status',/);
    expect(body).not.toMatch(/'HSET',[^)]*'state',/);
    const { updatedAt, ...own } = KB_FIELDS;
    for (const field of Object.values(own)) expect(body).not.toContain(`'${field}'`);
    // Records have their own updatedAt; the knowledge base's moves with its revision.
    expect(body).not.toMatch(new RegExp(`'HSET', (meta|KEYS\\[1\\]), '${updatedAt}'`));
  });

  it('declares a family for every script that moves a source or a site', () => {
    for (const script of SCRIPTS) {
      const body = ownCode(script.file);
      const declared = declaredLifecycle(script.file);
      expect(/moveStatus\(/.test(body), `${script.file} moves sources`).toBe(declared.sources !== undefined);
      expect(/moveSite\(/.test(body), `${script.file} moves sites`).toBe(declared.sites !== undefined);
    }
  });

  it.each(SOURCE_MOVERS)('%s makes only the moves declared for %s', (file, family) => {
    const body = ownCode(file);
    const calls = [...body.matchAll(/moveStatus\([^,]+,\s*[^,]+,\s*([^,]+),\s*([^)]+)\)/g)].map((m) => [m[1]!.trim(), m[2]!.trim()] as const);
    expect(calls.length, 'the script moves a source through moveStatus').toBeGreaterThan(0);
    const declared: readonly (readonly [string, string])[] = TRANSITIONS[family];
    const literal = (v: string): string | undefined => (v === 'nil' ? 'absent' : /^'(\w+)'$/.exec(v)?.[1]);
    for (const [from, to] of calls) {
      const f = literal(from);
      const t = literal(to);
      expect(declared.some(([df, dt]) => (f === undefined || df === f) && (t === undefined || dt === t)), `${from} -> ${to}`).toBe(true);
    }
  });

  it('generates the lifecycle include with every declared move and the move, touch and settle helpers', () => {
    const lua = lifecycleLua();
    for (const moves of Object.values(TRANSITIONS)) for (const [f, t] of moves) expect(lua).toContain(`['${f}>${t}'] = true`);
    for (const moves of Object.values(SITE_TRANSITIONS)) for (const [f, t] of moves) expect(lua).toContain(`['${f}>${t}'] = true`);
    for (const helper of ['moveStatus', 'moveSite', 'touchKb', 'settleIfIdle']) expect(lua).toContain(`local function ${helper}(`);
  });

  it("generates each script's own moves only, from its declared families", () => {
    const own = (lua: string, name: string): string => new RegExp(`local ${name} = (.*)`).exec(lua)?.[1] ?? '';
    const deleteSite = loadScript('deleteSite');
    expect(own(deleteSite, 'OWN_MOVE')).toContain("['ready>absent'] = true");
    expect(own(deleteSite, 'OWN_MOVE')).not.toContain("'pending>ready'");
    expect(own(deleteSite, 'OWN_SITE_MOVE')).toContain("['discovering>absent'] = true");
    expect(own(loadScript('finishSite'), 'OWN_MOVE')).toBe('{}');
    expect(own(loadScript('finishSite'), 'OWN_SITE_MOVE')).toBe("{ ['discovering>done'] = true, ['discovering>failed'] = true }");
  });

  it('expands each include once per script, the lifecycle before the guard that reads it', () => {
    const lua = loadScript('finishSource');
    expect(lua.match(/local function moveStatus\(/g)).toHaveLength(1);
    expect(lua.indexOf('local FINAL_STATUS')).toBeLessThan(lua.indexOf('local function checkRun('));
    expect(lua).not.toMatch(/--- @include/);
  });
});
