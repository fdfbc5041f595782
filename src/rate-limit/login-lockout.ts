import type { Clock } from '../clock/clock.js';
import { createRateLimiter, type RateLimitState, type Window, type WindowStore } from './rate-limiter.js';

export interface LoginLockoutConfig {
  /** Failed client-credential checks allowed per (client id, address) in one window. */
  failures: number;
  windowMs: number;
}

/** (client id, address) pairs held at once; the oldest is evicted beyond it. */
export const MAX_LOCKOUT_KEYS = 10_000;

/**
 * Slows guessing of client secrets: after `failures` wrong secrets for one client id from one
 * address, that pair is locked until its window ends. The pair, not the client id, is the key:
 * a stranger guessing from elsewhere cannot lock the real client out, and the real client's
 * successful login does not clear the stranger's count.
 */
export interface LoginLockout {
  /** The lock's window (remaining 0) while the pair is locked, else undefined. */
  locked(clientId: string, address: string): RateLimitState | undefined;
  failed(clientId: string, address: string): void;
  /** A right secret from this address clears this pair's failures (no one else's). */
  succeeded(clientId: string, address: string): void;
  readonly config: LoginLockoutConfig;
  readonly size: number;
  reset(): void;
  /** The (client id, address) windows held, oldest first. */
  windows(): [string, Window][];
}

/** @example createLoginLockout({ clock, failures: 10, windowMs: 900_000 }).locked('client', '127.0.0.1') // undefined */
export function createLoginLockout(options: LoginLockoutConfig & { clock: Clock; maxKeys?: number; windows?: WindowStore }): LoginLockout {
  const config: LoginLockoutConfig = { failures: options.failures, windowMs: options.windowMs };
  const windows = createRateLimiter({ clock: options.clock, limit: config.failures, windowMs: config.windowMs, maxKeys: options.maxKeys ?? MAX_LOCKOUT_KEYS, windows: options.windows });
  // JSON keeps the pair unambiguous whatever characters a client id holds.
  const keyOf = (clientId: string, address: string) => JSON.stringify([clientId, address]);
  return {
    locked(clientId, address) {
      const state = windows.peek(keyOf(clientId, address));
      return state.remaining === 0 ? { ...state, limited: true } : undefined;
    },
    failed: (clientId, address) => void windows.consume(keyOf(clientId, address)),
    succeeded: (clientId, address) => windows.forget(keyOf(clientId, address)),
    config,
    get size() {
      return windows.size;
    },
    reset: () => windows.reset(),
    windows: () => windows.windows(),
  };
}
