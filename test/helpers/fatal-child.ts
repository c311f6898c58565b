/**
 * A process that installs the fatal-error handlers and then fails the way
 * argv[2] says: `throw` (an uncaught exception) or `reject` (an unhandled
 * rejection). For the fatal-error tests.
 */
import { createLogger } from '../../shared/runtime/logger.js';
import { onFatalErrors } from '../../shared/runtime/process.js';

onFatalErrors(createLogger('info', { role: 'fatal-test' }));

function failDeepInside(kind: string): void {
  const error = new Error(`boom by ${kind}`);
  setTimeout(() => {
    if (kind === 'throw') throw error;
    void Promise.reject(error);
  }, 10);
}

failDeepInside(process.argv[2] ?? 'throw');
setTimeout(() => process.stdout.write('still alive\n'), 5_000);
