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

/**
 * The error a script's refusal stands for, in one place (BullMQ's
 * `finished-errors.ts`): every command that can refuse a user's change
 * replies with one of these codes, and its caller throws what this returns.
 */
export function resultError(code: string, context: ResultContext = {}): AppError {
  switch (code) {
    case 'missing':
      return context.kbId ? notFound('Knowledge base', context.kbId) : new NotFoundError();
    case 'missing_source':
      return context.documentId ? notFound('Document', context.documentId, `knowledge base ${context.kbId}`) : new NotFoundError();
    case 'missing_site':
    case 'site_gone':
      return context.siteId ? notFound('Site', context.siteId, `knowledge base ${context.kbId}`) : new NotFoundError();
    case 'forbidden':
      return new ForbiddenError(OTHER_WORKSPACE);
    case 'precondition_failed':
      return new PreconditionFailedError(context.rev);
    case 'exists':
      return new ConflictError('could not create the knowledge base (exists)');
    case 'stage_missing':
      return new ConflictError('an upload expired before it was committed; send it again');
    case 'not_failed':
      return new ConflictError('only a failed source can be retried');
    case 'no_bytes':
      return new ConflictError('the uploaded file is no longer kept; upload it again');
    case 'not_url':
      return new ValidationError({ documentId: 'only a URL source can be refreshed' });
    case 'too_many_sites':
      return new ValidationError({ knowledge_base_sites: `a knowledge base holds at most ${MAX_SITES_PER_KB} sites` });
    case 'site_busy':
      return new ConflictError('the site is discovering; refresh it once its discovery has ended');
    case 'busy':
      return new ConflictError(`the source is ${context.status ?? 'in progress'}; refresh it once it is ready or failed`);
    default:
      throw new Error(`no error is declared for the script result '${code}'`);
  }
}
