import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClock, type Clock } from './clock.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const clocks: Clock[] = [];
const manual = (options: Parameters<typeof createClock>[0] = {}) => {
  const clock = createClock({ mode: 'manual', ...options });
  clocks.push(clock);
  return clock;
};
afterEach(() => {
  clocks.splice(0).forEach((c) => c.dispose());
  vi.useRealTimers();
});
const settle = () => new Promise((resolve) => queueMicrotask(() => resolve(undefined)));

describe('clock, manual mode', () => {
  it('stands still at its start (2026-01-01 by default) until advanced or set', () => {
    const clock = manual();
    expect(clock.now()).toBe(START);
    expect(clock.nowIso()).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(90_000);
    expect(clock.now()).toBe(START + 90_000);
    clock.set(Date.parse('2030-05-01T12:00:00Z'));
    expect(clock.nowIso()).toBe('2030-05-01T12:00:00.000Z');
    expect(manual({ start: '2027-02-03T04:05:06Z' }).nowIso()).toBe('2027-02-03T04:05:06.000Z');
  });

  it('refuses to go back by advance, a non-finite time, and a start that is not a date', () => {
    const clock = manual();
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.set(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => createClock({ mode: 'manual', start: 'yesterday' })).toThrow('invalid clock start: yesterday');
  });

  it('fires timers when time passes them, in due order, and each once', () => {
    const clock = manual();
    const fired: string[] = [];
    clock.setTimer(START + 3_000, () => fired.push('c'));
    clock.setTimer(START + 1_000, () => fired.push('a'));
    clock.setTimer(START + 2_000, () => fired.push('b'));
    clock.advance(1_500);
    expect(fired).toEqual(['a']);
    clock.advance(10_000);
    expect(fired).toEqual(['a', 'b', 'c']);
    clock.advance(10_000);
    expect(fired).toEqual(['a', 'b', 'c']);
  });

  it('fires a timer already due on the next microtask, and not a cancelled one', async () => {
    const clock = manual();
    const fired: string[] = [];
    clock.setTimer(START, () => fired.push('due'));
    const cancel = clock.setTimer(START + 1_000, () => fired.push('cancelled'));
    expect(fired).toEqual([]);
    await settle();
    expect(fired).toEqual(['due']);
    cancel();
    clock.advance(5_000);
    expect(fired).toEqual(['due']);
  });

  it('catches a throwing timer, counts it, reports it, and still fires the others', () => {
    const reported: unknown[] = [];
    const clock = manual({ onTimerError: (error) => reported.push(error) });
    const fired: string[] = [];
    clock.setTimer(START + 1, () => {
      throw new Error('boom');
    });
    clock.setTimer(START + 2, () => fired.push('after'));
    expect(() => clock.advance(10)).not.toThrow();
    expect(fired).toEqual(['after']);
    expect(reported).toHaveLength(1);
    expect(clock.timerFailures()).toEqual({ count: 1, last: { at: '2026-01-01T00:00:00.010Z', error: 'boom' } });
  });

  it('survives a reporter that throws too', () => {
    const clock = manual({ onTimerError: () => { throw new Error('reporter'); } });
    clock.setTimer(START + 1, () => { throw new Error('timer'); });
    expect(() => clock.advance(1)).not.toThrow();
    expect(clock.timerFailures().count).toBe(1);
  });

  it('snapshots and restores its time; due timers fire on restore', () => {
    const clock = manual();
    clock.advance(60_000);
    const saved = clock.snapshot();
    expect(saved).toEqual({ mode: 'manual', nowMs: START + 60_000 });
    const other = manual();
    let fired = false;
    other.setTimer(START + 30_000, () => (fired = true));
    other.restore(saved);
    expect(other.now()).toBe(START + 60_000);
    expect(fired).toBe(true);
  });

  it('runs the timers a restore makes due through runDue, each on its own, not inside the caller', () => {
    const queued: (() => void)[] = [];
    const clock = createClock({ mode: 'manual', start: START, runDue: (fire) => queued.push(fire) });
    clocks.push(clock);
    const fired: string[] = [];
    clock.setTimer(START + 2_000, () => fired.push('second'));
    clock.setTimer(START + 1_000, () => fired.push('first'));
    clock.restore({ mode: 'manual', nowMs: START + 5_000 });
    expect(fired).toEqual([]);
    expect(queued).toHaveLength(2);
    for (const fire of queued) fire();
    expect(fired).toEqual(['first', 'second']);
    // advance still fires inside the caller: its unit holds what the timers write
    clock.setTimer(START + 6_000, () => fired.push('advanced'));
    clock.advance(1_000);
    expect(fired).toEqual(['first', 'second', 'advanced']);
  });

  it('forgets every timer on dispose', () => {
    const clock = manual();
    let fired = false;
    clock.setTimer(START + 1, () => (fired = true));
    clock.dispose();
    clock.advance(10);
    expect(fired).toBe(false);
  });
});

describe('clock, real mode', () => {
  it('runs with wall time plus the offset that advance and set move', () => {
    vi.useFakeTimers({ now: START });
    const clock = createClock({ mode: 'real' });
    clocks.push(clock);
    vi.advanceTimersByTime(1_000);
    expect(clock.now()).toBe(START + 1_000);
    clock.advance(3_600_000);
    expect(clock.now()).toBe(START + 3_601_000);
    expect(clock.snapshot()).toEqual({ mode: 'real', offsetMs: 3_600_000 });
  });

  it('fires a timer by a real timeout when wall time reaches it', () => {
    vi.useFakeTimers({ now: START });
    const clock = createClock({ mode: 'real' });
    clocks.push(clock);
    let fired = false;
    clock.setTimer(START + 5_000, () => (fired = true));
    vi.advanceTimersByTime(4_999);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(true);
  });

  it('fires a far timer early when the clock is advanced past it', () => {
    vi.useFakeTimers({ now: START });
    const clock = createClock({ mode: 'real' });
    clocks.push(clock);
    let fired = false;
    clock.setTimer(START + 30 * 86_400_000, () => (fired = true));
    clock.advance(31 * 86_400_000);
    expect(fired).toBe(true);
  });
});
