/**
 * A set of 32-bit integers at 4 bytes each: a sorted `Int32Array`, probed by binary search, and
 * a small `Set` of the ones added since it was last sorted, merged into the array when it reaches
 * an eighth of it. Kept here (not a library) because the one user, a shared store's issued
 * carrier numbers (offloaded-issued-numbers.ts), holds one fingerprint per number ever issued in
 * the sandbox: as a `Set<number>` that is about 20 bytes a number, 8 MB at 400k numbers and
 * growing with every booking, which is memory that grows with the sandbox, not with the cache.
 *
 * @example
 * const prints = fingerprintSetFromBytes(bytes); // 4 bytes each, big-endian
 * prints.add(fingerprintOf(id));
 * prints.has(fingerprintOf(id)); // true
 */
export interface FingerprintSet {
  has(value: number): boolean;
  add(value: number): void;
  readonly size: number;
}

/** The fewest additions kept aside before they are merged into the sorted array. */
const MIN_RECENT = 4096;

export function createFingerprintSet(values: Int32Array = new Int32Array(0)): FingerprintSet {
  let sorted = sortedUnique(values);
  let recent = new Set<number>();

  function has(value: number): boolean {
    return recent.has(value) || inSorted(sorted, value);
  }

  function merge(): void {
    const extra = Int32Array.from(recent).sort();
    const merged = new Int32Array(sorted.length + extra.length);
    let i = 0;
    let j = 0;
    let out = 0;
    while (i < sorted.length || j < extra.length) {
      merged[out++] = j >= extra.length || (i < sorted.length && sorted[i] < extra[j]) ? sorted[i++] : extra[j++];
    }
    sorted = merged;
    recent = new Set();
  }

  return {
    has,
    add(value: number): void {
      if (has(value)) return;
      recent.add(value | 0);
      if (recent.size >= Math.max(MIN_RECENT, sorted.length >> 3)) merge();
    },
    get size(): number {
      return sorted.length + recent.size;
    },
  };
}

/** A set of the 4-byte big-endian integers in `bytes` (the database's answer: PostgreSQL's md5 bytes). */
export function fingerprintSetFromBytes(bytes: Uint8Array): FingerprintSet {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Int32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < values.length; i++) values[i] = view.getInt32(i * 4);
  return createFingerprintSet(values);
}

/** `values` sorted ascending without repeats (a new array; the input is left as it is). */
function sortedUnique(values: Int32Array): Int32Array {
  const sorted = Int32Array.from(values).sort();
  let out = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[out - 1]) sorted[out++] = sorted[i];
  return out === sorted.length ? sorted : sorted.slice(0, out);
}

function inSorted(sorted: Int32Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = sorted[middle];
    if (at === value) return true;
    if (at < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
