import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { ISSUED_NUMBERS_COLLECTION, type Store } from './store.js';

interface Note {
  id: string;
  text: string;
}
const fileName = () => join(mkdtempSync(join(tmpdir(), 'shipmock-cache-')), 'x.db');
const notes = (store: Store, account: string) => store.account(account).collection<Note>('notes');
const texts = (store: Store, account: string) => notes(store, account).values().map((n) => n.text);
const ACCOUNTS = ['a1', 'a2', 'a3', 'a4', 'a5'];

/** Five accounts of three notes each, committed, in a store that keeps two accounts in memory. */
function filled(path = fileName()): { store: Store; path: string } {
  const store = openSqliteStore(path, { cacheSize: 2 });
  for (const account of ACCOUNTS) {
    for (let i = 0; i < 3; i++) notes(store, account).insert({ id: `${account}-${i}`, text: `${account} note ${i}` });
    store.account(account).values.set('usage', { calls: account.length });
    store.commit();
  }
  return { store, path };
}

describe('SQLite store with a bounded working set (--cache-size)', () => {
  it('keeps every account correct through eviction and reload, and at most the cache size in memory once committed', () => {
    const { store } = filled();
    for (const account of ACCOUNTS) expect(texts(store, account)).toEqual([0, 1, 2].map((i) => `${account} note ${i}`));
    expect(store.account('a1').values.get('usage')).toEqual({ calls: 2 });
    // A write to an account read back from the file, then evicted and read back again.
    notes(store, 'a1').update({ id: 'a1-1', text: 'changed' });
    notes(store, 'a1').delete('a1-0');
    const added = notes(store, 'a1').insert({ id: 'a1-3', text: 'added' });
    store.commit();
    for (const account of ACCOUNTS.slice(1)) texts(store, account);
    expect(texts(store, 'a1')).toEqual(['changed', 'a1 note 2', 'added']);
    // The insertion sequence survives a reload (cursors stay valid): the next insert goes after it.
    expect(notes(store, 'a1').seqOf(added.id)).toBe(4);
    expect(notes(store, 'a1').insert({ id: 'a1-4', text: 'next' }) && notes(store, 'a1').seqOf('a1-4')).toBe(5);
    expect(store.accountIds().sort()).toEqual(ACCOUNTS);
    store.close();
  });

  it('exports the accounts not in memory as they were at the export, read when asked for, and streams their items as the same JSON', () => {
    const { store } = filled();
    const exported = store.snapshot();
    const a1 = exported.scopes['account:a1'];
    expect(a1.collections.notes.encodedItems).toBeTypeOf('function');
    expect(a1.values).toEqual({ usage: { calls: 2 } });
    // Written and committed after the export, before its items are read.
    notes(store, 'a1').update({ id: 'a1-0', text: 'after the export' });
    notes(store, 'a1').insert({ id: 'a1-3', text: 'added after' });
    notes(store, 'a2').delete('a2-1');
    store.commit();
    const streamed = [...exported.scopes['account:a2'].collections.notes.encodedItems!()];
    expect(streamed.map((pair) => JSON.parse(pair))).toEqual([1, 2, 3].map((seq) => [seq, { id: `a2-${seq - 1}`, text: `a2 note ${seq - 1}` }]));
    expect(a1.collections.notes.nextSeq).toBe(4);
    expect(a1.collections.notes.items.map(([, note]) => (note as Note).text)).toEqual(['a1 note 0', 'a1 note 1', 'a1 note 2']);
    expect([...a1.collections.notes.encodedItems!()].join()).toBe(a1.collections.notes.items.map((pair) => JSON.stringify(pair)).join());
    expect(JSON.parse(JSON.stringify(exported)).scopes['account:a1'].collections.notes.items).toHaveLength(3);
    // The store still reads and writes after the export's reader ended.
    expect(texts(store, 'a1')).toEqual(['after the export', 'a1 note 1', 'a1 note 2', 'added after']);
    store.close();
  });

  it('exports every account, resets one, resets all and imports, reading what is not in memory from the file', () => {
    const { store, path } = filled();
    const exported = store.snapshot();
    expect(Object.keys(exported.scopes).sort()).toEqual(ACCOUNTS.map((a) => `account:${a}`));
    expect(exported.scopes['account:a1'].collections.notes.items).toHaveLength(3);

    store.reset('a1'); // not in memory (evicted)
    expect(store.hasAccount('a1')).toBe(false);
    store.commit();
    expect(store.accountIds().sort()).toEqual(ACCOUNTS.slice(1));
    expect(texts(store, 'a1')).toEqual([]);

    store.reset();
    expect(store.accountIds()).toEqual([]);
    expect(texts(store, 'a2')).toEqual([]);
    store.commit();
    expect(store.hasAccount('a3')).toBe(false);

    store.restore(exported);
    store.commit();
    for (const account of ACCOUNTS) expect(texts(store, account)).toHaveLength(3);
    store.close();

    // After a restart, from the file alone.
    const again = openSqliteStore(path, { cacheSize: 2 });
    expect(again.accountIds().sort()).toEqual(ACCOUNTS);
    expect(again.snapshot()).toEqual(exported);
    again.close();
  });

  it('keeps a scope a running unit of work holds, even past the cache size', async () => {
    const { store } = filled();
    let release!: () => void;
    const held = store.transaction(async () => {
      const scope = store.account('a1');
      await new Promise<void>((resolve) => (release = resolve));
      // Other units used three other accounts meanwhile: this Scope object is still the store's.
      scope.collection<Note>('notes').insert({ id: 'late', text: 'late' });
    });
    for (const account of ['a2', 'a3', 'a4']) await store.transaction(() => texts(store, account));
    release();
    await held;
    for (const account of ['a2', 'a3', 'a5']) await store.transaction(() => texts(store, account));
    expect(texts(store, 'a1')).toContain('late');
    store.close();
  });

  it('gives a value of every account from the values table, without reading the accounts not in memory', () => {
    const { store, path } = filled();
    store.account('a1').values.set('usage', { calls: 9 });
    store.close();
    // The items of a3..a5 (not read ahead: the cache holds two) are made unreadable: reading one would throw.
    const db = new Database(path);
    db.prepare("UPDATE items SET body = 'not json' WHERE scope IN ('account:a3', 'account:a4', 'account:a5')").run();
    db.close();
    const reopened = openSqliteStore(path, { cacheSize: 2 });
    reopened.account('a2').values.set('usage', { calls: 7 });
    reopened.reset('a4');
    expect(new Map(reopened.accountValues('usage'))).toEqual(
      new Map([
        ['a1', { calls: 9 }],
        ['a2', { calls: 7 }],
        ['a3', { calls: 2 }],
        ['a5', { calls: 2 }],
      ]),
    );
    expect(() => texts(reopened, 'a3')).toThrow();
    reopened.close();
  });

  it('reads one account by the primary keys: no table is scanned', () => {
    const { store, path } = filled();
    store.close();
    const db = new Database(path, { readonly: true });
    const plans = [
      'SELECT collection, seq, body FROM items WHERE scope = ? ORDER BY collection, seq',
      'SELECT collection, next_seq FROM collections WHERE scope = ?',
      'SELECT key, value FROM scope_values WHERE scope = ?',
    ].map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('account:a1') as { detail: string }[]).map((row) => row.detail).join('; '));
    db.close();
    for (const plan of plans) {
      expect(plan).toMatch(/SEARCH \w+ USING PRIMARY KEY \(scope=\?/);
      expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
    }
  });

  it('keeps issued carrier numbers in the file: "issued?" is answered by an index, export and import keep them all', () => {
    const path = fileName();
    const store = openSqliteStore(path, { cacheSize: 2 });
    const issued = () => store.global.collection(ISSUED_NUMBERS_COLLECTION);
    for (let i = 0; i < 50; i++) issued().insert({ id: `DPD:STAGING:${i}` });
    // Not committed yet: in memory, and found there.
    expect(issued().size).toBe(50);
    expect(issued().has('DPD:STAGING:7')).toBe(true);
    store.commit();
    // Committed: none stays in memory, each is still found (from the file), a new one is not.
    expect(issued().size).toBe(0);
    expect(issued().has('DPD:STAGING:7')).toBe(true);
    expect(issued().has('DPD:STAGING:50')).toBe(false);
    expect(() => issued().insert({ id: 'DPD:STAGING:3' })).toThrow(/duplicate id/);
    issued().insert({ id: 'DPD:STAGING:50' });
    // The export has every number, in issue order, committed or not.
    const exported = store.snapshot();
    const ids = () => exported.scopes.global.collections[ISSUED_NUMBERS_COLLECTION].items.map(([seq, item]) => `${seq} ${item.id}`);
    expect(ids()).toEqual(Array.from({ length: 51 }, (_, i) => `${i + 1} DPD:STAGING:${i}`));
    expect(exported.scopes.global.collections[ISSUED_NUMBERS_COLLECTION].nextSeq).toBe(52);
    store.commit();

    // An import replaces them: the old numbers are free again, the imported ones are taken.
    store.restore({ version: 1, scopes: { global: { collections: { [ISSUED_NUMBERS_COLLECTION]: { nextSeq: 3, items: [[1, { id: 'UPS:PRODUCTION:a' }], [2, { id: 'UPS:PRODUCTION:b' }]] } }, values: {} } } });
    expect(issued().has('DPD:STAGING:7')).toBe(false);
    expect(issued().has('UPS:PRODUCTION:b')).toBe(true);
    store.commit();
    expect(issued().size).toBe(0);
    expect(issued().has('DPD:STAGING:7')).toBe(false);
    expect(issued().has('UPS:PRODUCTION:b')).toBe(true);
    issued().insert({ id: 'UPS:PRODUCTION:c' });
    store.close();

    // After a restart: nothing in memory, everything found, the sequence goes on.
    const again = openSqliteStore(path, { cacheSize: 2 });
    const reopened = again.global.collection(ISSUED_NUMBERS_COLLECTION);
    expect(reopened.size).toBe(0);
    for (const id of ['UPS:PRODUCTION:a', 'UPS:PRODUCTION:b', 'UPS:PRODUCTION:c']) expect(reopened.has(id)).toBe(true);
    expect(reopened.has('DPD:STAGING:7')).toBe(false);
    expect(reopened.sequence).toBe(4);
    expect(again.snapshot().scopes.global.collections[ISSUED_NUMBERS_COLLECTION].items.map(([, item]) => item.id)).toEqual(['UPS:PRODUCTION:a', 'UPS:PRODUCTION:b', 'UPS:PRODUCTION:c']);
    again.close();

    // The lookup is an index search, not a scan of the items.
    const db = new Database(path, { readonly: true });
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM items WHERE scope = 'global' AND collection = ? AND id = ?)").all(ISSUED_NUMBERS_COLLECTION, 'x') as { detail: string }[]).map((row) => row.detail).join('; ');
    db.close();
    expect(plan).toMatch(/SEARCH items USING COVERING INDEX items_global_ids \(collection=\? AND id=\?/);
  });
});
