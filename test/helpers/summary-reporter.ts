import type { Reporter, TestModule } from 'vitest/node';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

const line = (c: Counts): string => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;

/**
 * Prints one line per vitest project (`unit: N passed, ...`), then one plain closing line,
 * `Tests: N passed, N failed, N skipped`, that any CI can read without knowing vitest's own
 * summary format. A test file that fails with no failed test (an import or hook error) counts
 * as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const total: Counts = { passed: 0, failed: 0, skipped: 0 };
    const byProject = new Map<string, Counts>();
    for (const mod of testModules) {
      const name = mod.project.name || '(root)';
      const counts = byProject.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
      byProject.set(name, counts);
      const failedBefore = counts.failed;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        const key = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        counts[key] += 1;
        total[key] += 1;
      }
      // A file that fails to load or in a hook has no failed test, yet the run failed: count it once,
      // so that `0 failed` always means a green run.
      if (mod.state() === 'failed' && counts.failed === failedBefore) {
        counts.failed += 1;
        total.failed += 1;
      }
    }
    // One project needs no breakdown: its line would repeat the total.
    const perProject = byProject.size > 1 ? [...byProject].map(([name, c]) => `  ${name}: ${line(c)}\n`).join('') : '';
    process.stdout.write(`\n${perProject}Tests: ${line(total)}\n`);
  }
}
