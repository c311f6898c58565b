import type { HttpBindings } from '@hono/node-server';
import type { Logger } from '../shared/runtime/logger.js';
import type { Principal } from '../shared/store/key-store.js';

/** Variables set by middleware for the handlers. */
export interface AppVariables {
  requestId: string;
  logger: Logger;
  principal: Principal;
}

export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: AppVariables;
}
