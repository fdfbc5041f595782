import { describe, expect, it } from 'vitest';
import { backoffDelay } from './retry-schedule.js';

const defaults = { seed: 1, retryBaseMs: 1000, jitter: 0.2 };

describe('backoffDelay', () => {
  it.each([1, 2, 3, 4, 5])('after failed attempt %i waits base·2^(n−1) within ±20 %', (n) => {
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelay(defaults, `delivery-${i}`, n);
      expect(delay).toBeGreaterThanOrEqual(0.8 * 1000 * 2 ** (n - 1));
      expect(delay).toBeLessThanOrEqual(1.2 * 1000 * 2 ** (n - 1));
    }
  });

  it('is reproducible for the same seed, delivery and attempt', () => {
    expect(backoffDelay(defaults, 'd-1', 3)).toBe(backoffDelay(defaults, 'd-1', 3));
  });

  it('actually jitters: deliveries, attempts and seeds give different waits', () => {
    const perDelivery = new Set(Array.from({ length: 50 }, (_, i) => backoffDelay(defaults, `d-${i}`, 1)));
    expect(perDelivery.size).toBeGreaterThan(40);
    const perSeed = new Set(Array.from({ length: 50 }, (_, seed) => backoffDelay({ ...defaults, seed }, 'd-1', 1)));
    expect(perSeed.size).toBeGreaterThan(40);
  });

  it('spreads over the whole jitter band', () => {
    const delays = Array.from({ length: 1000 }, (_, i) => backoffDelay(defaults, `d-${i}`, 1));
    expect(Math.min(...delays)).toBeLessThan(820);
    expect(Math.max(...delays)).toBeGreaterThan(1180);
  });

  it('without jitter is the plain doubling 1, 2, 4, 8, 16 s', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay({ ...defaults, jitter: 0 }, 'd', n))).toEqual([1000, 2000, 4000, 8000, 16000]);
  });
});
