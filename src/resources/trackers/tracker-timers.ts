import type { Clock } from '../../clock/clock.js';
import type { Store } from '../../store/store.js';
import type { StoredTracker } from './model.js';

/**
 * The account value that indexes its timer (issue 27): when the account's trackers next need a
 * scan recorded, and which tracker that is. It is state like the trackers (committed with them),
 * so a restarted mock arms its timers from these values alone, without reading any account.
 * It is a lower bound: a timer may fire with nothing due (a read caught its tracker up first, or
 * the tracker was deleted), never after a scan it should record.
 */
export const TRACKER_DUE_VALUE = 'tracker-due';

/**
 * The global value saying that every account with trackers to scan has its `TRACKER_DUE_VALUE`.
 * A file of an older build has none: its first start reads every account once and sets it.
 */
export const TRACKER_DUE_INDEXED = 'tracker-due-indexed';

/** An account's due value: its timer's time (epoch ms on the virtual clock) and label. */
export interface TrackerDue {
  at: number;
  /** The tracker whose scan is due then. */
  tracker: string;
  /** One line for people: the scan's status and description. */
  detail: string;
}

type TimerStore = Pick<Store, 'parts' | 'account' | 'hasAccount' | 'accountValues' | 'global' | 'durable'>;

/**
 * One clock timer per account with trackers still to scan, at the earliest next planned scan of
 * its trackers (issue 27: a timer per pending tracker cost ~600 B of heap each, and grew with the
 * sandbox), indexed by the account's `TRACKER_DUE_VALUE`. When it fires, `onDue` catches up the
 * account's trackers (each one's scans due by now, in order of their next scan), each of which
 * arms the account's next timer through `arm`; the account's due value is the exact earliest
 * next scan after that. A timer may fire with nothing due: the catch-up records nothing and
 * re-arms. Timers belong to this mock instance: transient state, registered so that a reset
 * cancels those of the accounts it drops; `resume` arms them again after a restart or an import.
 *
 * @example const timers = createTrackerTimers(clock, store, (accountId) => catchUpAccount(accountId)); timers.arm(accountId, tracker);
 */
export function createTrackerTimers(clock: Clock, store: TimerStore, onDue: (accountId: string) => void) {
  /** Pending timers by account: when each fires, and its cancel. */
  const timers = new Map<string, { at: number; cancel: () => void }>();
  /** A full reset or an import replaced the accounts: their due values are rebuilt by the next resume. */
  let replaced = false;
  // No timer of a dropped account is left on the clock after a reset.
  store.parts.register({
    name: 'tracker-timers',
    description: 'pending timers of the trackers, one per account at the earliest next scan of its trackers',
    durable: false,
    storage: 'value',
    sharing: 'process',
    reset: 'per-account',
    snapshot: () => [...timers.keys()].sort(),
    clear(accountId) {
      if (accountId === undefined) replaced = true;
      for (const [key, timer] of timers) {
        if (accountId !== undefined && key !== accountId) continue;
        timer.cancel();
        timers.delete(key);
      }
    },
  });

  /** Sets the account's clock timer at `due` unless it fires by then already. The timer keeps the account id only, never a tracker: a --data store's working set drops accounts not in use. */
  function schedule(accountId: string, due: TrackerDue): void {
    const armed = timers.get(accountId);
    if (armed && armed.at <= due.at) return;
    armed?.cancel();
    const cancel = clock.setTimer(due.at, () => fire(accountId), { kind: 'tracker-step', subject: due.tracker, accountId, detail: due.detail });
    timers.set(accountId, { at: due.at, cancel });
  }

  /** The account whose timer is firing, and the earliest next scan its catch-up armed so far. */
  let firing: { accountId: string; next?: TrackerDue } | undefined;

  /**
   * The account's catch-up arms its next timer; its due value is written once at the end, and
   * only if it changed (a timer that found nothing due writes nothing). On a throw the stored
   * value stays: an earlier time is still a lower bound.
   */
  function fire(accountId: string): void {
    timers.delete(accountId);
    if (!store.hasAccount(accountId)) return;
    const pass: { accountId: string; next?: TrackerDue } = { accountId };
    firing = pass;
    try {
      onDue(accountId);
    } finally {
      firing = undefined;
    }
    const values = store.account(accountId).values;
    const kept = values.get(TRACKER_DUE_VALUE) as TrackerDue | undefined;
    if (!pass.next) values.delete(TRACKER_DUE_VALUE);
    else if (!kept || kept.at !== pass.next.at || kept.tracker !== pass.next.tracker || kept.detail !== pass.next.detail) values.set(TRACKER_DUE_VALUE, pass.next);
  }

  /**
   * Makes sure the account's timer fires by the tracker's next planned scan, and its due value
   * says so; nothing when the tracker's journey is over.
   */
  function arm(accountId: string, tracker: StoredTracker): void {
    const next = tracker.plan[tracker.events.length];
    if (!next) return;
    const due: TrackerDue = { at: Date.parse(next.occurredAt), tracker: tracker.id, detail: `${next.status}${next.description ? `: ${next.description}` : ''}` };
    if (firing?.accountId === accountId) {
      if (!firing.next || due.at < firing.next.at) firing.next = due;
    } else {
      const values = store.account(accountId).values;
      const kept = values.get(TRACKER_DUE_VALUE) as TrackerDue | undefined;
      if (!kept || !(kept.at <= due.at)) values.set(TRACKER_DUE_VALUE, due);
    }
    schedule(accountId, due);
  }

  /**
   * Arms every account's timer after a restart or an import. From the due values alone when the
   * store says every account has one (no account is read: a bounded working set stays bounded);
   * otherwise — a file of an older build, an import, after a full reset — `catchUpAll` reads every
   * account once, which arms its timer and writes its due value, and the index is marked whole.
   * Scans that fell due while the mock was stopped are recorded now, an account at a time.
   * Returns the number of accounts with a timer.
   */
  function resume(catchUpAll: (forget: (accountId: string) => void) => void): number {
    if (!replaced && store.global.values.get(TRACKER_DUE_INDEXED) === true) {
      const now = clock.now();
      const dueNow: [string, number][] = [];
      for (const [accountId, value] of [...store.accountValues(TRACKER_DUE_VALUE)]) {
        const due = value as Partial<TrackerDue> | undefined;
        // A value this build cannot read is due at once: its catch-up writes it anew.
        const at = typeof due?.at === 'number' && Number.isFinite(due.at) ? due.at : now;
        if (at <= now) dueNow.push([accountId, at]);
        else schedule(accountId, { at, tracker: String(due?.tracker ?? ''), detail: String(due?.detail ?? '') });
      }
      // Scans that fell due while the mock was stopped are recorded here, one account after the
      // other, soonest first: as clock timers they would each start a unit of work in the same
      // turn, holding every such account in memory at once until their commit.
      for (const [accountId] of dueNow.sort((a, b) => a[1] - b[1])) fire(accountId);
      return timers.size;
    }
    catchUpAll((accountId) => {
      timers.get(accountId)?.cancel();
      timers.delete(accountId);
      if (store.hasAccount(accountId)) store.account(accountId).values.delete(TRACKER_DUE_VALUE);
    });
    replaced = false;
    // Only a durable store restarts; the memory store's global scope stays as the domain left it.
    if (store.durable && store.global.values.get(TRACKER_DUE_INDEXED) !== true) store.global.values.set(TRACKER_DUE_INDEXED, true);
    return timers.size;
  }

  return { arm, resume };
}
