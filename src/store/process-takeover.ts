import type { AbandonedWork, OwnedWork, Scope } from './store.js';

/** How often a process says it is alive and looks for work of processes that are not. */
export const HEARTBEAT_MS = 1000;
/** A process not heard from for this long is taken for stopped; its unfinished work is adopted. */
export const PRESUMED_STOPPED_MS = 5000;

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
 * A process that stalls longer than PRESUMED_STOPPED_MS (a debugger, a stopped VM) is taken for
 * stopped too; when it comes back it no longer owns that work, but an attempt it was making may
 * still reach the receiver once more (Shipmock-Delivery-Id lets receivers de-duplicate).
 *
 * Each beat also calls `onBeat` inside its batch: the shared store records there how far this
 * process has pulled, which lets rows that say "gone" be vacuumed (vacuum.ts).
 *
 * @example const stop = watchAbandonedWork({ me: 2, system: () => store.system, transaction: store.transaction }, { records, unfinished, adopt });
 */
export function watchAbandonedWork<T extends OwnedWork>(
  store: { me: number; system: () => Scope; transaction: (work: () => void) => Promise<void>; now?: () => number; onBeat?: (at: number) => void },
  watch: AbandonedWork<T>,
): () => void {
  const { me } = store;
  const now = store.now ?? Date.now;
  let running = false;

  function beat(again = true): void {
    if (running) return;
    running = true;
    let claimed: T[] = [];
    let stopped = new Set<number>();
    /** The owners the claims replaced: put back if the batch does not commit (a claim left in memory would look done). */
    let previous = new Map<T, number | undefined>();
    let failed = false;
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
          if (typeof last === 'number' && at - last < PRESUMED_STOPPED_MS) continue;
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
          failed = true;
          const records = watch.records();
          for (const [item, owner] of previous) {
            item.owner = owner;
            records.update(item);
          }
          // Told only when the beat made at once after it fails too.
          if (!again) watch.onError?.(error);
        },
      )
      .finally(() => {
        running = false;
        // Once more at once: a shared store refuses a beat that lost a race to another process's.
        if (failed && again) beat(false);
      });
  }

  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  beat();
  return () => clearInterval(timer);
}
