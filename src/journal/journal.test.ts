import { describe, expect, it } from 'vitest';
import { createJournal, SUCCESSFUL_EXCHANGES_PER_SECOND, type JournalEntry } from './journal.js';
import { assertHonouredRetryAfter, checkRetryAfter } from './retry-after-report.js';

const entry = (overrides: Partial<JournalEntry> = {}): Omit<JournalEntry, 'seq'> => ({
  requestId: 'r',
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  path: '/v1/addresses',
  status: 200,
  outcome: 'completed',
  latencyMs: 1,
  ...overrides,
});

describe('journal', () => {
  it('keeps every failed exchange, and successful ones up to a budget per second', () => {
    const journal = createJournal({ capacity: 1000 });
    const exchange = { requestHeaders: ['Host', 'x'] };
    const ok = Array.from({ length: SUCCESSFUL_EXCHANGES_PER_SECOND + 50 }, () => journal.record(entry(), exchange));
    const failed = Array.from({ length: 50 }, () => journal.record(entry({ status: 500 }), exchange));
    const kept = ok.filter((e) => journal.get(e.seq)?.exchange).length;
    // The budget may roll over into a new second once during the loop; never more.
    expect(kept).toBeGreaterThanOrEqual(SUCCESSFUL_EXCHANGES_PER_SECOND);
    expect(kept).toBeLessThan(ok.length + 1);
    expect(failed.every((e) => journal.get(e.seq)?.exchange)).toBe(true);
  });

  it('tells subscribers about every entry, and drops a subscriber that throws', () => {
    const journal = createJournal({ capacity: 10 });
    const seen: number[] = [];
    const stop = journal.subscribe((e) => seen.push(e.seq));
    journal.subscribe(() => {
      throw new Error('broken page');
    });
    journal.record(entry());
    journal.record(entry());
    stop();
    journal.record(entry());
    expect(seen).toEqual([1, 2]);
  });

  it('keeps the last N entries, oldest dropped first, and finds the newest matches oldest first', () => {
    const journal = createJournal({ capacity: 3 });
    for (let i = 1; i <= 5; i++) journal.record(entry({ requestId: `r${i}` }));
    expect(journal.size).toBe(3);
    expect(journal.find().map((e) => e.requestId)).toEqual(['r3', 'r4', 'r5']);
    expect(journal.find({ limit: 2 }).map((e) => e.requestId)).toEqual(['r4', 'r5']);
    expect(journal.find().map((e) => e.seq)).toEqual([3, 4, 5]);
  });

  it.each<[string, object, string[]]>([
    ['account', { accountId: 'a' }, ['1', '3']],
    ['status class', { status: '4xx' }, ['2', '3']],
    ['exact status', { status: 429 }, ['3']],
    ['path glob', { path: '/v1/parcels/*' }, ['2']],
    ['method', { method: 'post' }, ['4']],
    ['since/until on the virtual clock', { since: '2026-01-01T00:00:01Z', until: '2026-01-01T00:00:03Z' }, ['2', '3']],
    ['scenario', { scenario: 'burst' }, ['3']],
  ])('filters by %s', (_label, filter, expected) => {
    const journal = createJournal();
    journal.record(entry({ requestId: '1', accountId: 'a' }));
    journal.record(entry({ requestId: '2', at: '2026-01-01T00:00:01.000Z', path: '/v1/parcels/x', status: 404 }));
    journal.record(entry({ requestId: '3', at: '2026-01-01T00:00:02.000Z', accountId: 'a', status: 429, scenarios: ['burst/rule 0'] }));
    journal.record(entry({ requestId: '4', at: '2026-01-01T00:00:03.000Z', method: 'POST', status: 201 }));
    expect(journal.find(filter).map((e) => e.requestId)).toEqual(expected);
  });

  it('clears all entries or those of one account', () => {
    const journal = createJournal();
    journal.record(entry({ accountId: 'a' }));
    journal.record(entry({ accountId: 'b' }));
    expect(journal.clear('a')).toBe(1);
    expect(journal.find().map((e) => e.accountId)).toEqual(['b']);
    expect(journal.clear()).toBe(1);
    expect(journal.size).toBe(0);
  });
});

describe('Retry-After check', () => {
  const journal = () => createJournal();
  it('passes a client that waited and flags one that came back early, per credential', () => {
    const j = journal();
    j.record(entry({ credential: 'account:a', status: 429, retryAfter: 10, at: '2026-01-01T00:00:00.000Z' }));
    j.record(entry({ credential: 'account:b', at: '2026-01-01T00:00:01.000Z' }));
    j.record(entry({ credential: 'account:a', at: '2026-01-01T00:00:10.000Z' }));
    j.record(entry({ credential: 'account:b', status: 429, retryAfter: 5, at: '2026-01-01T00:00:11.000Z' }));
    j.record(entry({ credential: 'account:b', path: '/v1/parcels', at: '2026-01-01T00:00:12.500Z' }));
    const report = checkRetryAfter(j.find());
    expect(report.checked).toBe(2);
    expect(report.violations).toHaveLength(1);
    expect(report.violations[0]).toMatchObject({ waitedMs: 1500, requiredMs: 5000, retry: { path: '/v1/parcels' } });
    expect(() => assertHonouredRetryAfter(j.find())).toThrow(/GET \/v1\/parcels came 1500 ms after the 429/);
    expect(checkRetryAfter(j.find({ accountId: 'nobody' })).ok).toBe(true);
  });
});
