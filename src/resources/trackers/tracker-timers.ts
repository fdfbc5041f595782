import type { Clock } from '../../clock/clock.js';
import type { StateRegistry } from '../../store/state-registry.js';
import type { StoredTracker } from './model.js';

/**
 * One clock timer per account with trackers still to scan, at the earliest next planned scan of
 * its trackers (issue 27: a timer per pending tracker cost ~600 B of heap each, and grew with the
 * sandbox). When it fires, `onDue` catches up the account's trackers (each one's scans due by
 * now, in order of their next scan) and arms the account's next timer through `arm`. A timer may
 * fire with nothing due (its tracker was deleted, or a read caught it up first): the catch-up
 * records nothing and re-arms. Timers belong to this mock instance: transient state (a durable
 * mock re-arms them on start: TrackerService.resume), registered so that a reset cancels those
 * of the accounts it drops.
 *
 * @example const timers = createTrackerTimers(clock, store.parts, (accountId) => catchUpAccount(accountId)); timers.arm(accountId, tracker);
 */
export function createTrackerTimers(clock: Clock, parts: StateRegistry, onDue: (accountId: string) => void) {
  /** Pending timers by account: when each fires, and its cancel. */
  const timers = new Map<string, { at: number; cancel: () => void }>();
  // No timer of a dropped account is left on the clock after a reset.
  parts.register({
    name: 'tracker-timers',
    description: 'pending timers of the trackers, one per account at the earliest next scan of its trackers',
    durable: false,
    storage: 'value',
    sharing: 'process',
    reset: 'per-account',
    snapshot: () => [...timers.keys()].sort(),
    clear(accountId) {
      for (const [key, timer] of timers) {
        if (accountId !== undefined && key !== accountId) continue;
        timer.cancel();
        timers.delete(key);
      }
    },
  });

  /**
   * Makes sure the account's timer fires by the tracker's next planned scan; nothing when its
   * journey is over. The timer keeps the account id only, never a tracker: a --data store's
   * working set drops accounts that are not in use (src/store/scope-cache.ts).
   */
  function arm(accountId: string, tracker: StoredTracker): void {
    const next = tracker.plan[tracker.events.length];
    if (!next) return;
    const at = Date.parse(next.occurredAt);
    const armed = timers.get(accountId);
    if (armed && armed.at <= at) return;
    armed?.cancel();
    const cancel = clock.setTimer(at, () => {
      timers.delete(accountId);
      onDue(accountId);
    }, { kind: 'tracker-step', subject: tracker.id, accountId, detail: `${next.status}${next.description ? `: ${next.description}` : ''}` });
    timers.set(accountId, { at, cancel });
  }

  return { arm };
}
