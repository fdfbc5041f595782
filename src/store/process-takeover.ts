import { OUTSIDE_LOCK_CONFLICT, type AbandonedWork, type OwnedWork, type Scope } from './store.js';

/** How often a process says it is alive and looks for work of processes that are not. */
export const HEARTBEAT_MS = 1000;
/** A process not heard from for this long is taken for stopped; its unfinished work is adopted. */
export const PRESUMED_STOPPED_MS = 5000;
/**
 * Where the store can tell that a process's database session is still open (PostgreSQL), a
 * silent process whose session is open is only slow (its heartbeat waits behind its batches on a
 * loaded host): its work is adopted only once it has been silent this long (taken for hung).
 */
export const PRESUMED_HUNG_MS = 60_000;

/**
 * Beats made at once after a beat that lost a race, before the loss is reported. Every beat
 * writes the shared vacuum part, so beats of processes that commit at the same moment lose to
 * each other (shared-store.ts refuses all but the first: OUTSIDE_LOCK_CONFLICT): processes
 * started together beat together, and of N such beats one wins each round, so the last waits
 * N − 1 rounds. A beat that failed otherwise (the database away) is made again once.
 */
export const BEAT_RETRIES = 8;

/** The system-scope value a process beats in (only that process writes it). */
export const heartbeatKey = (processNumber: number) => `process:${processNumber}:heartbeat`;

/**
 * With a shared store, each unfinished piece of owned work (a webhook delivery) belongs to one
 * process (the one whose request published the event), and only that one does it. Every process
 * writes a heartbeat (wall time) into the store once a second; in the same batch it looks for
 * unfinished work whose owner has not beaten for PRESUMED_STOPPED_MS, and claims it by writing
 * itself as its owner. The first claim committed wins: a shared store checks, at the commit of a
 * claim, that nobody changed the claimed records since its batch pulled them (shared-store.ts),
 * so a second claimer's commit is refused and it sees the new owner; the claimer then adopts it (the webhook dispatcher records
 * an attempt the stopped process had on the wire before it retries).
 *
 * Silence alone does not tell a stopped process from a slow one: on a loaded host a heartbeat
 * waits behind its process's batches for seconds, and adopting a live process's work sends an
 * attempt it already made once more. So where the store can tell whose database session is open
 * (PostgreSQL: each process names its connections; a killed process's close with it), a silent
 * owner's work is adopted only once its session is gone, or after PRESUMED_HUNG_MS of silence.
 * Without that (SQLite's shared layout), a process that stalls longer than PRESUMED_STOPPED_MS (a
 * debugger, a stopped VM) is taken for stopped. Either way, when it comes back it no longer owns
 * that work, and an attempt it was making may still reach the receiver once more
 * (Shipmock-Delivery-Id lets receivers de-duplicate).
 *
 * Each beat also calls `onBeat` inside its batch: the shared store records there how far this
 * process has pulled, which lets rows that say "gone" be vacuumed (vacuum.ts).
 *
 * @example const stop = watchAbandonedWork({ me: 2, system: () => store.system, transaction: store.transaction }, { records, unfinished, adopt });
 */
export function watchAbandonedWork<T extends OwnedWork>(
  store: { me: number; system: () => Scope; transaction: (work: () => void) => Promise<void>; now?: () => number; onBeat?: (at: number) => void; live?: () => Promise<ReadonlySet<number>> },
  watch: AbandonedWork<T>,
): () => void {
  const { me } = store;
  const now = store.now ?? Date.now;
  let running = false;
  /** The processes whose session was open at `at` (asked only once a silent owner is seen; used by the beats after). */
  let sessions: { at: number; live: ReadonlySet<number> } | undefined;
  let askSessions = false;

  /** Whether a silent owner's work is abandoned: silent long enough, and (where the store can tell) its session closed or it silent for PRESUMED_HUNG_MS. */
  function abandoned(owner: number, silentMs: number, at: number): boolean {
    if (silentMs < PRESUMED_STOPPED_MS) return false;
    if (!store.live || silentMs >= PRESUMED_HUNG_MS) return true;
    // Sessions not known (or known before this silence began): ask, and decide at a later beat.
    if (!sessions || at - sessions.at > HEARTBEAT_MS * 3) {
      askSessions = true;
      return false;
    }
    return !sessions.live.has(owner);
  }

  function beat(retriesLeft = BEAT_RETRIES): void {
    if (running) return;
    running = true;
    let claimed: T[] = [];
    let stopped = new Set<number>();
    /** The owners the claims replaced: put back if the batch does not commit (a claim left in memory would look done). */
    let previous = new Map<T, number | undefined>();
    /** The retries left to the beat made at once after this one failed; undefined: none is made. */
    let retry: number | undefined;
    store
      .transaction(() => {
        claimed = [];
        stopped = new Set();
        previous = new Map();
        const values = store.system().values;
        const at = now();
        values.set(heartbeatKey(me), at);
        // The shared store records how far this process has pulled, in the same batch (vacuum.ts).
        store.onBeat?.(at);
        const records = watch.records();
        for (const item of records.values()) {
          if (!watch.unfinished(item) || item.owner === undefined || item.owner === me) continue;
          const last = values.get(heartbeatKey(item.owner));
          if (typeof last === 'number' && !abandoned(item.owner, at - last, at)) continue;
          // Claimed in this batch: the commit makes it ours before anything is done with it.
          stopped.add(item.owner);
          previous.set(item, item.owner);
          item.owner = me;
          records.update(item);
          claimed.push(item);
        }
      })
      .then(
        () => {
          if (claimed.length) watch.adopt(claimed, [...stopped]);
        },
        (error: Error) => {
          const records = watch.records();
          for (const [item, owner] of previous) {
            item.owner = owner;
            records.update(item);
          }
          // Told only when the beats made at once after it fail too.
          if (!retriesLeft) watch.onError?.(error);
          else retry = error.message === OUTSIDE_LOCK_CONFLICT ? retriesLeft - 1 : 0;
        },
      )
      .finally(() => {
        running = false;
        if (askSessions && store.live) {
          askSessions = false;
          const asked = now();
          // Not known (the database could not be asked): asked again at the next beat that needs it;
          // meanwhile a silent owner's work is taken only after PRESUMED_HUNG_MS.
          store.live().then(
            (live) => (sessions = { at: asked, live }),
            () => (sessions = undefined),
          );
        }
        // Again at once: a shared store refuses a beat that lost a race to another process's.
        if (retry !== undefined) beat(retry);
      });
  }

  const timer = setInterval(() => beat(), HEARTBEAT_MS);
  timer.unref();
  beat();
  return () => clearInterval(timer);
}
