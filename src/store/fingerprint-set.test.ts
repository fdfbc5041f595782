import { describe, expect, it } from 'vitest';
import { createFingerprintSet, fingerprintSetFromBytes } from './fingerprint-set.js';

/** A deterministic stream of 32-bit integers (xorshift), negative ones and repeats included. */
function integers(count: number, seed = 7): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.push(x | 0);
  }
  return out;
}

describe('a fingerprint set', () => {
  it('answers as a Set<number> does, through many merges, for stored, added, repeated and absent values', () => {
    const stored = integers(20_000, 1);
    const added = integers(30_000, 2);
    const absent = integers(20_000, 3);
    const set = createFingerprintSet(Int32Array.from(stored));
    const reference = new Set(stored);
    for (const [i, value] of added.entries()) {
      set.add(value);
      reference.add(value);
      // Repeats change nothing.
      if (i % 7 === 0) set.add(stored[i % stored.length]);
      if (i % 5000 === 0) expect(set.size).toBe(reference.size);
    }
    expect(set.size).toBe(reference.size);
    for (const value of [...stored, ...added, ...absent, 0, -1, 2 ** 31 - 1, -(2 ** 31)]) expect(set.has(value), String(value)).toBe(reference.has(value));
  });

  it('holds the extremes of the 32-bit range and collapses repeats in what it starts from', () => {
    const set = createFingerprintSet(Int32Array.from([5, -(2 ** 31), 5, 2 ** 31 - 1, 5, 0]));
    expect(set.size).toBe(4);
    for (const value of [5, -(2 ** 31), 2 ** 31 - 1, 0]) expect(set.has(value)).toBe(true);
    expect(set.has(4)).toBe(false);
    expect(set.has(6)).toBe(false);
  });

  it('reads big-endian 4-byte values, as the database hands them over', () => {
    const bytes = Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
    const set = fingerprintSetFromBytes(bytes);
    expect(set.size).toBe(3);
    for (const value of [-(2 ** 31), 1, -1]) expect(set.has(value)).toBe(true);
    expect(fingerprintSetFromBytes(new Uint8Array(0)).size).toBe(0);
  });
});
