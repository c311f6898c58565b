import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The suite in projects, by what a file needs:
 *
 * - `unit`: no Redis and no child services; seconds (`npm run test:unit`).
 * - `corpus`: the real-world documents in `../shared/corpus` (or CORPUS_DIR); no Redis, but a
 *   minute or two of extraction, so it is kept out of `unit`. It skips, saying so, without a corpus.
 * - `integration`: the API and the worker against one throwaway `redis-server` (or REDIS_URL).
 * - `ops`: process-level tests: real processes started, killed and frozen, Redis restarted,
 *   filled or cut off, `npm start`, the cluster scripts, Compose, the chaos check.
 * - `cluster` and `failover`, only with TEST_CLUSTER=1: the API and worker suites again on a
 *   throwaway cluster of three masters, then the failover test, which brings its own six-node
 *   cluster and runs last and alone rather than beside suites competing for the same two cores.
 *   They are opt-in so that `npx vitest run <file>` runs a file once, not once per Redis layout.
 */
const REDIS_SETUP = ['test/helpers/global-setup.ts'];
const FAILOVER = 'test/worker/cluster-failover.test.ts';
// Files whose subject lies below Redis's layout, and whose Redis writes are the ordinary ones that
// the other files of the cluster pass make too: the cluster pass leaves them out. The slow-client
// timeouts (sockets), OCR (Tesseract on rendered pages), a sandbox child that kills itself on every
// attempt, and a parse that blocks its event loop past the job lock (BullMQ's lock renewal).
const BELOW_REDIS = [
  'test/api/slow-clients.test.ts',
  'test/worker/ocr.test.ts',
  'test/worker/poison-pill.test.ts',
  'test/worker/blocking-parse.test.ts',
];

const base: TestProjectInlineConfiguration[] = [
  // Unit files hold no process-wide state between them (no Redis, no servers; one
  // spy that its own test restores), so they share their workers' module cache instead of loading it per file.
  { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
  { extends: true, test: { name: 'corpus', include: ['test/corpus/**/*.test.ts'] } },
  {
    extends: true,
    test: {
      name: 'integration',
      include: ['test/api/**/*.test.ts', 'test/worker/**/*.test.ts', 'test/integration/**/*.test.ts'],
      exclude: [FAILOVER],
      globalSetup: REDIS_SETUP,
      // As in `unit`: each file works under its own key prefix and closes what it opens, so files
      // share their worker's module cache; loading the API and worker modules again for every
      // file was half of these files' time.
      isolate: false,
    },
  },
  { extends: true, test: { name: 'ops', include: ['test/ops/**/*.test.ts'], globalSetup: REDIS_SETUP } },
];

// global-setup.ts starts a cluster for the project named `cluster`.
const clusterPass: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'cluster',
      include: ['test/api/**/*.test.ts', 'test/worker/**/*.test.ts'],
      exclude: [FAILOVER, ...BELOW_REDIS],
      globalSetup: REDIS_SETUP,
      // As in `integration`.
      isolate: false,
    },
  },
  // A later group starts only when every earlier one has finished.
  { extends: true, test: { name: 'failover', include: [FAILOVER], sequence: { groupOrder: 1 } } },
];

export default defineConfig({
  test: {
    projects: process.env.TEST_CLUSTER === '1' ? [...base, ...clusterPass] : base,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Every answer of a knowledge base built from kept source rows is checked against a read of
    // all its sources, so a store script that changes a record without recording it fails a test.
    env: { KB_VIEW_VERIFY: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
