import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/runtime/config.js';
import { configurationTable } from '../helpers/doc-tables.js';

/** The variables loadConfig fills in when nothing is set, with their defaults as the environment would spell them. */
function codeDefaults(): Map<string, string> {
  const config = loadConfig({}) as unknown as Record<string, unknown>;
  // Upper-case keys are the environment's; redisUrl and the like are derived.
  return new Map(Object.entries(config).filter(([k]) => /^[A-Z][A-Z0-9_]*$/.test(k)).map(([k, v]) => [k, String(v)]));
}

/**
 * Whether loadConfig knows a variable that has no default: set to '1', it is
 * either kept or refused by name. An unknown one is dropped without a word.
 */
function knownWithoutDefault(name: string): boolean {
  try {
    return (loadConfig({ [name]: '1' }) as unknown as Record<string, unknown>)[name] !== undefined;
  } catch (err) {
    return err instanceof ConfigError && err.message.includes(name);
  }
}

describe('docs/configuration.md', () => {
  it('lists every variable the code gives a default, with that default', () => {
    const table = configurationTable();
    const defaults = codeDefaults();
    expect(defaults.size).toBeGreaterThan(30);
    for (const [name, value] of defaults) {
      expect([...table.keys()], `${name} is in docs/configuration.md`).toContain(name);
      expect(table.get(name), `documented default of ${name}`).toBe(value);
    }
  });

  it('lists only variables the code reads, with no default where the code has none', () => {
    const defaults = codeDefaults();
    for (const [name, documented] of configurationTable()) {
      if (defaults.has(name)) continue;
      expect(knownWithoutDefault(name), `loadConfig knows ${name}`).toBe(true);
      expect(documented, `${name} has no default in the code, so none in backticks`).toBeUndefined();
    }
  });
});
