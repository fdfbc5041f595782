import { describe, expect, it } from 'vitest';
import { PRESUMED_STOPPED_MS } from './process-takeover.js';
import type { PulledRows } from './shared-store.js';
import { createVacuum, FORGOTTEN_AFTER_MS, missedVacuum, VACUUM_PART, vacuumStatements } from './vacuum.js';

const pulled = (part?: unknown): PulledRows => ({ scopes: [], items: [], collections: [], values: [], parts: part === undefined ? [] : [{ name: VACUUM_PART, value: JSON.stringify(part) }] });

describe('the vacuum horizon', () => {
  it('is the least change every process heard from has pulled, and each range starts where the last one ended', () => {
    const vacuum = createVacuum();
    const t = 1_000_000;
    expect(vacuum.beat(1, 10, t)).toEqual({ after: 0, upTo: 10 });
    // Process 2 is behind: nothing new may go.
    expect(vacuum.beat(2, 4, t + 100)).toBeUndefined();
    expect(vacuum.beat(1, 30, t + 1000)).toBeUndefined();
    expect(vacuum.part.snapshot().horizon).toBe(10);
    expect(vacuum.beat(2, 25, t + 1100)).toEqual({ after: 10, upTo: 25 });
    // Process 2 has not pulled further since: the horizon stays.
    expect(vacuum.beat(1, 40, t + 2000)).toBeUndefined();
    expect(vacuum.part.snapshot().horizon).toBe(25);
  });

  it('does not wait for a process silent for the takeover timeout, and forgets it after a minute', () => {
    const vacuum = createVacuum();
    const t = 5_000_000;
    expect(vacuum.beat(2, 3, t)).toEqual({ after: 0, upTo: 3 });
    expect(vacuum.beat(1, 10, t)).toBeUndefined();
    // Process 2 stalls: heard from 5 s ago minus a millisecond, it still holds the vacuum back; then no more.
    expect(vacuum.beat(1, 20, t + PRESUMED_STOPPED_MS - 1)).toBeUndefined();
    expect(vacuum.beat(1, 30, t + PRESUMED_STOPPED_MS)).toEqual({ after: 3, upTo: 30 });
    expect(Object.keys(vacuum.part.snapshot().processes).sort()).toEqual(['1', '2']);
    vacuum.beat(1, 31, t + FORGOTTEN_AFTER_MS);
    expect(Object.keys(vacuum.part.snapshot().processes)).toEqual(['1']);
  });

  it('counts the processes heard from within the takeover timeout, and at least the one asking', () => {
    const vacuum = createVacuum();
    const t = 9_000_000;
    expect(vacuum.live(t)).toBe(1);
    vacuum.beat(1, 5, t);
    vacuum.beat(2, 5, t + 1000);
    vacuum.beat(3, 5, t + 2000);
    expect(vacuum.live(t + 2000)).toBe(3);
    // Process 1 last beat PRESUMED_STOPPED_MS ago: taken for stopped, not counted.
    expect(vacuum.live(t + PRESUMED_STOPPED_MS)).toBe(2);
    expect(vacuum.live(t + 60_000)).toBe(1);
  });

  it('survives what a pull gives back, and takes nothing it cannot read for a state', () => {
    const vacuum = createVacuum();
    vacuum.part.restore!({ horizon: 42, processes: { 7: { seen: 50, at: 1 } } });
    expect(vacuum.part.snapshot().horizon).toBe(42);
    vacuum.part.restore!({ nonsense: true } as never);
    expect(vacuum.part.snapshot()).toEqual({ horizon: 0, processes: {} });
  });
});

describe('a pull behind the vacuum', () => {
  it('is one whose start is below the horizon it brings; a first load never is', () => {
    expect(missedVacuum(pulled({ horizon: 20, processes: {} }), 19)).toBe(true);
    expect(missedVacuum(pulled({ horizon: 20, processes: {} }), 20)).toBe(false);
    expect(missedVacuum(pulled({ horizon: 20, processes: {} }), 0)).toBe(false);
    expect(missedVacuum(pulled(), 5)).toBe(false);
  });
});

describe('the vacuum statements', () => {
  it('delete only the rows saying "gone" in the range, and refuse anything but change numbers', () => {
    expect(vacuumStatements({ after: 3, upTo: 9 })).toEqual([
      'DELETE FROM shipmock_items WHERE change > 3 AND change <= 9 AND body IS NULL',
      'DELETE FROM shipmock_values WHERE change > 3 AND change <= 9 AND value IS NULL',
      'DELETE FROM shipmock_scopes WHERE replaced > 3 AND replaced <= 9',
    ]);
    expect(() => vacuumStatements({ after: 0, upTo: '1; DROP TABLE x' as never })).toThrow(/not two change numbers/);
  });
});
