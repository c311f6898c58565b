import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, QaIssue, QaRule } from '../../shared/schemas/catalog.js';
import { createHarness, type Harness } from '../helpers/app-harness.js';
import { call, expectErrorBody } from './support.js';

let h: Harness;
let key: string;
let otherKey: string;
const WS = 'ws-catalog';
const OTHER_WS = 'ws-catalog-other';

/** 45 agents whose creation order differs from the order of their ids. */
const agents: Agent[] = Array.from({ length: 45 }, (_, i) => ({
  agentId: `ag_${String((i * 17) % 45).padStart(2, '0')}`,
  agentName: `Agent ${i}`,
  instructions: `You are agent number ${i}.`,
}));
const richAgent: Agent = {
  agentId: 'ag_rich',
  agentName: 'Rich',
  instructions: 'Help callers book appointments.',
  welcomeMessageType: 'static',
  welcomeMessage: 'Hello!',
  agentSettings: {
    language: 'en-US',
    aiStartsConversation: true,
    llmTemperature: 0.2,
    agentTimezone: 'Europe/Berlin',
    postConversationAnalysis: [{ insightName: 'Mood', insightInstructions: 'Rate it', dataType: 'string', options: ['good', 'bad'] }],
    webhooks: [{ webhookId: 'wh1', name: 'CRM', url: 'https://crm.example.com/hook', secret: 's3cret', events: ['call.ended'] }],
  },
  tools: [
    {
      type: 'voice_transfer_call',
      toolName: 'transfer',
      transferTo: '+15550100',
      transferSettings: { transferType: 'warm', ringingDuration: 30, customHeaders: { 'X-Team': 'sales' } },
    },
  ],
};
const otherAgents: Agent[] = [1, 2, 3].map((i) => ({ agentId: `other_${i}`, agentName: `Other ${i}` }));

const rule: QaRule = {
  qaRuleId: 'rule_greeting',
  workspaceId: WS,
  ruleName: 'Greets the caller',
  ruleDescription: 'The agent greets the caller by name',
  agents: [{ name: 'Agent 0', agentId: 'ag_00', status: 'Live' }],
  evaluationCriteria: 'Did the agent say hello?',
  expectedValue: true,
};
const issue: QaIssue = {
  qaIssueId: 'qa_1',
  qaRuleId: rule.qaRuleId,
  workspaceId: WS,
  agentId: 'ag_00',
  callId: 'call_42',
  channel: 'voice',
  result: 'Fail',
  remarks: 'No greeting at all',
  qaRuleSnapshot: rule,
};
const otherRule: QaRule = { ...rule, qaRuleId: 'rule_other', workspaceId: OTHER_WS, agents: [] };
const otherIssue: QaIssue = { ...issue, qaIssueId: 'qa_other', qaRuleId: 'rule_other', workspaceId: OTHER_WS, qaRuleSnapshot: otherRule };

beforeAll(async () => {
  h = await createHarness();
  key = await h.key(WS);
  otherKey = await h.key(OTHER_WS);
  // Two imports: creation order must carry across them.
  expect(await h.store.catalog.import({ workspaceId: WS, agents: agents.slice(0, 30), qaRules: [rule], qaIssues: [issue] })).toEqual({ ok: true });
  expect(await h.store.catalog.import({ workspaceId: WS, agents: agents.slice(30), qaRules: [], qaIssues: [] })).toEqual({ ok: true });
  expect(
    await h.store.catalog.import({ workspaceId: OTHER_WS, agents: otherAgents, qaRules: [otherRule], qaIssues: [otherIssue] }),
  ).toEqual({ ok: true });
});
afterAll(async () => h.close());

const list = (query: string, k = key) => call(h.app, 'GET', `/v1/agents${query}`, { key: k });
const ids = (body: { data: { agentId: string }[] }) => body.data.map((a) => a.agentId);
const idsAt = (from: number, to: number) => agents.slice(from, to).map((a) => a.agentId);

describe('GET /v1/agents', () => {
  it('returns the first page with the defaults page 0 and size 20', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect({ ...res.body, data: undefined }).toEqual({
      data: undefined,
      page: 0,
      size: 20,
      totalCount: 45,
      totalPages: 3,
      hasNext: true,
      hasPrevious: false,
    });
    expect(ids(res.body)).toEqual(idsAt(0, 20));
  });

  it('returns a middle page in creation order', async () => {
    const res = await list('?page=1&size=20');
    expect(res.body).toMatchObject({ page: 1, size: 20, totalCount: 45, totalPages: 3, hasNext: true, hasPrevious: true });
    expect(ids(res.body)).toEqual(idsAt(20, 40));
  });

  it('returns a short last page without hasNext', async () => {
    const res = await list('?page=2&size=20');
    expect(res.body).toMatchObject({ page: 2, size: 20, totalCount: 45, totalPages: 3, hasNext: false, hasPrevious: true });
    expect(ids(res.body)).toEqual(idsAt(40, 45));
  });

  it('returns 200 with empty data for a page past the end', async () => {
    const res = await list('?page=3&size=20');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], page: 3, size: 20, totalCount: 45, totalPages: 3, hasNext: false, hasPrevious: true });
  });

  it('returns 200 with empty data for a page far past the end', async () => {
    const res = await list('?page=1000000&size=100');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], totalCount: 45, totalPages: 1, hasNext: false, hasPrevious: true });
  });

  it.each([
    [45, 1],
    [44, 2],
    [15, 3],
    [7, 7],
    [1, 45],
    [100, 1],
  ])('computes totalPages = ceil(45 / %i) = %i', async (size, pages) => {
    const res = await list(`?size=${size}&page=${pages - 1}`);
    expect(res.body).toMatchObject({ size, totalPages: pages, hasNext: false, hasPrevious: pages > 1 });
    expect(ids(res.body)).toEqual(idsAt((pages - 1) * size, 45));
  });

  it('returns every agent exactly once across all pages', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 5; page++) seen.push(...ids((await list(`?page=${page}&size=10`)).body));
    expect(seen).toEqual(idsAt(0, 45));
  });

  it('lists only the agents of the key workspace', async () => {
    const res = await list('', otherKey);
    expect(res.body).toMatchObject({ totalCount: 3, totalPages: 1, hasNext: false });
    expect(ids(res.body)).toEqual(['other_1', 'other_2', 'other_3']);
  });

  it('keeps the creation order when an agent is imported again, and shows its new fields', async () => {
    const renamed = { ...agents[0]!, agentName: 'Renamed first agent' };
    expect(await h.store.catalog.import({ workspaceId: WS, agents: [renamed], qaRules: [], qaIssues: [] })).toEqual({ ok: true });
    const res = await list('?size=3');
    expect(ids(res.body)).toEqual(idsAt(0, 3));
    expect(res.body.data[0].agentName).toBe('Renamed first agent');
    expect(res.body.totalCount).toBe(45);
  });

  it('returns an agent with its settings and tools as imported', async () => {
    const ws = 'ws-catalog-rich';
    expect(await h.store.catalog.import({ workspaceId: ws, agents: [richAgent], qaRules: [], qaIssues: [] })).toEqual({ ok: true });
    const res = await list('', await h.key(ws));
    expect(res.body.data).toEqual([richAgent]);
  });

  it('returns an empty first page for a workspace without agents', async () => {
    const res = await list('', await h.key('ws-catalog-empty'));
    expect(res.body).toEqual({ data: [], page: 0, size: 20, totalCount: 0, totalPages: 0, hasNext: false, hasPrevious: false });
  });

  it.each([
    ['size=101', 'size'],
    ['size=0', 'size'],
    ['size=-5', 'size'],
    ['page=-1', 'page'],
    ['page=0.5', 'page'],
    ['size=ten', 'size'],
    ['page=', 'page'],
    ['page=1&size=1.0', 'size'],
  ])('returns 400 with validationErrors for %s', async (query, field) => {
    expectErrorBody(await list(`?${query}`), 400, '/v1/agents', { fields: [field] });
  });

  it('names both fields when page and size are both invalid', async () => {
    expectErrorBody(await list('?page=-1&size=0'), 400, '/v1/agents', { fields: ['page', 'size'] });
  });

  it('returns 401 without a key', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/agents'), 401, '/v1/agents');
  });
});

describe('GET /v1/qa-issues/{qaIssueId}', () => {
  it('returns 200 with the issue and its qaRuleSnapshot', async () => {
    const res = await call(h.app, 'GET', '/v1/qa-issues/qa_1', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(issue);
    expect(res.body.qaRuleSnapshot).toEqual(rule);
  });

  it('lets a read-only key read an issue', async () => {
    const res = await call(h.app, 'GET', '/v1/qa-issues/qa_1', { key: await h.key(WS, { readOnly: true }) });
    expect(res.status).toBe(200);
  });

  it('returns 403 for an issue of another workspace', async () => {
    const res = await call(h.app, 'GET', '/v1/qa-issues/qa_other', { key });
    expectErrorBody(res, 403, '/v1/qa-issues');
    expect(res.text).not.toContain('No greeting');
  });

  it('returns 404 for an unknown issue', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/qa-issues/qa_missing', { key }), 404, '/v1/qa-issues');
  });

  it.each([
    ['a colon', 'a:b'],
    ['a star', '*'],
    ['65 characters', 'q'.repeat(65)],
    ['a space', 'qa%201'],
  ])('returns 400 with validationErrors.qaIssueId for an id with %s', async (_label, id) => {
    expectErrorBody(await call(h.app, 'GET', `/v1/qa-issues/${id}`, { key }), 400, '/v1/qa-issues', { fields: ['qaIssueId'] });
  });

  it('returns 401 without a key', async () => {
    expectErrorBody(await call(h.app, 'GET', '/v1/qa-issues/qa_1'), 401, '/v1/qa-issues');
  });
});
