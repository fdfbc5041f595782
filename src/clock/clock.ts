/**
 * The one clock of a mock instance. Everything time-based (token expiry, quote validity,
 * tracker progression, webhook retries, rate-limit windows) reads `now()` from here, so a
 * test can move time with `advance()` instead of sleeping.
 *
 * - `real` mode: wall-clock time plus an offset that `advance`/`set` change.
 * - `manual` mode: time stands still until advanced or set.
 *
 * Timers scheduled with `setTimer` fire when virtual time reaches them: in `real` mode also by a
 * real timeout, in both modes whenever `advance`/`set` passes their due time. Hand-written: fake
 * timer libraries (@sinonjs/fake-timers) replace the process's own timers for everyone, and this
 * clock must move one mock's time while the process (and the other mocks in it) keep theirs.
 */
export type ClockMode = 'real' | 'manual';

export interface ClockOptions {
  mode?: ClockMode;
  /** Start time (epoch ms or ISO string). Default: now (real) or 2026-01-01T00:00:00Z (manual). */
  start?: number | string;
  /** Told of an error thrown by a timer's function (the runtime logs it). */
  onTimerError?: (error: unknown) => void;
  /**
   * Runs a timer that fell due on its own (a real timeout, one set in the past, or time put back
   * by `restore`). Default: at once. A shared store passes its batch runner, so the timer's writes
   * start from current state. Timers that fire inside `advance`/`set` run in the caller's batch.
   */
  runDue?: (fire: () => void) => void;
}

/** Timer functions that threw: counted and the latest kept, shown by GET /__admin/clock. */
export interface TimerFailures {
  count: number;
  last?: { at: string; error: string };
}

/** What a timer is for, so a person can see what is due next (GET /__admin/clock/due). */
export interface TimerLabel {
  kind: 'tracker-step' | 'webhook-retry' | 'account-expiry';
  /** The object the timer acts on (tracker, delivery or account id). */
  subject: string;
  accountId?: string;
  /** One line for people, e.g. "IN_TRANSIT: Departed hub". */
  detail?: string;
}

export interface PendingTimerView extends TimerLabel {
  /** When it fires, epoch ms on the virtual clock. */
  at: number;
}

export interface Clock {
  readonly mode: ClockMode;
  now(): number;
  nowIso(): string;
  advance(ms: number): void;
  set(epochMs: number): void;
  /** Runs `fn` once virtual time reaches `atMs`. Returns a cancel function. */
  setTimer(atMs: number, fn: () => void, label?: TimerLabel): () => void;
  /** The `limit` labelled timers due soonest, soonest first. */
  pending(limit: number): PendingTimerView[];
  /** Cancels every pending timer (on shutdown). */
  dispose(): void;
  /** Timers whose function threw; the others still fired. */
  timerFailures(): TimerFailures;
  /** What a durable store saves: the offset from wall time (`real`) or the frozen time (`manual`). */
  snapshot(): ClockSnapshot;
  /**
   * Puts saved time back. In `real` mode the saved offset is kept, so virtual time ran on while
   * the mock was stopped, as a real server's would; a manual clock resumes where it stood.
   */
  restore(saved: ClockSnapshot): void;
}

export interface ClockSnapshot {
  mode: ClockMode;
  /** real: virtual minus wall time, in ms. */
  offsetMs?: number;
  /** manual: the frozen virtual time, epoch ms. */
  nowMs?: number;
}

interface PendingTimer {
  at: number;
  fn: () => void;
  label?: TimerLabel;
  handle?: NodeJS.Timeout;
}

const MANUAL_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * @example
 * const clock = createClock({ mode: 'manual', start: '2026-03-01T00:00:00Z' });
 * clock.advance(4 * 3600_000); // four hours later
 */
export function createClock(options: ClockOptions = {}): Clock {
  const mode = options.mode ?? 'real';
  const start = parseStart(options.start) ?? (mode === 'manual' ? MANUAL_EPOCH : Date.now());
  // real mode: virtual = wall + offset; manual mode: virtual = frozen
  let offset = mode === 'real' ? start - Date.now() : 0;
  let frozen = start;
  const timers = new Set<PendingTimer>();
  const runDue = options.runDue ?? ((fire: () => void) => fire());
  const failures: TimerFailures = { count: 0 };

  const now = (): number => (mode === 'real' ? Date.now() + offset : frozen);
  // One string per millisecond: a booking stamps a dozen records in the same millisecond, and
  // each stored copy of the same timestamp cost 40 bytes of heap.
  let lastIsoMs = NaN;
  let lastIso = '';
  function nowIso(): string {
    const ms = now();
    if (ms !== lastIsoMs) {
      lastIso = new Date(ms).toISOString();
      lastIsoMs = ms;
    }
    return lastIso;
  }

  function armRealTimer(timer: PendingTimer): void {
    if (mode !== 'real') return;
    const delay = Math.max(0, timer.at - now());
    // setTimeout caps at ~24.8 days; re-arming keeps far timers correct.
    timer.handle = setTimeout(() => {
      if (now() >= timer.at) runDue(() => fire(timer));
      else armRealTimer(timer);
    }, Math.min(delay, 2 ** 31 - 1));
    timer.handle.unref();
  }

  // A timer fires from a real timeout, a microtask or inside advance/set: a throw would crash the
  // process or break the request that moved the clock and skip the timers due after it. So it is
  // caught, counted (GET /__admin/clock) and reported; the owner records its own consequences.
  function fire(timer: PendingTimer): void {
    if (!timers.delete(timer)) return;
    if (timer.handle) clearTimeout(timer.handle);
    try {
      timer.fn();
    } catch (error) {
      recordTimerFailure(failures, now(), error, options.onTimerError);
    }
  }

  /** Fires the timers due now, soonest first: inline (advance/set: the caller's unit of work), or each through `runDue`. */
  function fireDue(through?: (fire: () => void) => void): void {
    const due = [...timers].filter((t) => t.at <= now()).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      if (through) through(() => fire(timer));
      else fire(timer);
    }
  }

  function rearmAll(): void {
    for (const timer of timers) {
      if (timer.handle) clearTimeout(timer.handle);
      armRealTimer(timer);
    }
  }

  return {
    mode,
    now,
    nowIso,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance needs a non-negative duration');
      if (mode === 'real') offset += ms;
      else frozen += ms;
      fireDue();
      rearmAll();
    },
    set(epochMs: number) {
      if (!Number.isFinite(epochMs)) throw new RangeError('set needs an epoch in milliseconds');
      if (mode === 'real') offset = epochMs - Date.now();
      else frozen = epochMs;
      fireDue();
      rearmAll();
    },
    setTimer(atMs: number, fn: () => void, label?: TimerLabel) {
      const timer: PendingTimer = { at: atMs, fn, label };
      timers.add(timer);
      if (atMs <= now()) queueMicrotask(() => runDue(() => fire(timer)));
      else armRealTimer(timer);
      return () => {
        if (timer.handle) clearTimeout(timer.handle);
        timers.delete(timer);
      };
    },
    pending(limit) {
      const labelled: PendingTimerView[] = [];
      for (const timer of timers) if (timer.label) labelled.push({ at: timer.at, ...timer.label });
      return labelled.sort((a, b) => a.at - b.at).slice(0, Math.max(0, limit));
    },
    dispose() {
      for (const timer of timers) if (timer.handle) clearTimeout(timer.handle);
      timers.clear();
    },
    timerFailures: () => ({ ...failures, ...(failures.last ? { last: { ...failures.last } } : {}) }),
    snapshot: () => (mode === 'real' ? { mode, offsetMs: offset } : { mode, nowMs: frozen }),
    restore(saved) {
      // A file written in the other mode still gives back the virtual time it had.
      const target = saved.mode === 'real' ? Date.now() + (saved.offsetMs ?? 0) : (saved.nowMs ?? now());
      if (mode === 'real' && saved.mode === 'real') offset = saved.offsetMs ?? offset;
      else if (mode === 'real') offset = target - Date.now();
      else frozen = target;
      // Time put back by a load (a process pulling another's clock advance, a state import) did
      // not move inside the unit that loaded it: that unit may hold another account's lock, and
      // a timer's work there would race the units that do hold its account. Each due timer is a
      // unit of its own, as one that fell due by itself.
      fireDue(runDue);
      rearmAll();
    },
  };
}

/** Counts a timer function that threw and keeps it as the latest, then tells the reporter (whose own throw is swallowed). */
function recordTimerFailure(failures: TimerFailures, nowMs: number, error: unknown, report?: (error: unknown) => void): void {
  failures.count++;
  failures.last = { at: new Date(nowMs).toISOString(), error: error instanceof Error ? error.message : String(error) };
  try {
    report?.(error);
  } catch {
    // a failing reporter must not undo the catch
  }
}

function parseStart(start: number | string | undefined): number | undefined {
  if (start === undefined) return undefined;
  const ms = typeof start === 'number' ? start : Date.parse(start);
  if (!Number.isFinite(ms)) throw new RangeError(`invalid clock start: ${String(start)}`);
  return ms;
}
