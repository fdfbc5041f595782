import { hash } from 'node:crypto';
import type { Entity } from './collection.js';
import type { DirtyWrites } from './dirty-writes.js';
import { createFingerprintSet, fingerprintSetFromBytes, type FingerprintSet } from './fingerprint-set.js';
import { ISSUED_NUMBERS_COLLECTION, type MemoryStore } from './store.js';

/** The scope that holds the issued numbers. */
const GLOBAL_SCOPE = 'global';

/**
 * What a shared store's database answers about the global scope's issued carrier numbers, read
 * synchronously (PostgreSQL: postgres-sync-reader.ts), each in one snapshot.
 */
export interface IssuedNumberReads {
  /** The fingerprint (fingerprintOf) of every number stored, 4 bytes each, big-endian, in any order. */
  fingerprints(): Uint8Array;
  /** Whether the number is stored. */
  isIssued(id: string): boolean;
  /** Every stored number's row, by sequence (an export). */
  items(): [number, Entity][];
}

/**
 * A number's fingerprint: the first 32 bits of the MD5 of its UTF-8 text, as a signed integer (a
 * value an Int32Array holds: fingerprint-set.ts). PostgreSQL computes the same bytes with
 * `decode(substr(md5(id), 1, 8), 'hex')`, so the database hands over the fingerprints of
 * 400k numbers as one 1.6 MB value instead of 400k rows.
 *
 * @example fingerprintOf('DHL:STAGING:00340434161094042557') // a 32-bit integer
 */
export const fingerprintOf = (id: string): number => (hash('md5', id, 'buffer') as unknown as Buffer).readInt32BE(0);

/**
 * Keeps a shared store's issued carrier numbers (two per booking, only ever asked "was this
 * issued?") in the database instead of in each process's memory, as the SQLite store keeps them
 * in its file (issue 27: a ledger that grows with every booking of the sandbox). The process
 * keeps a set of their 32-bit fingerprints (4 bytes a number, fingerprint-set.ts, instead of
 * ~240 for the items): a number whose fingerprint is not in it was never issued; one whose
 * fingerprint is asks the database (a false alarm one time in 4 billion per stored number, or a
 * real repeat).
 *
 * The set stays complete because every issued number reaches it: those stored when the set is
 * (re)built — the first use, and after every pull from scratch (which leaves these rows out:
 * postgres-store.ts's pullStatement) or a replaced global scope — and those that arrive in memory
 * afterwards (another process's, pulled; this process's, committed), moved in by `keep`. A
 * number is in the set once it is stored, perhaps earlier (an extra fingerprint only costs a
 * probe), never later: uncommitted ones stay in memory, where `has` sees them first.
 */
export function offloadedIssuedNumbers(reads: IssuedNumberReads, onError: (error: Error) => void = () => {}) {
  let prints: FingerprintSet = createFingerprintSet();
  /** Whether `prints` holds every stored number's fingerprint; until it does, every question goes to the database. */
  let complete = false;
  /** The collection offloaded (a replaced global scope brings a new one). */
  let offloaded: object | undefined;
  const where = {
    has: (id: string) => (!complete || prints.has(fingerprintOf(id))) && reads.isIssued(id),
    items: () => reads.items(),
  };

  function rebuild(): void {
    prints = fingerprintSetFromBytes(reads.fingerprints());
  }

  return {
    /**
     * After a pull is applied and after a commit: offloads the global scope's collection when it
     * is new (or when `fresh`: a pull from scratch did not bring these rows), reads the set (never
     * throws: one that cannot be read is read next time), and moves the numbers in memory that
     * are stored to the set. Numbers written and not yet committed (a straggling unit's) stay in
     * memory until a later call.
     */
    keep(memory: MemoryStore, dirty: DirtyWrites, fresh = false): void {
      const issued = memory.existingScope(GLOBAL_SCOPE)?.existing<Entity>(ISSUED_NUMBERS_COLLECTION);
      if (!issued) return;
      if (fresh || issued !== offloaded || !issued.isOffloaded) {
        issued.offload(where);
        offloaded = issued;
        complete = false;
      }
      if (!complete) {
        // Called after a commit too, which must not fail once it is done: a set that cannot be
        // read now is read at the next pull or commit, and the database answers meanwhile.
        try {
          rebuild();
          complete = true;
        } catch (error) {
          onError(new Error(`the issued carrier numbers' fingerprints could not be read (every "was it issued?" asks the database until they are): ${(error as Error).message}`));
        }
      }
      if (!issued.size || dirty.replaced.has(GLOBAL_SCOPE) || dirty.items.get(GLOBAL_SCOPE)?.get(ISSUED_NUMBERS_COLLECTION)?.size) return;
      for (const { id } of issued.values()) prints.add(fingerprintOf(id));
      issued.dropResident();
    },
    /** How many fingerprints the process holds (tests, the working-set report). */
    get size(): number {
      return prints.size;
    },
  };
}

export type OffloadedIssuedNumbers = ReturnType<typeof offloadedIssuedNumbers>;
