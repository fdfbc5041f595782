import { createRandom, hashString } from '../random/random.js';

/**
 * Exponential backoff with seeded jitter. After failed attempt n (1-based) the next attempt
 * waits `base · 2^(n−1)` ms, scaled by a factor in [1 − jitter, 1 + jitter]. With the defaults
 * (1 s, ±20 %) the waits are about 1, 2, 4, 8 and 16 s.
 *
 * The jitter factor is drawn from a stream derived from the seed, the delivery id and the
 * attempt number — not from a shared stream — so the schedule of one delivery does not depend
 * on how deliveries of other channels happened to interleave. Same seed, same schedule.
 *
 * @example backoffDelay({ seed: 1, retryBaseMs: 1000, jitter: 0.2 }, deliveryId, 1) // ≈ 800..1200
 */
export function backoffDelay(options: { seed: number; retryBaseMs: number; jitter: number }, deliveryId: string, failedAttempt: number): number {
  const nominal = options.retryBaseMs * 2 ** (failedAttempt - 1);
  const u = createRandom(hashString(`${options.seed}:webhook-backoff:${deliveryId}:${failedAttempt}`)).next();
  return Math.round(nominal * (1 - options.jitter + 2 * options.jitter * u));
}
