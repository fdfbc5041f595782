import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSharedStore, type SharedBackend, type WriteSet } from './shared-store.js';
import { openSqliteStore } from './sqlite-store.js';
import { createStore, SOLE_PROCESS, StoreUnavailableError } from './store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-uow-'));
  dirs.push(dir);
  return join(dir, 'mock.db');
};

/** A database that answers at once; `failCommit`/`failOpen` make the next commit or open fail. */
function fakeBackend() {
  let change = 0;
  const commits: WriteSet[] = [];
  const state = { failOpen: false, failCommit: false, opened: 0 };
  const backend: SharedBackend = {
    accountLocks: true,
    async open() {
      state.opened++;
      if (state.failOpen) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return { head: change, rows: { scopes: [], items: [], collections: [], values: [], parts: [] } };
    },
    async commit(writes) {
      if (state.failCommit) throw new Error('Connection terminated unexpectedly');
      commits.push(writes);
      return { change: ++change };
    },
    abandon() {},
    feed: () => ({ publish() {}, subscribe: () => () => {}, clear() {}, close() {} }),
    async close() {},
  };
  return { backend, commits, state };
}

describe('the unit of work of each store', () => {
  it('memory: the work runs at once and the unit resolves with its result', async () => {
    const store = createStore();
    let ran = false;
    const unit = store.transaction(() => {
      ran = true;
      store.account('a').collection<{ id: string }>('addresses').insert({ id: 'x' });
      return 42;
    });
    expect(ran).toBe(true);
    expect(await unit).toBe(42);
    expect(store.process).toBe(SOLE_PROCESS);
    await expect(store.transaction(() => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
  });

  it('SQLite: fifty units ending in one turn cost one commit, and what they wrote is in the file when they resolve', async () => {
    const path = tempFile();
    const store = openSqliteStore(path);
    const commit = vi.spyOn(store, 'commit');
    const units = Array.from({ length: 50 }, (_, i) =>
      store.transaction(() => store.account('a').collection<{ id: string }>('addresses').insert({ id: `address-${i}` })),
    );
    await Promise.all(units);
    expect(commit).toHaveBeenCalledTimes(1);
    store.close();
    const again = openSqliteStore(path);
    expect(again.account('a').collection('addresses').size).toBe(50);
    again.close();
  });

  it('shared: the work runs in a batch that starts from the database, and the unit resolves once the batch committed', async () => {
    const { backend, commits, state } = fakeBackend();
    const store = createSharedStore(backend, 3);
    const opened: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        store.transaction(() => {
          opened.push(state.opened);
          store.account('a').collection<{ id: string }>('addresses').insert({ id: `address-${n}` });
        }),
      ),
    );
    // One batch for the three units: opened once, committed once with the three writes.
    expect(opened).toEqual([1, 1, 1]);
    expect(commits).toHaveLength(1);
    expect(commits[0].items).toHaveLength(3);
    expect(store.process.number).toBe(3);
    expect(store.process.owns(3)).toBe(true);
    expect(store.process.owns(2)).toBe(false);
    expect(store.process.seed(7)).not.toBe(7);
    store.close();
  });

  it('shared: a database that cannot be reached refuses the unit before its work runs', async () => {
    const { backend, state } = fakeBackend();
    const store = createSharedStore(backend, 1);
    state.failOpen = true;
    let ran = false;
    const refused = await store.transaction(() => (ran = true)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as StoreUnavailableError).reason).toMatch(/the shared database cannot be reached: connect ECONNREFUSED/);
    expect((refused as StoreUnavailableError).outcome).toBe('nothing was changed');
    expect(ran).toBe(false);
    store.close();
  });

  it('shared: a failed commit rejects the unit, saying the write may not have been saved', async () => {
    const { backend, state } = fakeBackend();
    const store = createSharedStore(backend, 1);
    state.failCommit = true;
    const failed = await store.transaction(() => store.account('a').collection<{ id: string }>('addresses').insert({ id: 'x' })).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    expect((failed as StoreUnavailableError).outcome).toBe('the write was not confirmed and may not have been saved');
    store.close();
  });
});
