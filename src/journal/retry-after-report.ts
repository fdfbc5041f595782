import type { JournalEntry } from './journal.js';

/** A request that came back sooner than the 429 before it asked. */
export interface RetryAfterViolation {
  /** The 429 answer with its Retry-After. */
  limited: JournalEntry;
  /** The next request of the same credential, which came too early. */
  retry: JournalEntry;
  waitedMs: number;
  requiredMs: number;
}

export interface RetryAfterReport {
  ok: boolean;
  /** 429 answers with a Retry-After that were looked at. */
  checked: number;
  violations: RetryAfterViolation[];
}

/**
 * Checks, from journal entries, that after every 429 with Retry-After the same credential sent
 * nothing before Retry-After seconds had passed on the virtual clock (RFC 6585 §4, RFC 9110
 * §10.2.3). Requests without a credential are grouped by account. Entries may be in any order.
 *
 * @example
 * const report = checkRetryAfter(mock.journal.find({ accountId }));
 * expect(report.violations).toEqual([]);
 */
export function checkRetryAfter(entries: readonly JournalEntry[]): RetryAfterReport {
  const ordered = [...entries].sort((a, b) => a.seq - b.seq);
  const violations: RetryAfterViolation[] = [];
  let checked = 0;
  ordered.forEach((entry, index) => {
    if (entry.status !== 429 || entry.retryAfter === undefined) return;
    checked++;
    const who = keyOf(entry);
    const retry = ordered.slice(index + 1).find((e) => keyOf(e) === who);
    if (!retry) return;
    const waitedMs = Date.parse(retry.at) - Date.parse(entry.at);
    const requiredMs = entry.retryAfter * 1000;
    if (waitedMs < requiredMs) violations.push({ limited: entry, retry, waitedMs, requiredMs });
  });
  return { ok: violations.length === 0, checked, violations };
}

/**
 * Throws, with one line per early retry, unless every 429 was honoured.
 * @example assertHonouredRetryAfter(mock.journal.find({ accountId }))
 */
export function assertHonouredRetryAfter(entries: readonly JournalEntry[]): RetryAfterReport {
  const report = checkRetryAfter(entries);
  if (!report.ok) {
    const lines = report.violations.map(
      (v) => `  ${v.retry.method} ${v.retry.path} came ${v.waitedMs} ms after the 429 to ${v.limited.method} ${v.limited.path} (Retry-After: ${v.limited.retryAfter} s)`,
    );
    throw new Error(`The client retried before Retry-After had passed:\n${lines.join('\n')}`);
  }
  return report;
}

function keyOf(entry: JournalEntry): string {
  return entry.credential ?? entry.accountId ?? 'anonymous';
}
