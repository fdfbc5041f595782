import type { Clock } from '../clock/clock.js';

/**
 * Fixed-window request counting per credential, on the virtual clock (so a test can advance
 * time past a window instead of waiting).
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (non-negative integer, X-RateLimit-Reset). */
  resetSeconds: number;
  limited: boolean;
}

export interface RateLimiter {
  /** Counts one request for `key` and reports the window after it. */
  consume(key: string): RateLimitState;
  /** Reports the window without counting (preflights, 429 bodies). */
  peek(key: string): RateLimitState;
  configure(config: { limit: number; windowMs: number }): void;
  readonly config: { limit: number; windowMs: number };
  reset(): void;
}

interface Window {
  startedAt: number;
  count: number;
}

/** @example createRateLimiter({ clock, limit: 600, windowMs: 60_000 }).consume('company:…') */
export function createRateLimiter(options: { clock: Clock; limit: number; windowMs: number }): RateLimiter {
  const config = { limit: options.limit, windowMs: options.windowMs };
  const windows = new Map<string, Window>();

  function current(key: string): Window {
    const now = options.clock.now();
    let window = windows.get(key);
    if (!window || now >= window.startedAt + config.windowMs || now < window.startedAt) {
      window = { startedAt: now, count: 0 };
      windows.set(key, window);
    }
    return window;
  }

  function report(window: Window): RateLimitState {
    const msLeft = window.startedAt + config.windowMs - options.clock.now();
    return {
      limit: config.limit,
      remaining: Math.max(0, config.limit - window.count),
      resetSeconds: Math.max(0, Math.ceil(msLeft / 1000)),
      limited: window.count > config.limit,
    };
  }

  return {
    consume(key) {
      const window = current(key);
      window.count++;
      return report(window);
    },
    peek: (key) => report(current(key)),
    configure(next) {
      config.limit = next.limit;
      config.windowMs = next.windowMs;
      windows.clear();
    },
    config,
    reset: () => windows.clear(),
  };
}
