import { describe, expect, it } from 'vitest';
import type { Entity } from './collection.js';
import { createDirtyWrites } from './dirty-writes.js';
import { fingerprintOf, offloadedIssuedNumbers, type IssuedNumberReads } from './offloaded-issued-numbers.js';
import { createStore, ISSUED_NUMBERS_COLLECTION } from './store.js';

/** A database of issued numbers that counts what it is asked. */
function fakeDatabase(stored: string[] = []) {
  const rows = new Map<string, number>(stored.map((id, i) => [id, i + 1]));
  const asked = { fingerprints: 0, isIssued: 0 };
  const reads: IssuedNumberReads = {
    fingerprints() {
      asked.fingerprints++;
      const bytes = Buffer.alloc(rows.size * 4);
      [...rows.keys()].forEach((id, i) => bytes.writeInt32BE(fingerprintOf(id), i * 4));
      return new Uint8Array(bytes);
    },
    isIssued(id) {
      asked.isIssued++;
      return rows.has(id);
    },
    items: () => [...rows].map(([id, seq]): [number, Entity] => [seq, { id }]),
  };
  return { rows, asked, reads };
}

function setUp(stored: string[] = []) {
  const database = fakeDatabase(stored);
  const dirty = createDirtyWrites(() => {});
  const memory = createStore(dirty.watcher);
  const ledger = offloadedIssuedNumbers(database.reads);
  const issued = () => memory.global.collection<Entity>(ISSUED_NUMBERS_COLLECTION);
  /** A commit as a shared store makes it: the rows written are stored, then the ledger keeps. */
  const commit = () => {
    for (const { id } of issued().values()) if (!database.rows.has(id)) database.rows.set(id, database.rows.size + 1);
    dirty.clear();
    ledger.keep(memory, dirty);
  };
  return { ...database, dirty, memory, ledger, issued, commit };
}

describe('issued carrier numbers kept in the database, their fingerprints in memory', () => {
  it('keeps no number in memory once it is stored, and answers "was it issued?" exactly', () => {
    const { memory, dirty, ledger, issued, commit, asked } = setUp(['DHL:STAGING:1', 'DHL:STAGING:2']);
    // A pull from scratch brings the collection (its sequence) without its rows: the fingerprints are read.
    dirty.muted(() => issued().advanceSequence(3));
    ledger.keep(memory, dirty, true);
    expect(asked.fingerprints).toBe(1);
    expect(ledger.size).toBe(2);
    expect(issued().has('DHL:STAGING:1')).toBe(true);
    expect(issued().has('DHL:STAGING:3')).toBe(false);
    // A number never issued costs no read of the database; a stored one, one.
    expect(asked.isIssued).toBe(1);

    issued().insert({ id: 'DHL:STAGING:3' });
    expect(() => issued().insert({ id: 'DHL:STAGING:1' })).toThrow(/duplicate id/);
    commit();
    expect(issued().size, 'nothing stays in memory after the commit').toBe(0);
    expect(ledger.size).toBe(3);
    expect(issued().has('DHL:STAGING:3')).toBe(true);
    expect(asked.fingerprints, 'the set is read once, then kept up to date').toBe(1);
  });

  it('leaves numbers not yet committed in memory, and takes numbers pulled from another process', () => {
    const { memory, dirty, ledger, issued, commit, rows } = setUp();
    issued().insert({ id: 'UPS:PRODUCTION:1' });
    // The first commit offloads the new collection.
    commit();
    issued().insert({ id: 'UPS:PRODUCTION:2' });
    // A call while a write is uncommitted (a straggling unit's) leaves it where the commit reads it.
    ledger.keep(memory, dirty);
    expect(issued().values().map(({ id }) => id)).toEqual(['UPS:PRODUCTION:2']);
    commit();
    expect(issued().size).toBe(0);

    // Another process's number, pulled (applied muted, as a pull applies rows), and stored.
    rows.set('UPS:PRODUCTION:9', 9);
    dirty.muted(() => issued().applyRemote(9, 'UPS:PRODUCTION:9', { id: 'UPS:PRODUCTION:9' }));
    ledger.keep(memory, dirty);
    expect(issued().size).toBe(0);
    expect(ledger.size).toBe(3);
    expect(issued().has('UPS:PRODUCTION:9')).toBe(true);
    expect(issued().snapshot().items.map(([seq, { id }]) => [seq, id])).toEqual([
      [1, 'UPS:PRODUCTION:1'],
      [2, 'UPS:PRODUCTION:2'],
      [9, 'UPS:PRODUCTION:9'],
    ]);
  });

  it('reads the fingerprints again after a pull from scratch and for a replaced global scope', () => {
    const { memory, dirty, ledger, issued, asked, rows } = setUp(['A:STAGING:1']);
    // No collection yet (nothing was ever issued, or its row is not pulled yet): nothing to read.
    ledger.keep(memory, dirty, true);
    expect(asked.fingerprints).toBe(0);
    dirty.muted(() => issued());
    ledger.keep(memory, dirty, true);
    ledger.keep(memory, dirty);
    expect(asked.fingerprints).toBe(1);
    // Another process stored a number this one did not pull (a reload's pull from scratch leaves these rows out).
    rows.set('A:STAGING:2', 2);
    ledger.keep(memory, dirty, true);
    expect(issued().has('A:STAGING:2')).toBe(true);
    // A replaced global scope (an import) is a new collection: offloaded again, its set read again.
    dirty.muted(() => memory.dropScope('global'));
    dirty.muted(() => issued().applyRemote(1, 'B:STAGING:1', { id: 'B:STAGING:1' }));
    rows.clear();
    rows.set('B:STAGING:1', 1);
    ledger.keep(memory, dirty);
    expect(issued().isOffloaded).toBe(true);
    expect(issued().has('A:STAGING:1')).toBe(false);
    expect(issued().has('B:STAGING:1')).toBe(true);
  });

  it('asks the database about every number while the set cannot be read, and reads it at the next call', () => {
    const { memory, dirty, issued, asked, reads, rows } = setUp(['C:STAGING:1']);
    const errors: string[] = [];
    const failing: IssuedNumberReads = {
      ...reads,
      fingerprints: () => {
        throw new Error('the shared database did not answer a read within 10000 ms');
      },
    };
    const ledger = offloadedIssuedNumbers(failing, (error) => errors.push(error.message));
    dirty.muted(() => issued().advanceSequence(2));
    expect(() => ledger.keep(memory, dirty, true)).not.toThrow();
    expect(errors).toEqual([expect.stringContaining('did not answer a read')]);
    // Exact meanwhile: the database answers every question.
    expect(issued().has('C:STAGING:1')).toBe(true);
    expect(issued().has('C:STAGING:2')).toBe(false);
    expect(asked.isIssued).toBe(2);
    // The next call reads the set (the database answers again).
    failing.fingerprints = reads.fingerprints;
    rows.set('C:STAGING:3', 3);
    ledger.keep(memory, dirty);
    expect(ledger.size).toBe(2);
    expect(issued().has('C:STAGING:2')).toBe(false);
    expect(asked.isIssued, 'a number never issued costs no read again').toBe(2);
  });

  it('computes the fingerprint PostgreSQL computes: the first 4 bytes of the MD5 of the UTF-8 text', () => {
    // md5('DHL:STAGING:1') = fa9eb293…
    expect(fingerprintOf('DHL:STAGING:1')).toBe(Buffer.from('fa9eb293', 'hex').readInt32BE(0));
  });
});
