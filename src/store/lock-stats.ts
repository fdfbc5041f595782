/**
 * What the batches of a shared store cost in locks, counted since the process started (read by
 * benchmarks through `lockStats()` of a shared store; docs/scaling.md). Times are wall-clock
 * milliseconds of this process: `openMs` includes waiting for the batch's lock; `wideMs` is time
 * a wide batch held everything (no other batch ran anywhere); `sequencedCommitMs` bounds the time
 * commits held the head row (commits of all processes take turns there). Together those two are
 * the serial fraction of a cluster's work.
 */
export interface LockStats {
  batches: { wide: number; account: number; process: number };
  /** Units of work that ran in batches. */
  members: number;
  openMs: number;
  /** Time batches held their lock: from having it (and the pull) to their COMMIT coming back. */
  heldMs: number;
  wideMs: number;
  /** Commits that wrote something (took a change number), and their round trips. */
  sequencedCommits: number;
  sequencedCommitMs: number;
  /** Commits refused because a row written outside the batch's lock had changed. */
  conflicts: number;
}

export function emptyLockStats(): LockStats {
  return { batches: { wide: 0, account: 0, process: 0 }, members: 0, openMs: 0, heldMs: 0, wideMs: 0, sequencedCommits: 0, sequencedCommitMs: 0, conflicts: 0 };
}

/** What GET /__admin/store/batches reports (contract/admin.yaml StoreBatches), in whole ms. */
export interface BatchStatsSnapshot {
  /** Batches opened, each holding its lock once. */
  batches: number;
  /** By lock: wide (everything), account (one account), process (a heartbeat). */
  byLock: LockStats['batches'];
  /** Units of work that joined a batch: requests and background work (timers, heartbeats). */
  members: number;
  /** Asking for a batch's lock until it is held and pulled (lock wait plus the pull's round trip). */
  lockWaitMs: number;
  /** Holding it: from the pull to the COMMIT coming back. */
  lockHoldMs: number;
  /** Time in sections that span accounts: wide batches held, plus commits taking their turn for a change number. */
  serialMs: number;
  /** Commits refused because a row written outside the batch's lock had changed meanwhile. */
  conflicts: number;
}

/** The counters as GET /__admin/store/batches gives them. */
export function batchStatsOf(stats: LockStats): BatchStatsSnapshot {
  const { wide, account, process } = stats.batches;
  return {
    batches: wide + account + process,
    byLock: { ...stats.batches },
    members: stats.members,
    lockWaitMs: Math.round(stats.openMs),
    lockHoldMs: Math.round(stats.heldMs),
    serialMs: Math.round(stats.wideMs + stats.sequencedCommitMs),
    conflicts: stats.conflicts,
  };
}
