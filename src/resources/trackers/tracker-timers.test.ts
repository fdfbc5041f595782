import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import { createStore, type Store } from '../../store/store.js';
import type { StoredTracker } from './model.js';
import { createTrackerTimers, TRACKER_DUE_INDEXED, TRACKER_DUE_VALUE } from './tracker-timers.js';

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
    const store = createStore();
    const { parts } = store;
    const fired: string[] = [];
    const timers = createTrackerTimers(clock, store, (accountId) => fired.push(accountId));
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
    // Each account's due value says the same, as state.
    expect(new Map(store.accountValues(TRACKER_DUE_VALUE))).toEqual(
      new Map([
        ['a', { at: START + 2 * HOUR, tracker: 't2', detail: 'IN_TRANSIT' }],
        ['b', { at: START + 3 * HOUR, tracker: 't4', detail: 'DELIVERED' }],
      ]),
    );
    clock.advance(HOUR);
    expect(fired).toEqual([]);
    clock.advance(2 * HOUR);
    expect(fired).toEqual(['a', 'b']);
    clock.advance(10 * HOUR);
    // Fired once each; the catch-up (not called here) arms the next one and writes the due value.
    expect(fired).toEqual(['a', 'b']);
    expect(clock.pending(10)).toEqual([]);
    expect([...store.accountValues(TRACKER_DUE_VALUE)]).toEqual([]);
  });

  it('a restart arms them from the due values alone once the index is whole; before that (an older file) every account is caught up once', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const store: Store = { ...createStore(), durable: true } as Store;
    const first = createTrackerTimers(clock, store, () => {});
    first.arm('a', tracker('t1', [0, 5]));
    first.arm('b', tracker('t2', [0, 3]));
    // Another instance on the same state, as a restarted mock: no index mark yet, so a full pass.
    const restartedClock = createClock({ mode: 'manual', start: START });
    const passes: string[] = [];
    const fired: string[] = [];
    const restarted = () => createTrackerTimers(restartedClock, { ...store, parts: createStore().parts }, (accountId) => fired.push(accountId));
    expect(
      restarted().resume((forget) => {
        passes.push('full');
        forget('a');
      }),
    ).toBe(0);
    expect(passes).toEqual(['full']);
    // forget dropped a's due value (its catch-up, not called here, writes it anew); the index is marked whole.
    expect(store.global.values.get(TRACKER_DUE_INDEXED)).toBe(true);
    expect([...store.accountValues(TRACKER_DUE_VALUE)].map(([id]) => id)).toEqual(['b']);
    // The next start reads no account: b's timer comes from its due value, with its label.
    const again = createClock({ mode: 'manual', start: START });
    const timers = createTrackerTimers(again, { ...store, parts: createStore().parts }, (accountId) => fired.push(accountId));
    expect(timers.resume(() => passes.push('full'))).toBe(1);
    expect(passes).toEqual(['full']);
    expect(again.pending(10).map((p) => [p.accountId, p.subject, p.at, p.detail])).toEqual([['b', 't2', START + 3 * HOUR, 'DELIVERED']]);
    again.advance(3 * HOUR);
    expect(fired).toEqual(['b']);
    // A start after the due time catches the account up during resume, not in a later turn.
    fired.length = 0;
    first.arm('b', tracker('t2', [0, 3]));
    const late = createClock({ mode: 'manual', start: START + 4 * HOUR });
    createTrackerTimers(late, { ...store, parts: createStore().parts }, (accountId) => fired.push(accountId)).resume(() => passes.push('full'));
    expect(fired).toEqual(['b']);
    expect(passes).toEqual(['full']);
  });

  it('are cancelled by a reset of their account, and of everything', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const store = createStore();
    const { parts } = store;
    const fired: string[] = [];
    const timers = createTrackerTimers(clock, store, (accountId) => fired.push(accountId));
    for (const account of ['a', 'b', 'c']) timers.arm(account, tracker(`${account}1`, [0, 2]));
    parts.get('tracker-timers')!.clear!('b');
    expect(clock.pending(10).map((p) => p.accountId)).toEqual(['a', 'c']);
    parts.get('tracker-timers')!.clear!(undefined);
    clock.advance(5 * HOUR);
    expect(fired).toEqual([]);
  });
});
