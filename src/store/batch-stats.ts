import type { SharedBackend } from './shared-store.js';

/**
 * What a shared store's batches cost this process since it started (issue 27, measured by
 * `npm run bench -- --store postgres` and `--scale-out` through GET /__admin/store/batches).
 * Counters only: nothing here changes what a batch does.
 */
export interface BatchStatsSnapshot {
  /** Batches committed (or whose commit failed): each held the database's lock once. */
  batches: number;
  /** Units of work that joined a batch: requests and background work (timers, heartbeats). */
  members: number;
  /** Total ms from sending a batch's BEGIN (with the lock and the pull) until it came back. */
  lockWaitMs: number;
  /** Total ms from having the lock until the COMMIT that releases it came back. */
  lockHoldMs: number;
}

export interface BatchStats {
  /** A unit of work joins a batch. */
  member(): void;
  /** The backend, its `open` and `commit` timed into these counters. */
  measure(backend: SharedBackend): SharedBackend;
  snapshot(): BatchStatsSnapshot;
}

/**
 * @example
 * const stats = createBatchStats();
 * const backend = stats.measure(createPostgresBackend(url, client));
 * stats.snapshot(); // { batches: 0, members: 0, lockWaitMs: 0, lockHoldMs: 0 }
 */
export function createBatchStats(): BatchStats {
  const counts: BatchStatsSnapshot = { batches: 0, members: 0, lockWaitMs: 0, lockHoldMs: 0 };
  return {
    member() {
      counts.members++;
    },
    measure: (backend) => measuredBackend(backend, counts),
    snapshot: () => ({ ...counts, lockWaitMs: Math.round(counts.lockWaitMs), lockHoldMs: Math.round(counts.lockHoldMs) }),
  };
}

/**
 * Times open (lock wait) and commit (the end of holding). A process opens its batches one after
 * another (the next opens once the one before it is done), so one `openedAt` is enough.
 */
function measuredBackend(backend: SharedBackend, counts: BatchStatsSnapshot): SharedBackend {
  let openedAt = 0;
  return {
    async open(since) {
      const sent = performance.now();
      const opened = await backend.open(since);
      openedAt = performance.now();
      counts.lockWaitMs += openedAt - sent;
      return opened;
    },
    async commit(writes) {
      try {
        await backend.commit(writes);
      } finally {
        counts.batches++;
        counts.lockHoldMs += performance.now() - openedAt;
      }
    },
    abandon: () => backend.abandon(),
    feed<T>(name: string, capacity: number, origin: number, onError: (error: Error) => void) {
      return backend.feed<T>(name, capacity, origin, onError);
    },
    close: () => backend.close(),
  };
}
