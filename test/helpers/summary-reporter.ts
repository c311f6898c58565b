import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
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
 *
 * Before it, the files that took longest (their tests and hooks, plus collecting and setting
 * them up), so that where the suite's time goes shows on every run; with TEST_DURATIONS_FILE
 * set, every file's figures are written there as JSON, slowest first.
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
    reportDurations(testModules);
    // One project needs no breakdown: its line would repeat the total.
    const perProject = byProject.size > 1 ? [...byProject].map(([name, c]) => `  ${name}: ${line(c)}\n`).join('') : '';
    process.stdout.write(`\n${perProject}Tests: ${line(total)}\n`);
  }
}

/** How many of the slowest files the summary names. */
const SLOWEST = 10;

/** Prints the slowest files and, with TEST_DURATIONS_FILE, writes every file's durations (ms) there. */
function reportDurations(testModules: ReadonlyArray<TestModule>): void {
  const rows = testModules
    .map((mod) => {
      const d = mod.diagnostic();
      return {
        project: mod.project.name || '(root)',
        file: relative(process.cwd(), mod.moduleId),
        ms: Math.round(d.duration + d.collectDuration + d.setupDuration + d.prepareDuration + d.environmentSetupDuration),
        testsMs: Math.round(d.duration),
      };
    })
    .sort((a, b) => b.ms - a.ms);
  const file = process.env.TEST_DURATIONS_FILE;
  if (file) writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
  if (rows.length < 2) return;
  const total = rows.reduce((n, r) => n + r.ms, 0);
  const lines = rows.slice(0, SLOWEST).map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.project}  ${r.file}`);
  process.stdout.write(`\nSlowest files (of ${rows.length}, ${(total / 1000).toFixed(0)} s of file time in all):\n${lines.join('\n')}\n`);
}
