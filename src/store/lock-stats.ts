/**
 * What the batches of a shared store cost in locks, counted since the process started (read by
 * benchmarks through `lockStats()` of a shared store; docs/scaling.md). Times are milliseconds:
 * `openMs` includes waiting for the batch's lock; `wideMs` and `sequencedCommitMs` are what this
 * process saw (a wide batch from asking to commit; commits' round trips), upper bounds of the
 * serial sections; `wideHeldMs` and `headMs` are those sections themselves, timed by the
 * database (what `serialMs` reports).
 */
export interface LockStats {
  batches: { wide: number; account: number; process: number; read: number };
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
  /** Read batches (no lock): their pulls' round trips; those that wrote and committed; those refused (members ran again locked). */
  readPullMs: number;
  readCommits: number;
  readRetries: number;
  /** Read batches whose pull counted their requests ahead in their accounts' rate-limit windows (a change number each: in `sequencedCommits` and `headMs`). */
  countedAhead: number;
  /**
   * The sections every process takes in turn, by the database's clock around the exact
   * statements (postgres-store.ts): commits of account, read and process batches holding the
   * head row (taking the next change number through COMMIT), and wide batches holding the wide
   * lock exclusively (SQLite: the whole batch, every batch being wide there).
   */
  headMs: number;
  wideHeldMs: number;
}

export function emptyLockStats(): LockStats {
  return { batches: { wide: 0, account: 0, process: 0, read: 0 }, members: 0, openMs: 0, heldMs: 0, wideMs: 0, sequencedCommits: 0, sequencedCommitMs: 0, conflicts: 0, readPullMs: 0, readCommits: 0, readRetries: 0, countedAhead: 0, headMs: 0, wideHeldMs: 0 };
}

/** What GET /__admin/store/batches reports (contract/admin.yaml StoreBatches), in whole ms. */
export interface BatchStatsSnapshot {
  /** Batches opened, each holding its lock once. */
  batches: number;
  /** By lock: wide (everything), account (one account), process (a heartbeat). */
  byLock: Omit<LockStats['batches'], 'read'>;
  /** Units of work that joined a batch: requests and background work (timers, heartbeats). */
  members: number;
  /** Asking for a batch's lock until it is held and pulled (lock wait plus the pull's round trip). */
  lockWaitMs: number;
  /** Holding it: from the pull to the COMMIT coming back. */
  lockHoldMs: number;
  /**
   * Time in sections that span accounts, measured by the database around the exact statements:
   * wide batches holding the wide lock, plus other commits holding the head row (the change number).
   */
  serialMs: number;
  /** Commits refused because a row written outside the batch's lock had changed meanwhile. */
  conflicts: number;
  /** Reads without a lock: batches that wrote after all and committed under their accounts' locks, and those that ran again locked. */
  reads: { batches: number; committed: number; retried: number; pullMs: number };
  /** The process that counted them, among those sharing the store: each process counts its own. */
  process: number;
}

/** The counters as GET /__admin/store/batches gives them. */
export function batchStatsOf(stats: LockStats, processNumber: number): BatchStatsSnapshot {
  const { wide, account, process, read } = stats.batches;
  return {
    batches: wide + account + process + read,
    byLock: { wide, account, process },
    members: stats.members,
    lockWaitMs: Math.round(stats.openMs),
    lockHoldMs: Math.round(stats.heldMs),
    serialMs: Math.round(stats.wideHeldMs + stats.headMs),
    conflicts: stats.conflicts,
    reads: { batches: stats.batches.read, committed: stats.readCommits, retried: stats.readRetries, pullMs: Math.round(stats.readPullMs) },
    process: processNumber,
  };
}
