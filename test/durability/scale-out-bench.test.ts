import { describe, expect, it } from 'vitest';
import { medianRuns, serialFraction } from '../../bench/scale-out.mjs';

/**
 * The arithmetic of issue 27's scale-out bench (bench/scale-out.mjs), which its numbers in
 * docs/scaling.md rest on: the median run of several rounds, and the serial fraction with its
 * Amdahl projection.
 */
describe('the scale-out bench', () => {
  it('shows, of several rounds, each configuration\'s run with the median req/s, whole', () => {
    const run = (rps: number, batches: number) => ({ rps, batches });
    const rounds = [
      { one: run(7000, 1), many: run(6100, 10), oneAccount: run(6000, 100) },
      { one: run(6500, 2), many: run(6600, 20), oneAccount: run(5900, 200) },
      { one: run(7200, 3), many: run(5500, 30), oneAccount: run(6200, 300) },
    ];
    expect(medianRuns(rounds)).toEqual({ one: run(7000, 1), many: run(6100, 10), oneAccount: run(6000, 100) });
    expect(medianRuns(rounds.slice(0, 1))).toEqual(rounds[0]);
  });

  it('takes the serial fraction from the time spent across accounts per request, and projects Amdahl from it', () => {
    // 1,000 requests held 100 ms in all across accounts (0.1 ms each); one process serves 2,000 req/s (0.5 ms each).
    const serial = serialFraction({ serialMs: 100, members: 1000, wallMs: 5000 }, 2000);
    expect(serial.holdPerRequestMs).toBeCloseTo(0.1);
    expect(serial.s).toBeCloseTo(0.2);
    expect(serial.lockBusy).toBeCloseTo(0.02);
    expect(serial.projection[0][0]).toBe(4);
    expect(serial.projection[0][1]).toBeCloseTo(1 / (0.2 + 0.8 / 4));
    // A lock held longer than a process needs for a request: no speed-up at all.
    expect(serialFraction({ serialMs: 5000, members: 1000, wallMs: 5000 }, 2000).projection.map(([, x]) => x)).toEqual([1, 1, 1]);
  });
});
