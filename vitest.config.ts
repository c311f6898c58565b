import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The failover test brings its own six-node cluster and moves a master while
 * sources stream in; it runs on its own, last in `npm run test:cluster`, not beside
 * other suites competing for the same two cores.
 */
const FAILOVER = 'test/worker/cluster-failover.test.ts';
const failoverOnly = process.env.TEST_FAILOVER === '1';

export default defineConfig({
  test: {
    include: failoverOnly ? [FAILOVER] : ['test/**/*.test.ts'],
    exclude: failoverOnly ? configDefaults.exclude : [...configDefaults.exclude, FAILOVER],
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
