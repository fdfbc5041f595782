import type { Window, WindowStore } from './rate-limiter.js';

/** How often the windows are swept and counted (real time). */
const SCAN_INTERVAL_MS = 1000;

/**
 * Rate-limit windows kept as entries of a key/value map under a prefix — a shared store's scope
 * values, where each entry is a row: every process counts in the same windows, and a batch
 * writes only the windows its requests changed (a whole-limiter snapshot per batch cost ~0.8 ms
 * at 1,000 active callers). `values` is asked for on every use: a reset replaces the scope.
 *
 * @example createRequestLimits({ clock, principal, windows: { principals: windowsInValues(() => store.system.values, 'rate:p:'), addresses: windowsInValues(() => store.system.values, 'rate:a:') } })
 */
export function windowsInValues(values: () => Map<string, unknown>, prefix: string, scanIntervalMs = SCAN_INTERVAL_MS): WindowStore {
  const isWindow = (value: unknown): value is Window =>
    typeof value === 'object' && value !== null && Number.isFinite((value as Window).startedAt) && Number.isFinite((value as Window).count);
  // Ended windows are swept, and the count of windows taken, by a pass over all the values (those
  // of other prefixes too): at most once a second, not on every request. An ended window is
  // treated as absent anyway (rate-limiter.ts `current`), so sweeping later changes no answer.
  let lastPass = -Infinity;
  let counted = 0;
  const due = () => performance.now() - lastPass >= scanIntervalMs;
  function* all(): IterableIterator<[string, Window]> {
    for (const [key, value] of values()) if (key.startsWith(prefix) && isWindow(value)) yield [key.slice(prefix.length), value];
  }
  return {
    get(key) {
      const value = values().get(prefix + key);
      return isWindow(value) ? value : undefined;
    },
    set(key, window) {
      values().set(prefix + key, window);
    },
    delete: (key) => values().delete(prefix + key),
    clear() {
      const map = values();
      for (const key of [...map.keys()]) if (key.startsWith(prefix)) map.delete(key);
      counted = 0;
    },
    get size() {
      if (due()) {
        counted = 0;
        for (const key of values().keys()) if (key.startsWith(prefix)) counted++;
        lastPass = performance.now();
      }
      return counted;
    },
    entries() {
      if (!due()) return [][Symbol.iterator]();
      lastPass = performance.now();
      return all();
    },
  };
}
