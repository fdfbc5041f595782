import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import { createStateRegistry } from '../../store/state-registry.js';
import type { StoredTracker } from './model.js';
import { createTrackerTimers } from './tracker-timers.js';

const START = Date.parse('2026-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const at = (hours: number) => new Date(START + hours * HOUR).toISOString();

/** A tracker with `done` of its scans recorded, planned at the given hours. */
function tracker(id: string, hours: number[], done = 1): StoredTracker {
  const plan = hours.map((h, i) => ({ status: i === hours.length - 1 ? 'DELIVERED' : 'IN_TRANSIT', occurredAt: at(h) }));
  return { id, events: plan.slice(0, done), plan } as unknown as StoredTracker;
}

describe('tracker timers', () => {
  it('keep one clock timer per account, at the earliest next scan of its trackers, and fire it once', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const parts = createStateRegistry();
    const fired: string[] = [];
    const timers = createTrackerTimers(clock, parts, (accountId) => fired.push(accountId));
    timers.arm('a', tracker('t1', [0, 5, 9]));
    timers.arm('a', tracker('t2', [0, 2, 9]));
    timers.arm('a', tracker('t3', [0, 7]));
    timers.arm('a', tracker('done', [0, 1], 2)); // journey over: no timer
    timers.arm('b', tracker('t4', [0, 3]));
    expect(clock.pending(10).map((p) => [p.accountId, p.subject, p.at])).toEqual([
      ['a', 't2', START + 2 * HOUR],
      ['b', 't4', START + 3 * HOUR],
    ]);
    expect(parts.get('tracker-timers')!.snapshot!()).toEqual(['a', 'b']);
    clock.advance(HOUR);
    expect(fired).toEqual([]);
    clock.advance(2 * HOUR);
    expect(fired).toEqual(['a', 'b']);
    clock.advance(10 * HOUR);
    // Fired once each; the catch-up (not called here) arms the next one.
    expect(fired).toEqual(['a', 'b']);
    expect(clock.pending(10)).toEqual([]);
  });

  it('are cancelled by a reset of their account, and of everything', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const parts = createStateRegistry();
    const fired: string[] = [];
    const timers = createTrackerTimers(clock, parts, (accountId) => fired.push(accountId));
    for (const account of ['a', 'b', 'c']) timers.arm(account, tracker(`${account}1`, [0, 2]));
    parts.get('tracker-timers')!.clear!('b');
    expect(clock.pending(10).map((p) => p.accountId)).toEqual(['a', 'c']);
    parts.get('tracker-timers')!.clear!(undefined);
    clock.advance(5 * HOUR);
    expect(fired).toEqual([]);
  });
});
