import { MAX_SITES_PER_KB } from '../../schemas/site.js';
import { ConflictError, ForbiddenError, NotFoundError, OTHER_WORKSPACE, notFound, PreconditionFailedError, ValidationError, type AppError } from '../../errors.js';

/** What a refusal is about, for the message of the error it becomes. */
export interface ResultContext {
  /** The status a source had when a script refused to move it. */
  status?: string;
  /** The current revision, when a script refused an If-Match revision. */
  rev?: number;
  /** The knowledge base and document asked for, so that a 404 names what is missing. */
  kbId?: string;
  documentId?: string;
  siteId?: string;
}

const documentOf = (c: ResultContext): AppError => (c.documentId ? notFound('Document', c.documentId, `knowledge base ${c.kbId}`) : new NotFoundError());
const siteOf = (c: ResultContext): AppError => (c.siteId ? notFound('Site', c.siteId, `knowledge base ${c.kbId}`) : new NotFoundError());

/**
 * The error each refusal a script can reply with stands for, in one place
 * (BullMQ's `finished-errors.ts`). Callers pass the reply's tag once they
 * have handled its other outcomes, so a script that declares a new refusal
 * does not compile until the refusal has its error here.
 */
const REFUSALS = {
  missing: (c) => (c.kbId ? notFound('Knowledge base', c.kbId) : new NotFoundError()),
  missing_source: documentOf,
  missing_site: siteOf,
  site_gone: siteOf,
  forbidden: () => new ForbiddenError(OTHER_WORKSPACE),
  precondition_failed: (c) => new PreconditionFailedError(c.rev),
  exists: () => new ConflictError('could not create the knowledge base (exists)'),
  stage_missing: () => new ConflictError('an upload expired before it was committed; send it again'),
  not_failed: () => new ConflictError('only a failed source can be retried'),
  no_bytes: () => new ConflictError('the uploaded file is no longer kept; upload it again'),
  not_url: () => new ValidationError({ documentId: 'only a URL source can be refreshed' }),
  too_many_sites: () => new ValidationError({ knowledge_base_sites: `a knowledge base holds at most ${MAX_SITES_PER_KB} sites` }),
  site_busy: () => new ConflictError('the site is discovering; refresh it once its discovery has ended'),
  busy: (c) => new ConflictError(`the source is ${c.status ?? 'in progress'}; refresh it once it is ready or failed`),
} as const satisfies Record<string, (context: ResultContext) => AppError>;

/** A refusal a script replies with, by its tag. */
export type Refusal = keyof typeof REFUSALS;

/** The error a script's refusal stands for; its caller throws it. */
export function resultError(code: Refusal, context: ResultContext = {}): AppError {
  const error = REFUSALS[code] as ((context: ResultContext) => AppError) | undefined;
  // Typed callers cannot get here; a tag cast past the type is a bug, thrown as such.
  if (!error) throw new Error(`no error is declared for the script result '${String(code)}'`);
  return error(context);
}
