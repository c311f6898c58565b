import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { importCatalog, validateCatalogFile, type RuleLookup } from '../../bin/catalog-import.js';
import type { QaRule } from '../../shared/schemas/catalog.js';
import type { CatalogImport, CatalogImportReply } from '../../shared/store/catalog-store.js';

const rule = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  qaRuleId: 'r1',
  ruleName: 'Greets the caller',
  ruleDescription: 'The agent greets the caller by name',
  agents: [{ name: 'Front desk', agentId: 'a1', status: 'Live' }],
  evaluationCriteria: 'true when the caller is greeted',
  expectedValue: true,
  ...over,
});
const issue = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  qaIssueId: 'q1',
  qaRuleId: 'r1',
  agentId: 'a1',
  callId: 'c1',
  channel: 'voice',
  result: 'Fail',
  remarks: 'no greeting',
  ...over,
});
const agent = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ agentId: 'a1', agentName: 'Front desk', ...over });
const file = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  workspaceId: 'ws1',
  agents: [agent()],
  qaRules: [rule()],
  qaIssues: [issue()],
  ...over,
});

const nothingStored: RuleLookup = async () => null;
const storedRule = (workspaceId: string, over: Partial<QaRule> = {}): RuleLookup => {
  const value = { ...(rule() as QaRule), workspaceId, ruleName: 'stored version', ...over };
  return async (id) => (id === value.qaRuleId ? { workspaceId, value } : null);
};

async function errorsOf(json: unknown, lookup: RuleLookup = nothingStored): Promise<string[]> {
  const result = await validateCatalogFile(json, lookup);
  if (result.ok) throw new Error('expected the file to be invalid');
  return result.errors;
}
async function dataOf(json: unknown, lookup: RuleLookup = nothingStored): Promise<CatalogImport> {
  const result = await validateCatalogFile(json, lookup);
  if (!result.ok) throw new Error(`expected a valid file, got:\n${result.errors.join('\n')}`);
  return result.data;
}

describe('validateCatalogFile', () => {
  it('accepts a file with only workspaceId, the lists defaulting to empty', async () => {
    expect(await dataOf({ workspaceId: 'ws1' })).toEqual({ workspaceId: 'ws1', agents: [], qaRules: [], qaIssues: [] });
  });

  it('rejects a file that is not an object, and unknown top-level keys', async () => {
    expect((await errorsOf([]))[0]).toMatch(/^\(file\): expected an object/);
    expect(await errorsOf(file({ extra: 1 }))).toEqual(['extra: unknown field']);
  });

  it('rejects a missing or malformed workspaceId', async () => {
    expect(await errorsOf({ agents: [] })).toContain('workspaceId: required, expected string');
    expect((await errorsOf(file({ workspaceId: 'ws:1' })))[0]).toMatch(/^workspaceId: may contain only/);
  });

  it('fills in the file workspaceId for items that leave it out', async () => {
    const data = await dataOf(file());
    expect(data.qaRules[0]?.workspaceId).toBe('ws1');
    expect(data.qaIssues[0]?.workspaceId).toBe('ws1');
    expect(data.qaIssues[0]?.qaRuleSnapshot.workspaceId).toBe('ws1');
  });

  it('accepts items that repeat the file workspaceId and stores agents without it', async () => {
    const data = await dataOf(file({ agents: [agent({ workspaceId: 'ws1' })], qaRules: [rule({ workspaceId: 'ws1' })] }));
    expect(data.agents[0]).toEqual(agent());
  });

  it('rejects items whose workspaceId differs from the file', async () => {
    const errors = await errorsOf(
      file({ agents: [agent({ workspaceId: 'ws2' })], qaRules: [rule({ workspaceId: 'ws2' })], qaIssues: [issue({ workspaceId: 'ws2' })] }),
    );
    expect(errors).toEqual([
      'agents[0].workspaceId: must be the file\'s workspaceId "ws1", got "ws2"',
      'qaRules[0].workspaceId: must be the file\'s workspaceId "ws1", got "ws2"',
      'qaIssues[0].workspaceId: must be the file\'s workspaceId "ws1", got "ws2"',
    ]);
  });

  it('points at the exact field of a type error', async () => {
    const bad = agent({ agentSettings: { llmTemperature: 'hot' } });
    const errors = await errorsOf(file({ agents: [agent(), agent({ agentId: 'a2' }), { ...bad, agentId: 'a3' }] }));
    expect(errors).toEqual(['agents[2].agentSettings.llmTemperature: expected number, received string']);
  });

  it('points inside a voice_transfer_call tool and names unknown fields', async () => {
    const tool = { type: 'voice_transfer_call', transferSettings: { ringingDuration: 'long' }, colour: 'red' };
    const errors = await errorsOf(file({ agents: [agent({ tools: [tool] })] }));
    expect(errors).toEqual(['agents[0].tools[0].transferSettings.ringingDuration: expected number, received string', 'agents[0].tools[0].colour: unknown field']);
  });

  it('checks the enums channel, result and agent status', async () => {
    const errors = await errorsOf(
      file({ qaRules: [rule({ agents: [{ name: 'x', agentId: 'a1', status: 'Paused' }] })], qaIssues: [issue({ channel: 'sms', result: 'Maybe' })] }),
    );
    expect(errors).toEqual([
      'qaRules[0].agents[0].status: expected one of "Live"|"Testing"|"Disabled"',
      'qaIssues[0].channel: expected one of "chat"|"voice"',
      'qaIssues[0].result: expected one of "Success"|"Fail"',
    ]);
  });

  it.each([
    ['agents', 'agentId', agent()],
    ['qaRules', 'qaRuleId', rule()],
    ['qaIssues', 'qaIssueId', issue()],
  ])('rejects duplicate ids among %s', async (list, field, item) => {
    const errors = await errorsOf(file({ [list]: [item, { ...item }] }));
    expect(errors).toEqual([`${list}[1].${field}: duplicate id "${String(item[field])}", also at ${list}[0]`]);
  });

  it('takes a given qaRuleSnapshot over the file rule and the stored one', async () => {
    const snapshot = rule({ ruleName: 'as it was' });
    const data = await dataOf(file({ qaIssues: [issue({ qaRuleSnapshot: snapshot })] }), storedRule('ws1'));
    expect(data.qaIssues[0]?.qaRuleSnapshot).toEqual({ ...snapshot, workspaceId: 'ws1' });
  });

  it('takes the snapshot from the rule in the same file over the stored one', async () => {
    const lookup = vi.fn(storedRule('ws1'));
    const data = await dataOf(file({ qaRules: [rule({ ruleName: 'new version' })] }), lookup);
    expect(data.qaIssues[0]?.qaRuleSnapshot.ruleName).toBe('new version');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('takes the snapshot from the stored rule of the same workspace', async () => {
    const data = await dataOf(file({ qaRules: [] }), storedRule('ws1'));
    expect(data.qaIssues[0]?.qaRuleSnapshot).toMatchObject({ qaRuleId: 'r1', ruleName: 'stored version', workspaceId: 'ws1' });
  });

  it('rejects an issue whose stored rule belongs to another workspace', async () => {
    expect(await errorsOf(file({ qaRules: [] }), storedRule('ws2'))).toEqual(['qaIssues[0].qaRuleId: QA rule "r1" belongs to another workspace']);
  });

  it('rejects an issue whose rule is found nowhere', async () => {
    const errors = await errorsOf(file({ qaRules: [] }));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^qaIssues\[0\]\.qaRuleId: QA rule "r1" is neither in the file nor stored/);
  });

  it('rejects a given snapshot of another rule or another workspace', async () => {
    expect(await errorsOf(file({ qaIssues: [issue({ qaRuleSnapshot: rule({ qaRuleId: 'r2' }) })] }))).toEqual([
      'qaIssues[0].qaRuleSnapshot.qaRuleId: must be the issue\'s qaRuleId "r1"',
    ]);
    expect(await errorsOf(file({ qaIssues: [issue({ qaRuleSnapshot: rule({ workspaceId: 'ws2' }) })] }))).toEqual([
      'qaIssues[0].qaRuleSnapshot.workspaceId: must be the file\'s workspaceId "ws1", got "ws2"',
    ]);
  });

  it('reports every problem of the file at once', async () => {
    const errors = await errorsOf(
      file({ extra: true, agents: [agent({ agentName: 1 })], qaRules: [rule({ expectedValue: 'yes' })], qaIssues: [issue({ callId: '' })] }),
    );
    expect(errors).toHaveLength(4);
  });

  it('accepts examples/catalog.json on an empty store', async () => {
    const json: unknown = JSON.parse(await readFile(new URL('../../examples/catalog.json', import.meta.url), 'utf8'));
    const data = await dataOf(json);
    expect([data.agents.length, data.qaRules.length, data.qaIssues.length]).toEqual([3, 2, 3]);
    expect(new Set(data.qaIssues.map((q) => q.channel))).toEqual(new Set(['chat', 'voice']));
    expect(new Set(data.qaIssues.map((q) => q.result))).toEqual(new Set(['Success', 'Fail']));
  });
});

describe('importCatalog', () => {
  const fakeStore = (reply: CatalogImportReply) => ({ import: vi.fn(async () => reply), getQaRule: vi.fn(async () => null) });

  it('loads nothing when the file is invalid', async () => {
    const store = fakeStore({ ok: true });
    const result = await importCatalog(store, file({ qaRules: [] }));
    expect(result.ok).toBe(false);
    expect(store.getQaRule).toHaveBeenCalledWith('r1');
    expect(store.import).not.toHaveBeenCalled();
  });

  it('returns the counts of what it loaded', async () => {
    const store = fakeStore({ ok: true });
    expect(await importCatalog(store, file())).toEqual({ ok: true, workspaceId: 'ws1', counts: { agents: 1, qaRules: 1, qaIssues: 1 } });
    expect(store.import).toHaveBeenCalledOnce();
  });

  it('turns an ownership conflict of the store into an error pointing at the item', async () => {
    const result = await importCatalog(fakeStore({ ok: false, conflict: { kind: 'qaRule', id: 'r1' } }), file());
    expect(result).toEqual({ ok: false, errors: ['qaRules[0].qaRuleId: "r1" already belongs to another workspace'] });
  });
});
