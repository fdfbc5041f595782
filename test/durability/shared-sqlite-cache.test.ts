import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SharedStore } from '../../src/store/shared-store.js';
import { openSharedSqliteStore } from '../../src/store/sqlite-shared-store.js';
import { ReadMustLockError, type UnitHandle } from '../../src/store/store.js';
import { berlin } from '../support/shipping-fixtures.js';
import { call, expectStatus, newAccount, startChild, type ChildMock } from './child-mock.js';
import { aReadThatWrites, inFlight } from './in-flight.js';
import { boundedWorkingSetCases, things, waitOutsideCases } from './working-set-cases.js';

/**
 * Issue 27 on SQLite's shared layout (`--workers N --data FILE`): what the file's one write lock
 * allows of PostgreSQL's design. Each process keeps a bounded working set (the cases every shared
 * store passes, working-set-cases.ts), and a read batch pulls in a read transaction, taking the
 * write lock only to commit what it wrote, checked as on PostgreSQL. What it cannot give: two
 * writers at once (every locked batch holds the file's lock).
 */
const dir = mkdtempSync(join(tmpdir(), 'shipmock-shared-sqlite-cache-'));
const stores: SharedStore[] = [];
const children: ChildMock[] = [];
afterAll(async () => {
  for (const store of stores) store.close();
  await Promise.all(children.map((child) => child.kill().catch(() => {})));
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const newFile = () => join(dir, `shared-${++files}.db`);

async function openCache(path: string, cacheSize = 1): Promise<SharedStore> {
  const store = (await openSharedSqliteStore(path, { cacheSize })).store as SharedStore;
  stores.push(store);
  return store;
}

/** Resolves once `done` holds (checked every 10 ms, for at most 5 s). */
async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !done(); ) {
    if (Date.now() > deadline) throw new Error('not reached within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What the file holds of a scope's items (deleted ones left out), read on a connection of its own. */
function storedItems(path: string, scope: string): { id: string; body: { id: string; n: number } }[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT id, body FROM shipmock_items WHERE scope = ? AND body IS NOT NULL ORDER BY collection, seq').all(scope) as { id: string; body: string }[]).map((row) => ({ id: row.id, body: JSON.parse(row.body) }));
  } finally {
    db.close();
  }
}

const twoStoresOnANewFile = async () => {
  const path = newFile();
  return { one: await openCache(path), two: await openCache(path), third: () => openCache(path), storedCount: async (scope: string) => storedItems(path, scope).length };
};
boundedWorkingSetCases('a shared SQLite file', twoStoresOnANewFile);
waitOutsideCases('a shared SQLite file', twoStoresOnANewFile);

/** Another connection holding the file's write lock (as another process's batch does) until released. */
function holdWriteLock(path: string): { release(): void } {
  const holder = new Database(path);
  holder.exec('BEGIN IMMEDIATE');
  return {
    release() {
      if (!holder.open) return;
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    },
  };
}

const READ = (account: string) => ({ account, read: true });
const aWhile = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * Two stores on a new file and `t1` (n 0) in account `a`; a read unit of the first reads t1 and,
 * once another process has incremented it, writes it (seen + 1) and ends with `finish`. What the
 * read's unit answered: undefined, or its error.
 */
async function aReadThatWroteRacingAnotherProcess(finish: (seen: number, unit: UnitHandle | undefined, store: SharedStore) => void | Promise<void>) {
  const path = newFile();
  const [one, two] = [await openCache(path, 100), await openCache(path, 100)];
  await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
  let proceed!: () => void;
  let pulled!: () => void;
  const gate = new Promise<void>((resolve) => (proceed = resolve));
  const started = new Promise<void>((resolve) => (pulled = resolve));
  const read = inFlight(
    one.transaction(
      async (unit) => {
        const seen = things(one, 'a').get('t1')!.n;
        pulled();
        await gate;
        things(one, 'a').update({ id: 't1', n: seen + 1 });
        await finish(seen, unit, one);
      },
      'request',
      READ('a'),
    ),
  );
  await started;
  await two.transaction(() => void things(two, 'a').update({ id: 't1', n: things(two, 'a').get('t1')!.n + 1 }), 'request', { account: 'a' });
  proceed();
  const refused = await read.result.then(
    () => undefined,
    (error: unknown) => error,
  );
  return { path, one, refused };
}

describe('reads without the write lock on a shared SQLite file', () => {
  it('answers a read that writes nothing while another process holds the write lock, with every write acknowledged before it; a locked unit waits', async () => {
    const path = newFile();
    const [one, two] = [await openCache(path, 100), await openCache(path, 100)];
    await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    const held = holdWriteLock(path);
    try {
      expect(await one.transaction(() => things(one, 'a').values().map((thing) => thing.id), 'request', READ('a'))).toEqual(['t1']);
      const write = inFlight(one.transaction(() => void things(one, 'a').insert({ id: 't2', n: 1 }), 'request', { account: 'a' }));
      await aWhile();
      expect(write.settled(), 'a write waits for the lock').toBe(false);
      held.release();
      await write.result;
    } finally {
      held.release();
    }
    expect(storedItems(path, 'account:a').map((item) => item.id)).toEqual(['t1', 't2']);
    expect(one.batchStats!().reads).toMatchObject({ batches: 1, committed: 0 });
  }, 30_000);

  it('gives a read that arrives after a read batch pulled a batch of its own, so it sees what another process acknowledged in between', async () => {
    const path = newFile();
    const [one, two] = [await openCache(path, 100), await openCache(path, 100)];
    await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 1 }), 'request', { account: 'a' });
    await one.transaction(() => things(one, 'a').size, 'request', READ('a'));
    const other = new Database(path);
    let later: Promise<string[]> | undefined;
    try {
      const first = await one.transaction(
        () => {
          // The batch has pulled; in this same turn another process commits (and could acknowledge) t2…
          const change = other.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'change' RETURNING value").pluck().get() as number;
          other.prepare("INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES ('account:a', 'things', 2, 't2', ?, ?)").run(JSON.stringify({ id: 't2', n: 2 }), change);
          other.prepare("UPDATE shipmock_collections SET next_seq = 3, change = ? WHERE scope = 'account:a' AND collection = 'things'").run(change);
          // …and then a read of the account arrives.
          later = one.transaction(() => things(one, 'a').values().map((thing) => thing.id), 'request', READ('a'));
          return things(one, 'a').values().map((thing) => thing.id);
        },
        'request',
        READ('a'),
      );
      expect(first).toEqual(['t1']);
      expect(await later!).toEqual(['t1', 't2']);
    } finally {
      other.close();
    }
  }, 30_000);

  it('commits a read that wrote in its own read transaction when nothing was committed since its pull, and ends a read that wrote nothing', async () => {
    const path = newFile();
    const one = await openCache(path, 100);
    await one.transaction(() => void things(one, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    await one.transaction(() => void things(one, 'a').update({ id: 't1', n: 1 }), 'request', READ('a'));
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
    expect(await one.transaction(() => things(one, 'a').size, 'request', READ('a'))).toBe(1);
    // Neither read left its transaction open: a snapshot held open would keep the WAL from being reset.
    const other = new Database(path);
    try {
      expect(other.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      other.close();
    }
    expect(one.batchStats!().reads).toMatchObject({ batches: 2, committed: 1, retried: 0 });
  }, 30_000);

  it('commits a read that wrote, taking the write lock only at its commit', async () => {
    const path = newFile();
    const [one, two] = [await openCache(path, 100), await openCache(path, 100)];
    await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    const held = holdWriteLock(path);
    const read = aReadThatWrites(one, 'a');
    try {
      await aWhile();
      expect(read.ran(), 'the read ran without the lock').toBe(true);
      expect(read.settled(), 'its commit waits for the lock').toBe(false);
    } finally {
      held.release();
    }
    await read.result;
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
    expect(one.batchStats!().reads).toMatchObject({ committed: 1, retried: 0 });
  }, 30_000);

  it('refuses a read that wrote when another process changed its account since its pull: nothing is written, and the unit runs again locked and writes once', async () => {
    const kept: string[] = [];
    const { path, one, refused } = await aReadThatWroteRacingAnotherProcess((seen, _unit, store) => store.afterCommit!(() => kept.push(`read saw ${seen}`)));
    expect(refused).toBeInstanceOf(ReadMustLockError);
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
    expect(one.batchStats!().reads).toMatchObject({ retried: 1 });
    expect(kept, 'nothing of the refused read is kept').toEqual([]);

    await one.transaction(() => {
      const seen = things(one, 'a').get('t1')!.n;
      things(one, 'a').update({ id: 't1', n: seen + 1 });
      one.afterCommit!(() => kept.push(`locked saw ${seen}`));
    }, 'request', { account: 'a' });
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 2 } }]);
    expect(kept).toEqual(['locked saw 1']);
    // The account was contended: its reads take the lock for a while (here the file's: a wide batch).
    const wide = one.batchStats!().byLock.wide;
    await one.transaction(() => things(one, 'a').size, 'request', READ('a'));
    expect(one.batchStats!().byLock.wide).toBe(wide + 1);
    const reads = one.batchStats!().reads!.batches;
    await one.transaction(() => things(one, 'b').size, 'request', READ('b'));
    expect(one.batchStats!().reads!.batches).toBe(reads + 1);
  }, 30_000);
});

describe('a unit that waits outside its batch (a scenario\'s latency), when its commit fails', () => {
  it('fails the unit when the commit before its wait fails: a read that wrote, whose account another process changed, runs again under its lock', async () => {
    let waited = false;
    const { path, refused } = await aReadThatWroteRacingAnotherProcess(async (_seen, unit) => {
      await unit!.waitOutside(50);
      waited = true;
    });
    expect(refused).toBeInstanceOf(ReadMustLockError);
    // The wait ended at the refusal, and nothing of the read was written.
    expect(waited).toBe(false);
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
  });
});

describe('a read whose client left during its wait', () => {
  it('reports a commit of what it did after the wait that fails, where the store reports its background failures', async () => {
    const path = newFile();
    const reported: Error[] = [];
    const one = (await openSharedSqliteStore(path, { cacheSize: 100, onError: (error) => reported.push(error) })).store as SharedStore;
    stores.push(one);
    await one.transaction(() => void things(one, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    // Another process's commit of account a, made (as its own connection would) right after the late batch's pull.
    const anotherProcessWrites = () => {
      const other = new Database(path);
      try {
        other.transaction(() => {
          const change = other.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'change' RETURNING value").pluck().get() as number;
          other.prepare("UPDATE shipmock_items SET body = ?, change = ? WHERE scope = 'account:a' AND id = 't1'").run(JSON.stringify({ id: 't1', n: 10 }), change);
        })();
      } finally {
        other.close();
      }
    };
    let afterWait: Promise<void> | undefined;
    // The unit's work ends at once (its client left); what it started reads and writes after the wait.
    await one.transaction(
      (unit) => {
        afterWait = unit!.waitOutside(100).then(() => {
          const seen = things(one, 'a').get('t1')!.n;
          anotherProcessWrites();
          things(one, 'a').update({ id: 't1', n: seen + 1 });
        });
      },
      'request',
      READ('a'),
    );
    await afterWait;
    await until(() => reported.length > 0);
    expect(reported[0].message).toMatch(/^what a request did after its wait, once its client had left, was not committed: /);
    // Nothing of it was written over the other process's commit.
    expect(storedItems(path, 'account:a')).toEqual([{ id: 't1', body: { id: 't1', n: 10 } }]);
  });
});

describe('the shared layout version', () => {
  it('gives a file of layout 1 (an earlier shipmock) the index of layout 2 at its first start, keeping its state', async () => {
    const path = newFile();
    const store = await openCache(path, 100);
    await store.transaction(() => void things(store, 'a').insert({ id: 't1', n: 1 }), 'request', { account: 'a' });
    store.close();
    // As an earlier shipmock left it.
    const earlier = new Database(path);
    earlier.exec("DROP INDEX shipmock_items_global_ids; UPDATE shipmock_meta SET value = '1' WHERE key = 'layout'");
    earlier.close();

    const again = await openCache(path, 100);
    expect(await again.transaction(() => things(again, 'a').values(), 'request', READ('a'))).toEqual([{ id: 't1', n: 1 }]);
    const file = new Database(path, { readonly: true });
    try {
      expect(file.prepare("SELECT value FROM shipmock_meta WHERE key = 'layout'").pluck().get()).toBe('2');
      expect(file.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'shipmock_items_global_ids'").pluck().get()).toBe('shipmock_items_global_ids');
      // "Was it issued?" reads the index alone.
      const plan = file.prepare("EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM shipmock_items WHERE scope = 'global' AND collection = 'issued-carrier-numbers' AND id = 'x')").all() as { detail: string }[];
      expect(plan.map((row) => row.detail).join('\n')).toContain('USING COVERING INDEX shipmock_items_global_ids');
    } finally {
      file.close();
    }
  }, 30_000);

  it.each([
    ['garbage', "UPDATE shipmock_meta SET value = 'two' WHERE key = 'layout'", '"two"'],
    ['zero', "UPDATE shipmock_meta SET value = '0' WHERE key = 'layout'", '"0"'],
    ['missing', "DELETE FROM shipmock_meta WHERE key = 'layout'", 'missing'],
  ])('refuses a file whose layout version is %s, saying so, and leaves it as it was', async (_name, edit, shown) => {
    const path = newFile();
    const store = await openCache(path, 100);
    await store.transaction(() => void things(store, 'a').insert({ id: 't1', n: 1 }), 'request', { account: 'a' });
    store.close();
    const edited = new Database(path);
    edited.exec(edit);
    edited.close();
    const contents = () => {
      const file = new Database(path, { readonly: true });
      try {
        return ['shipmock_meta', 'shipmock_items', 'shipmock_parts', 'shipmock_counters'].map((table) => file.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
      } finally {
        file.close();
      }
    };
    const before = contents();

    await expect(openCache(path, 100)).rejects.toThrow(`has no readable shared layout version (shipmock_meta 'layout' is ${shown})`);
    expect(contents(), 'nothing in the file changed').toEqual(before);
  }, 30_000);
});

describe('--workers N --data FILE --cache-size N, through HTTP', () => {
  it('takes --cache-size: three accounts through two workers that each keep one, every write read back, every list whole', async () => {
    const data = newFile();
    const mock = await startChild(['--data', data, '--workers', '2', '--cache-size', '1', '--rate-limit', 'off']);
    children.push(mock);
    const accounts = await Promise.all([newAccount(mock), newAccount(mock), newAccount(mock)]);
    const created = new Map<string, string[]>(accounts.map((account) => [account.id, []]));
    // Interleaved, so that each worker evicts an account between two of its requests.
    for (let i = 0; i < 4; i++) {
      for (const account of accounts) {
        const address = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'address');
        created.get(account.id)!.push(address.id);
        await expectStatus(call(mock.url, 'GET', `/v1/addresses/${address.id}`, { auth: account.auth }), 200, 'read back');
      }
    }
    for (const account of accounts) {
      const listed = await expectStatus(call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list');
      expect(listed.items.map((address: { id: string }) => address.id)).toEqual(created.get(account.id));
    }
    const batches = await expectStatus(call(mock.url, 'GET', '/__admin/store/batches', { admin: true }), 200, 'batches');
    expect(batches.reads.batches, 'GETs ran as read batches').toBeGreaterThan(0);
    expect(await mock.stop()).toBe(0);
  }, 60_000);
});
