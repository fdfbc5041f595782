import { describe, expect, it } from 'vitest';
import { createScopeCache, type ScopeSource } from './scope-cache.js';
import { createStore, Scope, type ScopeSnapshot } from './store.js';

/** A "file" of scope snapshots, counting what is read from it. */
function fakeFile(scopes: Record<string, ScopeSnapshot>) {
  const reads: string[] = [];
  const readers: { read: string[]; sealed: boolean; closed: boolean }[] = [];
  const source: ScopeSource = {
    load(key) {
      reads.push(key);
      const saved = scopes[key];
      if (!saved) return undefined;
      const scope = new Scope();
      scope.restore(structuredClone(saved));
      return scope;
    },
    isStored: (key) => key in scopes,
    storedKeys: () => Object.keys(scopes),
    accountValues: (name) => Object.entries(scopes).filter(([key, saved]) => key.startsWith('account:') && name in saved.values).map(([key, saved]) => [key, saved.values[name]]),
    reader() {
      const reader = { read: [] as string[], sealed: false, closed: false };
      readers.push(reader);
      return {
        snapshot(key) {
          reader.read.push(key);
          return key in scopes ? structuredClone(scopes[key]) : undefined;
        },
        seal: () => void (reader.sealed = true),
        close: () => void (reader.closed = true),
      };
    },
  };
  return { scopes, reads, readers, source };
}

const withNote = (text: string): ScopeSnapshot => ({ collections: { notes: { nextSeq: 2, items: [[1, { id: 'n1', text } as { id: string }]] } }, values: {} });

function cacheOf(capacity: number, busy = new Set<string>()) {
  const file = fakeFile({ 'account:a': withNote('a'), 'account:b': withNote('b'), 'account:c': withNote('c'), 'company:x': withNote('x') });
  const cache = createScopeCache({ capacity, resident: (key) => !key.startsWith('account:'), busy: (key) => busy.has(key) });
  cache.attach(file.source);
  return { file, cache, busy };
}

const noteOf = (scope: Scope | undefined) => scope?.existing<{ id: string; text: string }>('notes')?.get('n1')?.text;

describe('scope cache (a bounded working set of account scopes)', () => {
  it('loads a scope on a miss, keeps at most `capacity` accounts, evicts the least recently used and reloads it', () => {
    const { file, cache } = cacheOf(2);
    expect(noteOf(cache.get('account:a'))).toBe('a');
    expect(noteOf(cache.get('account:b'))).toBe('b');
    cache.get('account:a'); // a is now the most recently used
    expect(noteOf(cache.get('account:c'))).toBe('c');
    expect(cache.loadedCount).toBe(2);
    expect(file.reads).toEqual(['account:a', 'account:b', 'account:c']);
    // b was evicted: asking again reads it from the file; a stayed.
    cache.get('account:a');
    expect(file.reads).toHaveLength(3);
    expect(noteOf(cache.get('account:b'))).toBe('b');
    expect(file.reads).toEqual(['account:a', 'account:b', 'account:c', 'account:b']);
    expect(cache.stats).toEqual({ loads: 4, evictions: 2 });
  });

  it('never evicts resident scopes, and answers has/keys for scopes not in memory', () => {
    const { file, cache } = cacheOf(1);
    expect(noteOf(cache.get('company:x'))).toBe('x');
    cache.get('account:a');
    cache.get('account:b');
    cache.get('company:x');
    expect(file.reads.filter((key) => key === 'company:x')).toHaveLength(1);
    expect(cache.has('account:c')).toBe(true);
    expect(cache.has('account:zz')).toBe(false);
    expect([...cache.keys()].sort()).toEqual(['account:a', 'account:b', 'account:c', 'company:x']);
    // Iterating reads what is not in memory without keeping it.
    expect(Object.fromEntries([...cache].map(([key, scope]) => [key, noteOf(scope)]))).toEqual({ 'account:a': 'a', 'account:b': 'b', 'account:c': 'c', 'company:x': 'x' });
    expect(cache.loadedCount).toBe(1);
  });

  it('keeps a scope with uncommitted writes until the commit, then trims', () => {
    const { cache, busy } = cacheOf(1);
    cache.get('account:a');
    busy.add('account:a');
    cache.get('account:b');
    cache.get('account:c');
    expect(cache.loadedCount).toBe(2); // a (busy) and c (the most recent)
    busy.clear();
    cache.committed();
    expect(cache.loadedCount).toBe(1);
  });

  it('keeps what a running unit of work used until the unit ends, and only that', async () => {
    const { file, cache } = cacheOf(1);
    const slow = cache.begin();
    let resume!: () => void;
    const held = cache.run(slow, async () => {
      const scope = cache.get('account:a')!;
      await new Promise<void>((resolve) => (resume = resolve));
      return { scope, again: cache.get('account:a') };
    });
    const other = cache.begin();
    cache.run(other, () => {
      cache.get('account:b');
      cache.get('account:c');
    });
    expect(cache.loadedCount).toBe(3);
    cache.end(other);
    cache.committed();
    // b and c were the other unit's, which ended: c stays as the most recent, b goes. a is held.
    expect(cache.loadedCount).toBe(2);
    resume();
    const { scope, again } = await held;
    // The slow unit, after its await, gets the same object back: it was never evicted.
    expect(again).toBe(scope);
    expect(file.reads.filter((key) => key === 'account:a')).toHaveLength(1);
    cache.end(slow);
    cache.committed();
    expect(cache.loadedCount).toBe(1);
  });

  it('keeps what anything used while a unit holds (a batch), across awaits, until that unit ends', async () => {
    const { cache } = cacheOf(1);
    const batch = cache.begin();
    cache.hold(batch);
    let resume!: () => void;
    const member = (async () => {
      const scope = cache.get('account:a')!;
      await new Promise<void>((resolve) => (resume = resolve));
      return { scope, again: cache.get('account:a') };
    })();
    cache.get('account:b');
    cache.get('account:c');
    cache.committed();
    // Held by the batch, whatever code used them: nothing goes while it runs.
    expect(cache.loadedKeys()).toEqual(['account:a', 'account:b', 'account:c']);
    resume();
    const { scope, again } = await member;
    expect(again).toBe(scope);
    cache.end(batch);
    cache.hold(undefined);
    cache.committed();
    expect(cache.loadedKeys()).toEqual(['account:a']);
    // Used with no unit holding: only the capacity keeps it.
    cache.get('account:b');
    expect(cache.loadedKeys()).toEqual(['account:b']);
  });

  it('evicts nothing while paused (a member that outlived its batch), and trims when resumed', () => {
    const { cache } = cacheOf(1);
    const resume = cache.pause();
    cache.get('account:a');
    cache.get('account:b');
    cache.committed();
    expect(cache.loadedCount).toBe(2);
    resume();
    resume();
    expect(cache.loadedKeys()).toEqual(['account:b']);
    cache.get('account:c');
    expect(cache.loadedKeys()).toEqual(['account:c']);
  });

  it('never reads back a dropped scope before the commit that removes its rows', () => {
    const { file, cache } = cacheOf(2);
    cache.get('account:a');
    expect(cache.delete('account:a')).toBe(true);
    expect(cache.delete('account:b')).toBe(true); // stored, not in memory
    expect(cache.get('account:a')).toBeUndefined();
    expect(cache.has('account:b')).toBe(false);
    expect([...cache.keys()]).not.toContain('account:b');
    cache.clear();
    expect(cache.get('account:c')).toBeUndefined();
    expect([...cache.keys()]).toEqual([]);
    // The commit removed the rows (here: the fake file forgets them) and the marks go.
    delete file.scopes['account:a'];
    delete file.scopes['account:b'];
    cache.committed();
    expect(noteOf(cache.get('account:c'))).toBe('c');
    expect(cache.has('account:a')).toBe(false);
  });

  it('asks for a commit when busy scopes pile up outside any unit of work', () => {
    const busy = new Set<string>();
    const file = fakeFile(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`account:${i}`, withNote(String(i))])));
    let commits = 0;
    const cache = createScopeCache({ capacity: 2, resident: () => false, busy: (key) => busy.has(key), onPressure: () => (commits++, busy.clear()) });
    cache.attach(file.source);
    for (let i = 0; i < 10; i++) {
      cache.get(`account:${i}`);
      busy.add(`account:${i}`);
    }
    expect(commits).toBeGreaterThan(0);
    expect(cache.loadedCount).toBeLessThanOrEqual(5);
  });

  it('is a drop-in table of a memory store: accounts, reset and snapshot see the scopes not in memory', () => {
    const { cache } = cacheOf(1);
    const store = createStore(undefined, cache);
    expect(store.accountIds().sort()).toEqual(['a', 'b', 'c']);
    expect(store.hasAccount('b')).toBe(true);
    expect(Object.keys(store.snapshot().scopes).sort()).toEqual(['account:a', 'account:b', 'account:c', 'company:x']);
    store.reset('b');
    expect(store.hasAccount('b')).toBe(false);
    expect(store.accountIds().sort()).toEqual(['a', 'c']);
    store.account('d').collection<{ id: string }>('notes').insert({ id: 'n' });
    expect(store.accountIds().sort()).toEqual(['a', 'c', 'd']);
  });

  it('a snapshot gives the scopes not in memory through one reader of the file, sealed at the end, and keeps none of them', () => {
    const { file, cache } = cacheOf(1);
    const store = createStore(undefined, cache);
    store.account('b').collection<{ id: string; text: string }>('notes').update({ id: 'n1', text: 'b in memory' });
    const loadsBefore = file.reads.length;
    const snapshot = store.snapshot();
    const { scopes } = snapshot;
    expect(Object.keys(scopes).sort()).toEqual(['account:a', 'account:b', 'account:c', 'company:x']);
    expect(scopes['account:b'].collections.notes.items[0][1]).toMatchObject({ text: 'b in memory' });
    expect(scopes['account:c'].collections.notes.items[0][1]).toMatchObject({ text: 'c' });
    expect(file.readers).toEqual([{ read: ['account:a', 'account:c', 'company:x'], sealed: true, closed: false }]);
    expect(file.reads.length).toBe(loadsBefore);
    expect(cache.loadedCount).toBe(1);
    // Released (not enumerable: not part of the state), the reader is given up.
    expect(Object.keys(snapshot)).toEqual(['version', 'scopes']);
    snapshot.release!();
    expect(file.readers[0].closed).toBe(true);
  });

  it('gives an account value of every account without loading those not in memory: memory wins for those in it, dropped accounts give none', () => {
    const due = (at: number): ScopeSnapshot => ({ collections: {}, values: { due: at } });
    const file = fakeFile({ 'account:a': due(1), 'account:b': due(2), 'account:c': withNote('c'), 'account:d': due(4), 'company:x': due(9) });
    const cache = createScopeCache({ capacity: 1, resident: (key) => !key.startsWith('account:'), busy: () => false });
    cache.attach(file.source);
    const store = createStore(undefined, cache);
    store.account('a').values.set('due', 10);
    store.reset('d');
    const reads = file.reads.length;
    expect(new Map(store.accountValues('due'))).toEqual(new Map([['a', 10], ['b', 2]]));
    expect(file.reads.length).toBe(reads);
    expect(cache.loadedCount).toBe(1);
  });

  it('refuses a capacity below 1', () => {
    expect(() => createScopeCache({ capacity: 0, resident: () => false, busy: () => false })).toThrow(/at least 1/);
  });
});
