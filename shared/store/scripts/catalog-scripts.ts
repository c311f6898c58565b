import { defineScript } from './script.js';

/** One agent, QA rule or QA issue of an import, as JSON. */
export interface CatalogItem {
  kind: 'agent' | 'qaRule' | 'qaIssue';
  id: string;
  json: string;
}

/** Loads agents, QA rules and QA issues of one workspace, all or nothing. */
export const importCatalogScript = defineScript({
  name: 'catalogImport',
  file: 'importCatalog',
  keys: ['seq', 'agents'],
  build: (i: { workspaceId: string; items: CatalogItem[] }, k) => ({
    keys: { seq: k.catalogSeq(), agents: k.workspaceAgents(i.workspaceId) },
    args: { workspaceId: i.workspaceId, agentPrefix: k.agent(''), rulePrefix: k.qaRule(''), issuePrefix: k.qaIssue(''), items: i.items },
  }),
  replies: { ok: {}, conflict: { itemKind: 'str', id: 'str' } },
});
