/**
 * Every Redis key the store uses, in one place. Keys of one knowledge base share
 * the hash tag `{kb:<id>}` so its multi-key scripts run on Redis Cluster too;
 * API keys share `{keys}` and the admin-loaded catalog shares `{catalog}`.
 * Ids are validated against ID_PATTERN before they get here, so they never
 * contain `{`, `}` or `:`.
 */
export class KeySpace {
  constructor(readonly prefix: string) {}

  kbTag(kbId: string): string {
    return `${this.prefix}:{kb:${kbId}}`;
  }
  kb(kbId: string): string {
    return `${this.kbTag(kbId)}:meta`;
  }
  docs(kbId: string): string {
    return `${this.kbTag(kbId)}:docs`;
  }
  doc(kbId: string, documentId: string): string {
    return `${this.kbTag(kbId)}:doc:${documentId}`;
  }
  text(kbId: string, documentId: string): string {
    return `${this.kbTag(kbId)}:text:${documentId}`;
  }
  blob(kbId: string, documentId: string): string {
    return `${this.kbTag(kbId)}:blob:${documentId}`;
  }
  stage(kbId: string, stageId: string): string {
    return `${this.kbTag(kbId)}:stage:${stageId}`;
  }
  /** Secondary index: a workspace's knowledge bases, scored by creation time. */
  workspaceKbs(workspaceId: string): string {
    return `${this.prefix}:{ws:${workspaceId}}:kbs`;
  }

  apiKeyByHash(hash: string): string {
    return `${this.prefix}:{keys}:hash:${hash}`;
  }
  apiKeyById(keyId: string): string {
    return `${this.prefix}:{keys}:id:${keyId}`;
  }
  workspaceApiKeys(workspaceId: string): string {
    return `${this.prefix}:{keys}:ws:${workspaceId}`;
  }

  agent(agentId: string): string {
    return `${this.prefix}:{catalog}:agent:${agentId}`;
  }
  workspaceAgents(workspaceId: string): string {
    return `${this.prefix}:{catalog}:agents:${workspaceId}`;
  }
  qaRule(qaRuleId: string): string {
    return `${this.prefix}:{catalog}:rule:${qaRuleId}`;
  }
  qaIssue(qaIssueId: string): string {
    return `${this.prefix}:{catalog}:issue:${qaIssueId}`;
  }
  /** Request counter of one API key in one minute window. */
  rateWindow(keyId: string, minute: number): string {
    return `${this.prefix}:{rate:${keyId}}:${minute}`;
  }
  catalogSeq(): string {
    return `${this.prefix}:{catalog}:seq`;
  }
}
