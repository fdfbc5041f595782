import type { VerificationReport } from './run-verification.js';

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/**
 * The verification result for people: one line per interaction (PASS / FAIL / SKIP, consumer,
 * description, provider states), the reasons under each failure or skip, and the totals.
 * @example process.stdout.write(formatReport(report));
 */
export function formatReport(report: VerificationReport): string {
  const lines = [`Verification of ${report.provider} at ${report.baseUrl}`, ''];
  const order = { failed: 0, skipped: 1, passed: 2 };
  const sorted = [...report.interactions].sort(
    (a, b) => order[a.status] - order[b.status] || a.consumer.localeCompare(b.consumer) || a.description.localeCompare(b.description),
  );
  for (const outcome of sorted) {
    const states = outcome.states.length ? `  [given ${outcome.states.join(', ')}]` : '';
    lines.push(`${MARK[outcome.status]}  ${outcome.consumer ? `${outcome.consumer}: ` : ''}${outcome.description}${states}`);
    for (const reason of outcome.reasons) lines.push(`        ${reason}`);
  }
  if (report.cleanupProblems.length) {
    lines.push('', 'Clean-up problems (left on the provider):', ...report.cleanupProblems.map((p) => `  ${p}`));
  }
  const { passed, failed, skipped } = report.counts;
  lines.push('', `${passed} passed, ${failed} failed, ${skipped} skipped`, '');
  return lines.join('\n');
}
