import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, LUA_DIR } from '../../shared/store/commands.js';

describe('Lua commands', () => {
  it.each(Object.entries(COMMANDS))('%s declares in its header exactly the KEYS it is registered with', (_name, command) => {
    const lua = readFileSync(`${LUA_DIR}${command.file}.lua`, 'utf8');
    const header = /^--\[\[([\s\S]*?)\]\]/.exec(lua)?.[1] ?? '';
    expect(header, 'a header comment').not.toBe('');
    expect(header).toMatch(/Output:/);
    const declared = [...header.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(Math.max(...declared)).toBe(command.keys);
    const used = [...lua.slice(header.length).matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(used.every((k) => k <= command.keys)).toBe(true);
  });

  it.each(Object.entries(COMMANDS))('%s returns a table, never a string to parse', (_name, command) => {
    const body = readFileSync(`${LUA_DIR}${command.file}.lua`, 'utf8').replace(/^--\[\[[\s\S]*?\]\]/, '');
    const returns = [...body.matchAll(/^\s*(?:if .* then )?return (.+?)(?: end)?$/gm)].map((m) => m[1]!);
    expect(returns.length).toBeGreaterThan(0);
    for (const r of returns) expect(r.startsWith('{'), r).toBe(true);
  });
});
