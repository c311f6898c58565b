import { z } from 'zod';
import { agentSchema, qaIssueSchema, qaRuleSchema, type Agent, type QaIssue, type QaRule } from '../shared/schemas/catalog.js';
import { idSchema } from '../shared/schemas/common.js';
import type { CatalogImport, CatalogKind, CatalogStore, Owned } from '../shared/store/catalog-store.js';

/** Outcome of validating a catalog file: the data to load, or one line per problem. */
export type CatalogValidation = { ok: true; data: CatalogImport } | { ok: false; errors: string[] };

/** Outcome of an import: how many of each were loaded, or why nothing was. */
export type CatalogImportResult =
  | { ok: true; workspaceId: string; counts: { agents: number; qaRules: number; qaIssues: number } }
  | { ok: false; errors: string[] };

/** Finds a stored QA rule with its owning workspace, or null. */
export type RuleLookup = (qaRuleId: string) => Promise<Owned<QaRule> | null>;

type Path = readonly PropertyKey[];
type Issue = z.core.$ZodIssue;

const fileSchema = z.strictObject({
  workspaceId: idSchema,
  agents: z.array(z.unknown()).default([]),
  qaRules: z.array(z.unknown()).default([]),
  qaIssues: z.array(z.unknown()).default([]),
});
const issueInputSchema = qaIssueSchema.partial({ qaRuleSnapshot: true });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `agents[2].agentSettings.llmTemperature`; the file itself is `(file)`. */
function pointer(path: Path): string {
  const text = path.reduce<string>((acc, seg) => {
    if (typeof seg === 'number') return `${acc}[${seg}]`;
    return acc ? `${acc}.${String(seg)}` : String(seg);
  }, '');
  return text || '(file)';
}

function issueLines(issues: readonly Issue[], base: Path): string[] {
  return issues.flatMap((issue): string[] => {
    const path = [...base, ...issue.path];
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => `${pointer([...path, k])}: unknown field`);
    if (issue.code === 'invalid_union') {
      const branch = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      if (branch.length > 0) return issueLines(branch, path);
    }
    const message = issue.message
      .replace(/^Invalid (input|option): /, '')
      .replace(/^expected (.+), received undefined$/, 'required, expected $1');
    return [`${pointer(path)}: ${message}`];
  });
}

function parse<T>(schema: z.ZodType<T>, raw: unknown, base: Path, errors: string[]): T | undefined {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  errors.push(...issueLines(result.error.issues, base));
  return undefined;
}

/** Checks an item's own workspaceId against the file's; returns the item without it. */
function withoutWorkspace(raw: unknown, fileWs: string | undefined, base: Path, errors: string[]) {
  if (!isRecord(raw)) return { item: raw, workspaceId: undefined };
  const { workspaceId, ...item } = raw;
  if (workspaceId !== undefined && fileWs !== undefined && workspaceId !== fileWs) {
    errors.push(`${pointer([...base, 'workspaceId'])}: must be the file's workspaceId "${fileWs}", got ${JSON.stringify(workspaceId)}`);
  }
  return { item, workspaceId: workspaceId ?? fileWs };
}

/** The item with the file's workspaceId filled in, for schemas that carry one. */
function owned(raw: unknown, fileWs: string | undefined, base: Path, errors: string[]): unknown {
  const { item, workspaceId } = withoutWorkspace(raw, fileWs, base, errors);
  return isRecord(item) && workspaceId !== undefined ? { ...item, workspaceId } : item;
}

function checkDuplicates(items: unknown[], idField: string, list: string, errors: string[]): void {
  const seen = new Map<unknown, number>();
  items.forEach((raw, i) => {
    const id = isRecord(raw) ? raw[idField] : undefined;
    if (typeof id !== 'string') return;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else errors.push(`${list}[${i}].${idField}: duplicate id "${id}", also at ${list}[${first}]`);
  });
}

function parseAgent(raw: unknown, fileWs: string | undefined, base: Path, errors: string[]): Agent | undefined {
  const { item } = withoutWorkspace(raw, fileWs, base, errors);
  const result = agentSchema.safeParse(item);
  if (result.success) return result.data;
  errors.push(...issueLines(result.error.issues, base));
  return undefined;
}

/**
 * Validates a catalog file without writing anything. Items may leave out
 * `workspaceId` (the file's is used) but may not name another. A QA issue takes its
 * `qaRuleSnapshot` from the file when given, else from the same file's rule with its
 * `qaRuleId`, else from `lookupRule` (same workspace only). Every problem is reported,
 * one line each, prefixed with a pointer such as `qaIssues[0].channel`.
 */
export async function validateCatalogFile(json: unknown, lookupRule: RuleLookup): Promise<CatalogValidation> {
  const errors: string[] = [];
  const top = isRecord(json) ? json : {};
  if (!isRecord(json)) errors.push('(file): expected an object with workspaceId, agents, qaRules and qaIssues');
  else parse(fileSchema, json, [], errors);
  const fileWs = idSchema.safeParse(top.workspaceId).success ? (top.workspaceId as string) : undefined;
  const list = (name: string): unknown[] => (Array.isArray(top[name]) ? (top[name] as unknown[]) : []);
  const [rawAgents, rawRules, rawIssues] = [list('agents'), list('qaRules'), list('qaIssues')];

  const agents = rawAgents.map((raw, i) => parseAgent(raw, fileWs, ['agents', i], errors));
  checkDuplicates(rawAgents, 'agentId', 'agents', errors);
  const qaRules = rawRules.map((raw, i) => parse(qaRuleSchema, owned(raw, fileWs, ['qaRules', i], errors), ['qaRules', i], errors));
  checkDuplicates(rawRules, 'qaRuleId', 'qaRules', errors);

  const fileRuleIds = new Set(rawRules.map((r) => (isRecord(r) ? r.qaRuleId : undefined)));
  const fileRules = new Map(qaRules.flatMap((r) => (r ? [[r.qaRuleId, r] as const] : [])));
  const lookups = new Map<string, Promise<Owned<QaRule> | null>>();
  const qaIssues: (QaIssue | undefined)[] = [];
  for (const [i, raw] of rawIssues.entries()) {
    const base = ['qaIssues', i];
    const item = owned(raw, fileWs, base, errors);
    if (isRecord(item) && item.qaRuleSnapshot !== undefined) {
      item.qaRuleSnapshot = owned(item.qaRuleSnapshot, fileWs, [...base, 'qaRuleSnapshot'], errors);
    }
    const issue = parse(issueInputSchema, item, base, errors);
    qaIssues.push(issue && (await withSnapshot(issue, base)));
  }
  checkDuplicates(rawIssues, 'qaIssueId', 'qaIssues', errors);

  async function withSnapshot(issue: z.infer<typeof issueInputSchema>, base: Path): Promise<QaIssue | undefined> {
    const at = (field: string): string => pointer([...base, field]);
    if (issue.qaRuleSnapshot) {
      if (issue.qaRuleSnapshot.qaRuleId === issue.qaRuleId) return { ...issue, qaRuleSnapshot: issue.qaRuleSnapshot };
      errors.push(`${at('qaRuleSnapshot')}.qaRuleId: must be the issue's qaRuleId "${issue.qaRuleId}"`);
      return undefined;
    }
    // A rule that is in the file but invalid has been reported already.
    if (fileRuleIds.has(issue.qaRuleId)) {
      const rule = fileRules.get(issue.qaRuleId);
      return rule && { ...issue, qaRuleSnapshot: rule };
    }
    if (!lookups.has(issue.qaRuleId)) lookups.set(issue.qaRuleId, lookupRule(issue.qaRuleId));
    const stored = await lookups.get(issue.qaRuleId);
    if (stored && stored.workspaceId === issue.workspaceId) return { ...issue, qaRuleSnapshot: stored.value };
    errors.push(
      stored
        ? `${at('qaRuleId')}: QA rule "${issue.qaRuleId}" belongs to another workspace`
        : `${at('qaRuleId')}: QA rule "${issue.qaRuleId}" is neither in the file nor stored; add it to qaRules or give a qaRuleSnapshot`,
    );
    return undefined;
  }

  if (errors.length > 0 || fileWs === undefined) return { ok: false, errors };
  const defined = <T>(xs: (T | undefined)[]): T[] => xs.filter((x): x is T => x !== undefined);
  return { ok: true, data: { workspaceId: fileWs, agents: defined(agents), qaRules: defined(qaRules), qaIssues: defined(qaIssues) } };
}

const CONFLICT_ITEMS = { agent: ['agents', 'agentId'], qaRule: ['qaRules', 'qaRuleId'], qaIssue: ['qaIssues', 'qaIssueId'] } as const;

function conflictLine(conflict: { kind: CatalogKind; id: string }, data: CatalogImport): string {
  const [list, field] = CONFLICT_ITEMS[conflict.kind];
  const items: Record<string, unknown>[] = data[list];
  const index = items.findIndex((item) => item[field] === conflict.id);
  return `${list}[${index}].${field}: "${conflict.id}" already belongs to another workspace`;
}

/**
 * Validates a catalog file and, only when all of it is valid, loads it in one atomic
 * step. Re-importing the same file changes nothing; an item with an existing id of the
 * same workspace replaces it, keeping an agent's place in the order.
 */
export async function importCatalog(
  catalog: Pick<CatalogStore, 'import' | 'getQaRule'>,
  json: unknown,
): Promise<CatalogImportResult> {
  const checked = await validateCatalogFile(json, (id) => catalog.getQaRule(id));
  if (!checked.ok) return checked;
  const { data } = checked;
  const reply = await catalog.import(data);
  if (!reply.ok) return { ok: false, errors: [conflictLine(reply.conflict, data)] };
  const counts = { agents: data.agents.length, qaRules: data.qaRules.length, qaIssues: data.qaIssues.length };
  return { ok: true, workspaceId: data.workspaceId, counts };
}
