import { accessSync, constants } from 'node:fs';

/** Whether `path` is a file this process may execute (the helper programs a worker looks for: prlimit, setpriv, poppler). */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
