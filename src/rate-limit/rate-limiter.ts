import type { Clock } from '../clock/clock.js';
import type { CountedWindow } from '../store/store.js';

/**
 * Fixed-window request counting per key, on the virtual clock (so a test can advance time past
 * a window instead of waiting). The map of windows is bounded: a window that has ended is
 * dropped the next time the limiter is used (windows are kept in the order they started, so the
 * sweep stops at the first one still running), and when `maxKeys` windows are running the one
 * that started first is evicted — an attacker who mints endless keys costs a fixed amount of
 * memory, and at worst gives some other key a fresh window.
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (non-negative integer, X-RateLimit-Reset). */
  resetSeconds: number;
  limited: boolean;
}

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Counts one request for `key` and reports the window after it. */
  consume(key: string): RateLimitState;
  /** Reports the window without counting (preflights, 429 bodies); stores nothing for an unknown key. */
  peek(key: string): RateLimitState;
  /** Drops the windows that have ended (consume does this itself). */
  sweep(): void;
  /** Drops the window of `key` (a successful login clears its own failures). */
  forget(key: string): void;
  configure(config: RateLimitConfig): void;
  readonly config: RateLimitConfig;
  /** Windows held right now (ended ones are swept on the next use). */
  readonly size: number;
  reset(): void;
  /** The windows held, oldest first (what the state registry compares). */
  windows(): [string, Window][];
}

/**
 * Where a limiter keeps its windows: a Map by default. A shared store passes one over store
 * values (Store.counters, src/store/values-under-prefix.ts), so that every process counts in the same windows and a batch
 * writes only the windows it changed. Iteration is in insertion order.
 */
export interface WindowStore {
  get(key: string): Window | undefined;
  set(key: string, window: Window): void;
  delete(key: string): boolean;
  clear(): void;
  readonly size: number;
  /** [key, window] pairs, oldest first. */
  entries(): IterableIterator<[string, Window]>;
}

export interface RateLimiterOptions extends RateLimitConfig {
  clock: Clock;
  /** Default: a Map of this process. */
  windows?: WindowStore;
  /** Most windows held at once; beyond it the oldest is evicted. Default 100,000. */
  maxKeys?: number;
}

/** A window: when it started and the requests counted in it (a store counts some of them ahead, store.ts). */
export type Window = CountedWindow;

/**
 * The limit of `--rate-limit off`: no window is counted or kept, and the headers report the whole
 * limit left. Why not count: the counts only fed X-RateLimit-Remaining, and with a shared store
 * each counted request writes its window row, so every GET of a load test wrote: a commit after
 * its pull (until 2026-11-27), now its accounts' locks and a turn at the head row in its pull
 * (docs/scaling.md).
 */
export const UNLIMITED = 2_147_483_647;

/** A default that holds every principal of a busy mock: ~100 bytes a window, ~10 MB at most. */
export const DEFAULT_MAX_KEYS = 100_000;

/** @example createRateLimiter({ clock, limit: 600, windowMs: 60_000 }).consume('company:…') */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const config: RateLimitConfig = { limit: options.limit, windowMs: options.windowMs };
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
  // Insertion order = start order: a renewed window is deleted and set again, to the end.
  const windows: WindowStore = options.windows ?? new Map<string, Window>();

  const ended = (window: Window, now: number) => now >= window.startedAt + config.windowMs || now < window.startedAt;

  function sweep(now: number): void {
    for (const [key, window] of windows.entries()) {
      if (!ended(window, now)) return;
      windows.delete(key);
    }
  }

  function current(key: string, now: number): Window | undefined {
    const window = windows.get(key);
    if (window && !ended(window, now)) return window;
    if (window) windows.delete(key);
    return undefined;
  }

  function report(window: Window | undefined, now: number): RateLimitState {
    const count = window?.count ?? 0;
    const msLeft = window ? window.startedAt + config.windowMs - now : config.windowMs;
    return {
      limit: config.limit,
      remaining: Math.max(0, config.limit - count),
      resetSeconds: Math.max(0, Math.ceil(msLeft / 1000)),
      limited: count > config.limit,
    };
  }

  return {
    consume(key) {
      const now = options.clock.now();
      if (config.limit >= UNLIMITED) return report(undefined, now);
      sweep(now);
      let window = current(key, now);
      if (!window) {
        if (windows.size >= maxKeys) windows.delete(windows.entries().next().value![0]);
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
      }
      window.count++;
      // A shared store records the change on set; a Map keeps the key where it is.
      windows.set(key, window);
      return report(window, now);
    },
    peek(key) {
      const now = options.clock.now();
      return report(current(key, now), now);
    },
    sweep: () => sweep(options.clock.now()),
    forget: (key) => void windows.delete(key),
    configure(next) {
      config.limit = next.limit;
      config.windowMs = next.windowMs;
      windows.clear();
    },
    config,
    get size() {
      return windows.size;
    },
    reset: () => windows.clear(),
    windows: () => [...windows.entries()].map(([key, window]) => [key, { ...window }]),
  };
}
