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
  wideMs: number;
  /** Commits that wrote something (took a change number), and their round trips. */
  sequencedCommits: number;
  sequencedCommitMs: number;
  /** Commits refused because a row written outside the batch's lock had changed. */
  conflicts: number;
}

export function emptyLockStats(): LockStats {
  return { batches: { wide: 0, account: 0, process: 0 }, members: 0, openMs: 0, wideMs: 0, sequencedCommits: 0, sequencedCommitMs: 0, conflicts: 0 };
}
