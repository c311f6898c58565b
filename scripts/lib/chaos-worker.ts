/**
 * The compiled worker (`dist/worker/main.js`) with a short reconcile
 * interval, for `npm run chaos`:
 *
 *   node --import tsx scripts/lib/chaos-worker.ts <distDir> <reconcileIntervalMs>
 *
 * Everything else comes from the environment as for `npm run start:worker`;
 * the reconcile interval is an option of `startWorker`, not a variable.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distDir = 'dist', reconcileMs = '5000'] = process.argv.slice(2);
const load = <T>(rel: string): Promise<T> => import(pathToFileURL(resolve(distDir, rel)).href) as Promise<T>;

const { runRole } = await load<typeof import('../../shared/process.js')>('shared/process.js');
const { startWorker } = await load<typeof import('../../worker/main.js')>('worker/main.js');
void runRole('worker', (config, logger) => startWorker(config, logger, { reconcileIntervalMs: Number(reconcileMs) }));
