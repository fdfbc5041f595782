import type { Clock } from '../../clock/clock.js';
import type { StateRegistry } from '../../store/state-registry.js';
import type { StoredTracker } from './model.js';

/**
 * One clock timer per tracker, at its next planned scan. When it fires, `onDue` records what
 * fell due (the tracker service's catch-up, which arms the next timer). Timers belong to this
 * mock instance: transient state (a durable mock re-arms them on start: TrackerService.resume),
 * registered so that a reset cancels those of the trackers it drops.
 *
 * @example const timers = createTrackerTimers(clock, store.parts, (accountId, trackerId) => catchUpById(accountId, trackerId)); timers.arm(accountId, tracker);
 */
export function createTrackerTimers(clock: Clock, parts: StateRegistry, onDue: (accountId: string, trackerId: string) => void) {
  /** Pending timers, by account and tracker. */
  const timers = new Map<string, () => void>();
  // No timer of a dropped tracker is left on the clock after a reset.
  parts.register({
    name: 'tracker-timers',
    description: 'pending timers of the trackers, one per tracker at its next scan',
    durable: false,
    storage: 'value',
    sharing: 'process',
    reset: 'per-account',
    snapshot: () => [...timers.keys()].sort(),
    clear(accountId) {
      for (const [key, cancel] of timers) {
        if (accountId !== undefined && !key.startsWith(`${accountId}/`)) continue;
        cancel();
        timers.delete(key);
      }
    },
  });

  function disarm(accountId: string, trackerId: string): void {
    const key = `${accountId}/${trackerId}`;
    timers.get(key)?.();
    timers.delete(key);
  }

  /** (Re-)arms the tracker's timer at its next planned scan; none when its journey is over. */
  function arm(accountId: string, tracker: StoredTracker): void {
    // The timer keeps the ids, never the tracker: a --data store's working set drops accounts
    // that are not in use (src/store/scope-cache.ts), and a pending timer per tracker must not
    // keep every tracker of the sandbox in memory. It reads the tracker when it fires.
    const trackerId = tracker.id;
    const key = `${accountId}/${trackerId}`;
    disarm(accountId, trackerId);
    const next = tracker.plan[tracker.events.length];
    if (!next) return;
    const cancel = clock.setTimer(Date.parse(next.occurredAt), () => {
      timers.delete(key);
      onDue(accountId, trackerId);
    }, { kind: 'tracker-step', subject: trackerId, accountId, detail: `${next.status}${next.description ? `: ${next.description}` : ''}` });
    timers.set(key, cancel);
  }

  return { arm, disarm };
}
