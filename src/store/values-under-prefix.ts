import type { CounterMap } from './store.js';

/** How often the entries are swept and counted (real time). */
const SCAN_INTERVAL_MS = 1000;

/**
 * Counters kept as entries of a key/value map under a prefix — a shared store's scope values,
 * where each entry is a row (`Store.counters`): every process counts in the same entries, and a
 * batch writes only the entries its requests changed (a whole-limiter snapshot per batch cost
 * ~0.8 ms at 1,000 active callers). `values` is asked for on every use: a reset replaces the scope.
 *
 * Iterating and counting need a pass over all the values (those of other prefixes too), so they
 * are done at most once per `scanIntervalMs`: `entries()` is empty and `size` the last count in
 * between. A rate limiter treats an ended window as absent anyway, so sweeping later changes no answer.
 *
 * @example const windows = valuesUnderPrefix(() => store.system.values, 'rate:principal:', isWindow);
 */
export function valuesUnderPrefix<V>(values: () => Map<string, unknown>, prefix: string, isValue: (value: unknown) => value is V, scanIntervalMs = SCAN_INTERVAL_MS): CounterMap<V> {
  let lastPass = -Infinity;
  let counted = 0;
  const due = () => performance.now() - lastPass >= scanIntervalMs;
  function* all(): IterableIterator<[string, V]> {
    for (const [key, value] of values()) if (key.startsWith(prefix) && isValue(value)) yield [key.slice(prefix.length), value];
  }
  return {
    get(key) {
      const value = values().get(prefix + key);
      return isValue(value) ? value : undefined;
    },
    set(key, value) {
      values().set(prefix + key, value);
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
