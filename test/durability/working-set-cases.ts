import { describe, expect, it } from 'vitest';
import type { SharedStore } from '../../src/store/shared-store.js';
import { ISSUED_NUMBERS_COLLECTION } from '../../src/store/store.js';

/**
 * Issue 27, a bounded working set: each process of a shared store keeps at most `--cache-size`
 * accounts in memory (shared-scopes.ts). The same cases for every shared store (PostgreSQL, the
 * shared SQLite layout), with a cache of ONE account and two stores as two processes hold them,
 * so that every other account a process touches has been evicted: a batch reads the account its
 * units name whole in its pull, a unit that names none reads it on the miss, pulls skip the rows
 * of accounts not in memory — and what any process acknowledged is what every other reads.
 */
export interface TwoCachingStores {
  one: SharedStore;
  two: SharedStore;
  /** A third store on the same database, opened now (a process that starts later). */
  third(): Promise<SharedStore>;
  /** The items stored under a scope (deleted ones left out), as the database holds them. */
  storedCount(scope: string): Promise<number>;
}

export type Thing = { id: string; n: number };
export const things = (store: SharedStore, account: string) => store.account(account).collection<Thing>('things');
const LOCK = (account: string) => ({ account });
const READ = (account: string) => ({ account, read: true });
export const inMemory = (store: SharedStore) => store.workingSet()!.accounts;

/** Writes `n` things into each account through `store`, each account in a locked unit. */
export async function fill(store: SharedStore, accounts: string[], n: number): Promise<void> {
  for (const account of accounts) {
    await store.transaction(() => {
      for (let i = 1; i <= n; i++) things(store, account).insert({ id: `${account}-${i}`, n: i });
    }, 'request', LOCK(account));
  }
}

/** `open`: two new stores with a cache of one account on a new database; the caller closes them. */
export function boundedWorkingSetCases(name: string, open: () => Promise<TwoCachingStores>): void {
  describe(`${name} keeps a bounded working set (two stores, a cache of one account)`, () => {
    it('evicts what it does not use; another process changes an evicted account; the next unit of that account reads it whole in its pull, with the change, without a miss', async () => {
      const { one, two, storedCount } = await open();
      await fill(one, ['a1', 'a2', 'a3'], 3);
      // Committed, the working set trims back to one account: the last one used.
      expect(inMemory(one)).toEqual(['account:a3']);
      expect(await storedCount('account:a1')).toBe(3);

      // Two (which never held a1) changes it: its account batch reads a1 ahead, in its pull.
      await two.transaction(() => {
        const found = things(two, 'a1').get('a1-2')!;
        things(two, 'a1').update({ ...found, n: found.n * 10 });
        things(two, 'a1').delete('a1-3');
        things(two, 'a1').insert({ id: 'a1-4', n: 4 });
      }, 'request', LOCK('a1'));
      expect(two.workingSet()!.misses, 'two read a1 in its pull, not on a miss').toBe(0);

      // One's next batch (another account's) pulls two's rows of a1 and skips them: a1 is not in memory.
      await one.transaction(() => things(one, 'a2').size, 'request', LOCK('a2'));
      expect(inMemory(one)).toEqual(['account:a2']);
      // A read of a1 on one: read whole at its pull's head, with everything two acknowledged.
      const read = await one.transaction(() => things(one, 'a1').values(), 'request', READ('a1'));
      expect(read).toEqual([
        { id: 'a1-1', n: 1 },
        { id: 'a1-2', n: 20 },
        { id: 'a1-4', n: 4 },
      ]);
      // Inserted after the reload, a thing goes after the highest sequence ever used (cursors stay valid).
      await one.transaction(() => void things(one, 'a1').insert({ id: 'a1-5', n: 5 }), 'request', LOCK('a1'));
      expect(await one.transaction(() => things(one, 'a1').seqOf('a1-5'), 'request', READ('a1'))).toBe(5);
      expect(one.workingSet()!.misses, 'one read every account in a pull').toBe(0);
      expect(one.workingSet()!.evictions).toBeGreaterThanOrEqual(3);
      expect(inMemory(one)).toEqual(['account:a1']);
    }, 60_000);

    it('reads an account a wide unit uses on the miss, at the newest commit; keeps a changed account in memory until its commit; exports every account', async () => {
      const { one, two } = await open();
      await fill(two, ['b1', 'b2'], 2);
      await fill(one, ['b3'], 1);
      // A wide unit (a timer, an admin request) names no account: b1 and b2 are read when it uses them.
      const sums = await one.transaction(() => ['b1', 'b2'].map((account) => things(one, account).values().reduce((sum, thing) => sum + thing.n, 0)));
      expect(sums).toEqual([3, 3]);
      expect(one.workingSet()!.misses).toBe(2);
      // A wide unit that writes two accounts keeps both (they have uncommitted writes) until its commit.
      let during: string[] = [];
      await one.transaction(() => {
        things(one, 'b1').insert({ id: 'b1-3', n: 3 });
        things(one, 'b2').insert({ id: 'b2-3', n: 3 });
        things(one, 'b3').insert({ id: 'b3-2', n: 2 });
        during = inMemory(one);
      });
      expect(during.sort()).toEqual(['account:b1', 'account:b2', 'account:b3']);
      expect(inMemory(one)).toHaveLength(1);
      // Two sees all three writes (b1 and b2 through their account batches' pulls, b3 on a miss).
      expect(await two.transaction(() => things(two, 'b1').size, 'request', READ('b1'))).toBe(3);
      expect(await two.transaction(() => things(two, 'b2').size, 'request', READ('b2'))).toBe(3);
      expect(await two.transaction(() => things(two, 'b3').values().map((thing) => thing.id))).toEqual(['b3-1', 'b3-2']);
      // The export (a wide unit) holds every account, those not in memory read as stored.
      const exported = await two.transaction(() => two.snapshot());
      expect(Object.keys(exported.scopes).filter((key) => key.startsWith('account:')).sort()).toEqual(['account:b1', 'account:b2', 'account:b3']);
      expect(exported.scopes['account:b1'].collections.things.items.map(([, thing]) => (thing as Thing).id)).toEqual(['b1-1', 'b1-2', 'b1-3']);
      expect(inMemory(two)).toHaveLength(1);
      expect((await two.transaction(() => two.accountIds())).sort()).toEqual(['b1', 'b2', 'b3']);
    }, 60_000);

    it('drops an account that another process reset, whether or not it is in memory, and reads what was written after the reset', async () => {
      const { one, two } = await open();
      await fill(one, ['c1', 'c2'], 2);
      // c2 is in one's memory, c1 is not; two resets both (a wide unit) and writes c2 again.
      await two.transaction(() => {
        two.reset('c1');
        two.reset('c2');
        things(two, 'c2').insert({ id: 'c2-new', n: 9 });
      });
      expect(await one.transaction(() => things(one, 'c2').values(), 'request', READ('c2'))).toEqual([{ id: 'c2-new', n: 9 }]);
      expect(await one.transaction(() => one.hasAccount('c1'))).toBe(false);
      expect(await one.transaction(() => things(one, 'c1').size, 'request', READ('c1'))).toBe(0);
    }, 60_000);
  });

  describe(`the issued carrier numbers of ${name}`, () => {
    const issued = (store: SharedStore) => store.global.collection<{ id: string }>(ISSUED_NUMBERS_COLLECTION);
    const numbers = ['DHL:STAGING:00340434161094042557', 'DHL:PRODUCTION:1Z999AA10123456784', 'GLS:STAGING:Zürich-€-1'];


    it('are kept in the database, not in memory: every process answers "was it issued?" for all of them, and a new one starts without reading their rows', async () => {
      const { one, two, storedCount, third } = await open();
      await one.transaction(() => numbers.forEach((id) => issued(one).insert({ id })));
      expect(await storedCount('global')).toBe(3);
      expect(issued(one).size, 'nothing in memory once committed').toBe(0);
      expect(await one.transaction(() => numbers.map((id) => issued(one).has(id)))).toEqual([true, true, true]);
      // Two pulled them: it holds their fingerprints, not the numbers.
      expect(await two.transaction(() => [...numbers, 'DHL:STAGING:never'].map((id) => issued(two).has(id)))).toEqual([true, true, true, false]);
      expect(issued(two).size).toBe(0);
      await expect(two.transaction(() => issued(two).insert({ id: numbers[2] }))).rejects.toThrow(/duplicate id/);
      // Two issues one more; one sees it at its next pull.
      await two.transaction(() => issued(two).insert({ id: 'UPS:STAGING:42' }));
      expect(await one.transaction(() => issued(one).has('UPS:STAGING:42'))).toBe(true);

      // A process that starts now reads their fingerprints, not their rows, and exports all of them.
      const three = await third();
      expect(issued(three).size).toBe(0);
      expect(await three.transaction(() => [...numbers, 'UPS:STAGING:42', 'UPS:STAGING:43'].map((id) => issued(three).has(id)))).toEqual([true, true, true, true, false]);
      const exported = await three.transaction(() => three.snapshot());
      expect(exported.scopes.global.collections[ISSUED_NUMBERS_COLLECTION].items.map(([, item]) => (item as { id: string }).id)).toEqual([...numbers, 'UPS:STAGING:42']);
    }, 60_000);

  });
}

/**
 * A unit that waits outside its batch (`UnitHandle.waitOutside`: a scenario's latency), on every
 * shared store: its batch commits what it wrote so far and goes on without it; other units of
 * the process and of other processes run meanwhile; it goes on in a later batch, from a new pull.
 * With a cache of one account, the account it waits with is evicted meanwhile and read again.
 */
export function waitOutsideCases(name: string, open: () => Promise<TwoCachingStores>): void {
  describe(`${name}: a unit that waits outside its batch`, () => {
    it('lets its batch commit what it wrote so far, lets other units run meanwhile, and goes on in a later batch', async () => {
      const { one, two, storedCount } = await open();
      let resumed = false;
      const slow = one.transaction(
        async (unit) => {
          things(one, 'a1').insert({ id: 'before', n: 1 });
          await unit!.waitOutside(400);
          resumed = true;
          things(one, 'a1').insert({ id: 'after', n: 2 });
        },
        'request',
        LOCK('a1'),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await storedCount('account:a1')).toBe(1);
      const started = performance.now();
      await one.transaction(() => void things(one, 'a2').insert({ id: 'meanwhile', n: 3 }), 'request', LOCK('a2'));
      expect(performance.now() - started).toBeLessThan(250);
      await two.transaction(() => void things(two, 'a1').insert({ id: 'elsewhere', n: 4 }), 'request', LOCK('a1'));
      expect(resumed).toBe(false);
      await slow;
      expect(await storedCount('account:a1')).toBe(3);
      const seen = await one.transaction(() => things(one, 'a1').values().map((thing) => thing.id), 'request', READ('a1'));
      expect(seen).toEqual(['before', 'elsewhere', 'after']);
    });

    it('whose work ended during the wait (its client left), still runs what follows the wait in a batch, on fresh state, and holds nothing', async () => {
      const { one, two, storedCount } = await open();
      let afterWait: Promise<string[]> | undefined;
      // The unit's work ends at once, as a request's does when its client leaves; what it started
      // goes on: a booking that reads again and commits once the carrier answered.
      await one.transaction(
        (unit) => {
          things(one, 'a1').insert({ id: 'before', n: 1 });
          afterWait = unit!.waitOutside(400).then(() => {
            const seen = things(one, 'a1').values().map((thing) => thing.id);
            things(one, 'a1').insert({ id: 'after', n: 2 });
            return seen;
          });
        },
        'request',
        LOCK('a1'),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await two.transaction(() => void things(two, 'a1').insert({ id: 'elsewhere', n: 4 }), 'request', LOCK('a1'));
      // Read in a batch that pulled what the other process committed during the wait.
      expect(await afterWait).toEqual(['before', 'elsewhere']);
      const started = performance.now();
      await one.transaction(() => void things(one, 'a1').insert({ id: 'next', n: 3 }), 'request', LOCK('a1'));
      expect(performance.now() - started, 'the late batch holds the lock no longer than a turn').toBeLessThan(250);
      expect(await storedCount('account:a1')).toBe(4);
    });
  });
}
