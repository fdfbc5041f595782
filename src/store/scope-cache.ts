import { AsyncLocalStorage } from 'node:async_hooks';
import type { Scope, ScopeSnapshot, ScopeTable } from './store.js';

/**
 * The scopes of a durable store that keeps a bounded working set (issue 27): a table of scopes
 * (store.ts, `ScopeTable`) that holds at most `capacity` account scopes in memory, least recently
 * used first out, and reads the others from the store's file when they are asked for.
 *
 * The account scope is the unit: the spec isolates accounts, a request touches one, and a scope
 * is loaded whole (its rows are one index range in the file), so everything a request reads —
 * lists, filters, cursors — is served from memory at the cost of that account's size, never the
 * sandbox's. Scopes for which `resident(key)` holds (companies, the global and system scopes) are
 * loaded on first use like the others and never evicted.
 *
 * A scope is evicted only when nothing can still write to it:
 * - it has no uncommitted writes (`busy`): the file holds all of it;
 * - no unit of work that used it is still running (`begin`, `run`, `end`: the unit is followed
 *   through its awaits with AsyncLocalStorage; or `hold`: what is used while it holds, for a
 *   store whose units run in one batch at a time): a request may hold the Scope object across an
 *   await, and a write to an evicted object would be lost. A slow unit holds only what it used;
 * - it is not among the `capacity` most recently used: code outside any unit (start-up work)
 *   that asked for a scope can use it until it has asked for `capacity` others.
 * So the bound is soft: while scopes are busy or in use the cache holds more, and it trims back
 * after the next commit (`committed`). `onPressure` is asked to commit when busy scopes pile up
 * outside any unit (start-up re-arming of many timers that fell due).
 *
 * Dropping a scope (`delete`, `clear`: a reset, an import) marks its stored rows stale until the
 * commit that removes them, so a stale scope is never read back from the file.
 *
 * @example
 * const cache = createScopeCache({ capacity: 100, resident: (key) => !key.startsWith('account:'), busy: (key) => dirty.has(key) });
 * cache.attach(source); // loads on a miss from here on
 * const memory = createStore(watcher, cache);
 */
export interface ScopeCache extends ScopeTable {
  /** From now on, scopes that are not in memory are read from `source`. */
  attach(source: ScopeSource): void;
  /** A unit of work begins: what it uses inside `run` (and what that awaits) stays in memory until `end(unit)`. */
  begin(): CacheUnit;
  run<T>(unit: CacheUnit, work: () => T): T;
  end(unit: CacheUnit): void;
  /**
   * What is used from now on, anywhere, is held by `unit` (undefined: by nobody), with no
   * AsyncLocalStorage: for a store whose units all run inside one batch at a time (the shared
   * stores), where the batch is the unit. Following each unit through its awaits costs Node's
   * promise hooks on every promise of the process (10–15 % of GET throughput, docs/scaling.md).
   */
  hold(unit: CacheUnit | undefined): void;
  /**
   * Nothing is evicted until the returned function is called: for work that outlives the unit
   * that held what it uses (a member its batch committed without, still running).
   */
  pause(): () => void;
  /** The file now holds every write (a commit succeeded): stale marks go, and the cache trims. */
  committed(): void;
  /** Forgets every scope in memory (the working set goes back to the file after a failed commit). */
  forget(): void;
  /** The scope if it is in memory now: nothing is read from the file, and its place in the eviction order stays. */
  peek(key: string): Scope | undefined;
  /**
   * Drops the scope from memory as it is, without marking its stored rows stale (a shared store
   * whose pull says another process replaced the scope: what is stored is current). Returns
   * whether it was in memory.
   */
  evict(key: string): boolean;
  /** Keys of the non-resident scopes in memory now, least recently used first. */
  loadedKeys(): string[];
  /** Account (non-resident) scopes in memory now. */
  readonly loadedCount: number;
  /** Counters: scopes read from the file, and scopes evicted. */
  readonly stats: { loads: number; evictions: number };
}

/** Where the scopes that are not in memory are kept. */
export interface ScopeSource {
  /** The stored scope of a key as a new Scope, or undefined when nothing is stored under it. */
  load(key: string): Scope | undefined;
  /** Whether anything is stored under the key. */
  isStored(key: string): boolean;
  /** The keys of every stored scope. */
  storedKeys(): Iterable<string>;
  /** The stored value under `name` of every account scope that has one, by scope key (read at once: the caller may read scopes meanwhile). */
  accountValues(name: string): [string, unknown][];
  /** Opens a view of the stored scopes as they are now, which later writes do not change. */
  reader(): StoredScopes;
}

/**
 * Stored scopes as they were when the reader was opened (an export's consistent view of the
 * scopes that are not in memory). Their items are read when a snapshot's `items` or
 * `encodedItems()` asks for them, possibly many turns later.
 */
export interface StoredScopes {
  /** The scope as stored, or undefined when nothing is stored under the key. */
  snapshot(key: string): ScopeSnapshot | undefined;
  /** No more snapshots are asked for: the view ends once the items it gave out have been read. */
  seal(): void;
  /** Ends the view now: what it gave out and was not read cannot be read any more (a snapshot kept only in case, then dropped). */
  close(): void;
}

/**
 * Account scopes a durable store keeps in memory unless told otherwise (`--cache-size`): a
 * sandbox's active accounts — one per CI job or tester at work now — fit many times over, and at
 * ~1.5 MB for an account of 100 bookings the working set stays near 150 MB however large the
 * sandbox grows.
 */
export const DEFAULT_CACHE_SIZE = 100;

export interface ScopeCacheOptions {
  /** Non-resident scopes kept in memory when none is busy or in use (at least 1). */
  capacity: number;
  /** Scopes never evicted (companies, global, system). */
  resident: (key: string) => boolean;
  /** Whether the scope has writes the file does not hold yet. */
  busy: (key: string) => boolean;
  /** Asked to commit when busy scopes pile up outside any unit of work; it may throw. */
  onPressure?: () => void;
}

interface Entry {
  scope: Scope;
  /** Running units of work that used it. */
  holders: number;
}

/** A unit of work as the cache follows it: the scopes it used. */
export interface CacheUnit {
  readonly used: Set<Entry>;
  /** Set by `end`: work that outlives its unit (a callback it scheduled) holds nothing more. */
  ended?: boolean;
}

/** What a cache holds and knows (the functions below share it). */
interface CacheState {
  options: ScopeCacheOptions;
  source?: ScopeSource;
  residents: Map<string, Scope>;
  /** Least recently used first. */
  loaded: Map<string, Entry>;
  /** Keys whose stored rows were dropped by a reset or an import the file has not seen yet. */
  stale: Set<string>;
  allStale: boolean;
  /** The unit of work running now, followed through its awaits. */
  current: AsyncLocalStorage<CacheUnit>;
  /** The unit that holds whatever is used now (`hold`), whichever code uses it. */
  holder?: CacheUnit;
  /** Pauses of eviction not yet resumed. */
  paused: number;
  running: number;
  relieving: boolean;
  stats: { loads: number; evictions: number };
}

export function createScopeCache(options: ScopeCacheOptions): ScopeCache {
  const { capacity, resident } = options;
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`cache capacity must be an integer of at least 1 (got ${capacity})`);
  const state: CacheState = {
    options,
    residents: new Map(),
    loaded: new Map(),
    stale: new Set(),
    allStale: false,
    current: new AsyncLocalStorage<CacheUnit>(),
    paused: 0,
    running: 0,
    relieving: false,
    stats: { loads: 0, evictions: 0 },
  };
  const { residents, loaded, stale } = state;
  const entries = () => allScopes(state);
  const isStored = (key: string) => Boolean(state.source) && !isStale(state, key) && state.source!.isStored(key);

  const cache: ScopeCache = {
    get(key) {
      if (resident(key)) {
        let scope = residents.get(key);
        if (!scope && (scope = load(state, key))) residents.set(key, scope);
        return scope;
      }
      const entry = loaded.get(key);
      if (entry) return use(state, key, entry);
      const scope = load(state, key);
      if (!scope) return undefined;
      use(state, key, { scope, holders: 0 });
      trim(state);
      relieve(state);
      return scope;
    },
    set(key, scope) {
      if (resident(key)) residents.set(key, scope);
      else {
        use(state, key, { scope, holders: 0 });
        trim(state);
      }
      return cache;
    },
    has: (key) => residents.has(key) || loaded.has(key) || isStored(key),
    delete(key) {
      const had = residents.delete(key) || loaded.delete(key) || isStored(key);
      stale.add(key);
      return had;
    },
    clear() {
      residents.clear();
      loaded.clear();
      stale.clear();
      state.allStale = true;
    },
    keys: () => allKeys(state),
    entries,
    snapshots(except) {
      const opened: { view?: StoredScopes } = {};
      return Object.assign(allSnapshots(state, except, opened), { close: () => opened.view?.close() });
    },
    accountValues: (name) => allAccountValues(state, name),
    [Symbol.iterator]: entries,
    attach(next) {
      state.source = next;
    },
    begin() {
      state.running++;
      return { used: new Set() };
    },
    run: (unit, work) => state.current.run(unit, work),
    hold(unit) {
      state.holder = unit;
    },
    pause() {
      state.paused++;
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        state.paused--;
        trim(state);
      };
    },
    end(unit) {
      unit.ended = true;
      state.running--;
      for (const entry of unit.used) entry.holders--;
      unit.used.clear();
    },
    committed() {
      stale.clear();
      state.allStale = false;
      trim(state);
    },
    forget() {
      residents.clear();
      loaded.clear();
      stale.clear();
      state.allStale = false;
    },
    peek: (key) => residents.get(key) ?? loaded.get(key)?.scope,
    evict: (key) => residents.delete(key) || loaded.delete(key),
    loadedKeys: () => [...loaded.keys()],
    get loadedCount() {
      return loaded.size;
    },
    stats: state.stats,
  };
  return cache;
}

const isStale = (state: CacheState, key: string) => state.allStale || state.stale.has(key);

/** Makes the entry the most recently used, held by the running unit if there is one. */
function use(state: CacheState, key: string, entry: Entry): Scope {
  state.loaded.delete(key);
  state.loaded.set(key, entry);
  const unit = state.holder ?? state.current.getStore();
  if (unit && !unit.ended && !unit.used.has(entry)) {
    unit.used.add(entry);
    entry.holders++;
  }
  return entry.scope;
}

/** Evicts least recently used scopes beyond `capacity` that nothing can still write to. */
function trim(state: CacheState): void {
  const { loaded, options } = state;
  let candidates = loaded.size - options.capacity;
  if (candidates <= 0 || state.paused > 0) return;
  for (const [key, entry] of loaded) {
    if (candidates-- <= 0) break;
    if (entry.holders > 0 || options.busy(key)) continue;
    loaded.delete(key);
    state.stats.evictions++;
  }
}

/** Busy scopes piling up with no unit running (start-up work): commit them so they can go. */
function relieve(state: CacheState): void {
  const { options } = state;
  if (state.relieving || state.running || state.loaded.size <= 2 * options.capacity || !options.onPressure) return;
  state.relieving = true;
  try {
    options.onPressure();
  } catch {
    // The store reports its own failures; the scopes stay until a commit succeeds.
  } finally {
    state.relieving = false;
  }
  trim(state);
}

function load(state: CacheState, key: string): Scope | undefined {
  if (!state.source || isStale(state, key)) return undefined;
  const scope = state.source.load(key);
  if (scope) state.stats.loads++;
  return scope;
}

function* allKeys(state: CacheState): IterableIterator<string> {
  const { residents, loaded, stale, source } = state;
  yield* residents.keys();
  yield* loaded.keys();
  if (!source || state.allStale) return;
  for (const key of source.storedKeys()) if (!residents.has(key) && !loaded.has(key) && !stale.has(key)) yield key;
}

/**
 * The value under `name` of every account scope: from memory for those in memory (they may have
 * writes the file does not hold yet), from the file's values for the others, without loading them.
 */
function allAccountValues(state: CacheState, name: string): [string, unknown][] {
  const { loaded, stale, source } = state;
  const out: [string, unknown][] = [];
  for (const [key, entry] of loaded) if (entry.scope.values.has(name)) out.push([key, entry.scope.values.get(name)]);
  if (!source || state.allStale) return out;
  for (const [key, value] of source.accountValues(name)) if (!loaded.has(key) && !stale.has(key)) out.push([key, value]);
  return out;
}

/**
 * Every scope: those in memory as they are, the others read one at a time — and kept while the
 * cache has room, so a sandbox that fits stays in memory as it did without a cache (an export
 * of it does not read the file again each time); past the capacity they are not kept.
 */
function* allScopes(state: CacheState): IterableIterator<[string, Scope]> {
  for (const key of allKeys(state)) {
    const scope = state.residents.get(key) ?? state.loaded.get(key)?.scope ?? loadIfRoom(state, key);
    if (scope) yield [key, scope];
  }
}

function loadIfRoom(state: CacheState, key: string): Scope | undefined {
  const scope = load(state, key);
  if (scope && state.loaded.size < state.options.capacity) state.loaded.set(key, { scope, holders: 0 });
  return scope;
}

/**
 * Every scope's snapshot: those in memory as they are; the others as the file holds them now,
 * through one reader, their items read when they are asked for (an export streams a 100k-item
 * account in slices instead of reading and building it in one go), and not kept in memory.
 */
function* allSnapshots(state: CacheState, except: string, opened: { view?: StoredScopes }): IterableIterator<[string, ScopeSnapshot]> {
  try {
    for (const key of allKeys(state)) {
      if (key === except) continue;
      const scope = state.residents.get(key) ?? state.loaded.get(key)?.scope;
      if (scope) {
        yield [key, scope.snapshot()];
        continue;
      }
      const stored = (opened.view ??= state.source!.reader()).snapshot(key);
      if (stored) yield [key, stored];
    }
  } finally {
    opened.view?.seal();
  }
}
