import { PRESUMED_STOPPED_MS } from './process-takeover.js';
import type { PulledRows } from './shared-store.js';
import type { StatePart } from './state-registry.js';

/**
 * The vacuum of a shared store (docs/scaling.md, "Rows that go away"). A deleted item stays in
 * the database as a row without a body, a deleted value as a row without a value, and a replaced
 * scope leaves a marker: that is how the other processes learn of the deletion when they pull
 * the rows changed since they last looked. Once every process has pulled past such a row, it
 * tells nobody anything and can go.
 *
 * How far each process has pulled (its `lastSeen` change number) is kept, with the wall time it
 * said so, in one shared state part, written by every process's heartbeat
 * (process-takeover.ts). The heartbeat's batch takes the smallest of those numbers among the
 * processes heard from within PRESUMED_STOPPED_MS (a process that stopped does not hold the
 * vacuum back for more than that), and the batch's commit deletes the body-less rows and scope
 * markers whose change is at most that number and above the last vacuum's (so each vacuum reads
 * only what is new since the one before: the `change` indexes make it a range scan).
 *
 * A process taken for stopped that comes back (a stalled VM, a debugger) may have missed rows
 * that were vacuumed meanwhile: its next pull brings the part, whose horizon is then past what it
 * had seen, and it loads everything again instead of applying the pull (`missedVacuum`).
 */
export const VACUUM_PART = 'store-vacuum';

/** A process silent this long leaves the list (it reloads if it ever comes back). */
export const FORGOTTEN_AFTER_MS = 60_000;

/** Body-less rows and scope markers with `after < change <= upTo` may go. */
export interface VacuumRange {
  after: number;
  upTo: number;
}

interface VacuumState {
  /** Every row at or below this change number that said "gone" has been deleted. */
  horizon: number;
  /** Process number → how far it had pulled, and when (its wall time) it said so. */
  processes: Record<string, { seen: number; at: number }>;
}

export interface Vacuum {
  /** The shared part: registered by the shared store, pulled and saved like every shared part. */
  readonly part: StatePart<VacuumState>;
  /**
   * In a batch: records that process `me` has applied every change up to `seen` (at wall time
   * `at`), and answers the range every live process has seen, when there is a new one.
   */
  beat(me: number, seen: number, at: number): VacuumRange | undefined;
  /** How many processes were heard from within PRESUMED_STOPPED_MS of `at` (at least 1: the one asking). */
  live(at: number): number;
}

/** Whether a process said how far it had pulled within PRESUMED_STOPPED_MS of `at` (not taken for stopped). */
const heardFrom = (entry: { at: number }, at: number) => at - entry.at < PRESUMED_STOPPED_MS;

/** @example const vacuum = createVacuum(); registry.register(vacuum.part); const range = vacuum.beat(3, lastSeen, Date.now()); */
export function createVacuum(): Vacuum {
  let state: VacuumState = { horizon: 0, processes: {} };
  return {
    part: {
      name: VACUUM_PART,
      description: 'How far each process sharing the store has pulled, and up to which change the rows saying "gone" were vacuumed',
      durable: true,
      storage: 'value',
      sharing: 'shared',
      // Machinery of the shared store, not mock state: a reset must not make a process look behind.
      reset: 'kept',
      snapshot: () => state,
      restore(saved) {
        state = isVacuumState(saved) ? saved : { horizon: 0, processes: {} };
      },
    },
    beat(me, seen, at) {
      const processes: VacuumState['processes'] = {};
      for (const [number, entry] of Object.entries(state.processes)) if (at - entry.at < FORGOTTEN_AFTER_MS) processes[number] = entry;
      processes[me] = { seen, at };
      let upTo = seen;
      for (const entry of Object.values(processes)) if (heardFrom(entry, at)) upTo = Math.min(upTo, entry.seen);
      const after = state.horizon;
      state = { horizon: Math.max(after, upTo), processes };
      return upTo > after ? { after, upTo } : undefined;
    },
    live(at) {
      return Math.max(1, Object.values(state.processes).filter((entry) => heardFrom(entry, at)).length);
    },
  };
}

function isVacuumState(value: unknown): value is VacuumState {
  const candidate = value as VacuumState | null;
  return typeof candidate === 'object' && candidate !== null && Number.isSafeInteger(candidate.horizon) && typeof candidate.processes === 'object' && candidate.processes !== null;
}

/**
 * Whether a pull from `since` may lack rows the vacuum deleted: the vacuum went past `since`
 * (only a process taken for stopped can be that far behind). A first load (`since` 0) lacks nothing.
 */
export function missedVacuum(rows: PulledRows, since: number): boolean {
  if (since === 0) return false;
  const row = rows.parts.find((part) => part.name === VACUUM_PART);
  if (!row) return false;
  try {
    const saved = JSON.parse(row.value) as unknown;
    return isVacuumState(saved) && saved.horizon > since;
  } catch {
    return true;
  }
}

/** The statements of a vacuum (standard SQL: PostgreSQL and SQLite alike), run in the batch's transaction. */
export function vacuumStatements(range: VacuumRange): string[] {
  const { after, upTo } = range;
  if (!Number.isSafeInteger(after) || !Number.isSafeInteger(upTo)) throw new Error(`vacuum range ${after}..${upTo} is not two change numbers`);
  return [
    `DELETE FROM shipmock_items WHERE change > ${after} AND change <= ${upTo} AND body IS NULL`,
    `DELETE FROM shipmock_values WHERE change > ${after} AND change <= ${upTo} AND value IS NULL`,
    `DELETE FROM shipmock_scopes WHERE replaced > ${after} AND replaced <= ${upTo}`,
  ];
}
