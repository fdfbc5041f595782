import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchStatsSnapshot } from './lock-stats.js';
import { Collection, type CollectionSnapshot, type Entity } from './collection.js';
import { createStateRegistry, exportedAs, type StateRegistry } from './state-registry.js';

/**
 * All mutable state of a mock instance, behind one registry (no module globals).
 *
 * State lives in scopes: `account:<id>` (the isolation unit of the spec), `company:<id>`, and
 * `global`. A scope is created lazily on first use and holds named collections plus a small
 * key/value map for counters. `reset(accountId)` drops one account's scope; `reset()` all.
 *
 * Every read and write of the domain goes through this interface. The memory store is the
 * working set of every engine: a durable store (src/store/sqlite-store.ts) watches the writes
 * and makes them durable when a unit of work (`transaction`) ends, before a request's answer.
 */
export class Scope {
  // Each collection holds its own entity type; `collection<T>()` gives it back as the type its callers name.
  private readonly collections = new Map<string, Collection<Entity>>();
  /** Small per-scope values (usage counters, settings) that are not lists of resources. */
  readonly values: Map<string, unknown>;

  constructor(private readonly watcher?: ScopeWatcher) {
    this.values = watcher ? new WatchedMap((key) => watcher.value(key)) : new Map();
  }

  collection<T extends Entity>(name: string): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      const watcher = this.watcher;
      collection = new Collection<Entity>(watcher && ((id, seq) => watcher.item(name, id, seq)));
      this.collections.set(name, collection);
    }
    return collection as Collection<T>;
  }

  /** Names of the collections this scope has created so far. */
  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** The collection if it exists, without creating it. */
  existing<T extends Entity>(name: string): Collection<T> | undefined {
    return this.collections.get(name) as Collection<T> | undefined;
  }

  snapshot(): ScopeSnapshot {
    const collections: Record<string, CollectionSnapshot<Entity>> = {};
    for (const [name, collection] of this.collections) {
      const data = collection.snapshot();
      // A collection is created by its first read; one never written to is not state (a refused
      // request that looked up an unknown id must leave the export as it was).
      if (data.items.length === 0 && data.nextSeq === 1) continue;
      collections[name] = data;
    }
    return { collections, values: Object.fromEntries(this.values) };
  }

  restore(snapshot: ScopeSnapshot): void {
    this.collections.clear();
    this.values.clear();
    for (const [name, data] of Object.entries(snapshot.collections)) this.collection(name).restore(data);
    for (const [key, value] of Object.entries(snapshot.values)) this.values.set(key, value);
  }
}

/** A Map that reports every key it changes (Scope.values of a durable store). */
class WatchedMap extends Map<string, unknown> {
  constructor(private readonly changed?: (key: string) => void) {
    super();
  }
  override set(key: string, value: unknown): this {
    super.set(key, value);
    // Map's constructor calls set before `changed` exists.
    this.changed?.(key);
    return this;
  }
  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.changed?.(key);
    return had;
  }
  override clear(): void {
    for (const key of [...this.keys()]) this.delete(key);
  }
}

/**
 * The global scope's collection of issued carrier numbers (`<carrier>:<side>:<number>`): a ledger
 * that is only asked "was this issued?" and exported. A durable store of one process keeps it in
 * its file and not in memory (issue 27: it grows with every booking).
 */
export const ISSUED_NUMBERS_COLLECTION = 'issued-carrier-numbers';

export interface ScopeSnapshot {
  collections: Record<string, CollectionSnapshot<Entity>>;
  values: Record<string, unknown>;
}

export interface StoreSnapshot {
  version: 1;
  scopes: Record<string, ScopeSnapshot>;
  /**
   * Not enumerable, on a durable store's snapshot whose stored scopes are read when asked for:
   * gives up what was not read yet (the view's transaction and connection) — for a snapshot
   * taken only in case (an import's way back), once it is no longer needed.
   */
  release?(): void;
}

/** What a durable store is told about each write of one scope. */
export interface ScopeWatcher {
  /** An item was inserted, updated or deleted; `seq` is its slot's insertion sequence. */
  item(collection: string, id: string, seq: number): void;
  value(key: string): void;
}

/**
 * What a durable store is told about the writes of a memory store: items and values that
 * changed, scopes that were dropped or replaced wholesale.
 */
export interface StoreWatcher {
  scope(key: string): ScopeWatcher;
  /** The scope was dropped or replaced (reset, import): its stored rows are all stale. */
  replaced(key: string): void;
}

export interface Store {
  account(accountId: string): Scope;
  /** Whether the account's scope exists, without creating it (readers of deleted accounts). */
  hasAccount(accountId: string): boolean;
  /**
   * The account's scope if it is in memory now, without reading it from the database (a shared
   * store's bounded working set: a guess made before a unit, such as unit-lock.ts's, does not
   * read an account); undefined when it is not. Absent: every account is in memory.
   */
  accountInMemory?(accountId: string): Scope | undefined;
  /** Ids of every account scope (start-up work such as re-arming tracker timers). */
  accountIds(): string[];
  /**
   * The value kept under `key` in each account scope that has one, without reading the accounts
   * that are not in memory (a bounded working set reads them from its file's values): a small
   * per-account index, such as the trackers' next due scan (tracker-timers.ts).
   */
  accountValues(key: string): Iterable<[accountId: string, value: unknown]>;
  company(companyId: string): Scope;
  readonly global: Scope;
  /**
   * State of the mock's own machinery rather than of resources: the webhook delivery queue and
   * log. Durable like every scope (a --data mock resumes its retries after a restart), but left
   * out of `snapshot()` — GET /__admin/state carries resources, not deliveries — and dropped by
   * `restore()` and `reset()` of everything, as the deliveries always were.
   */
  readonly system: Scope;
  /** Drops one account's state, or everything when no id is given. */
  reset(accountId?: string): void;
  snapshot(): StoreSnapshot;
  restore(snapshot: StoreSnapshot): void;
  /** True when writes outlive the process (`commit` does work). */
  readonly durable: boolean;
  /**
   * Every part of the instance's state (state-registry.ts): the scopes register as the part
   * `store`, every other stateful component registers where it is built. A durable store keeps
   * the durable parts (and gives their saved values back as they register).
   */
  readonly parts: StateRegistry;
  /**
   * Makes every write since the last commit durable as one transaction, now (start-up work such
   * as saving the token secret). Units of work commit through `transaction`. No-op in memory.
   */
  commit(): void;
  /** Asks for a commit soon (state parts changed outside a request). No-op in memory. */
  touch(): void;
  /** Commits and releases the engine (file handles); the store is unusable after. */
  close(): void;
  /**
   * Checks that the store can be used now (`/__admin/health`): resolves with why not, or
   * undefined. A shared store runs an empty batch against its database.
   */
  probe?(): Promise<string | undefined>;
  /** A shared store's batch counters since this process started (GET /__admin/store/batches). */
  batchStats?(): BatchStatsSnapshot;
  /**
   * The unit of work — the only way a change becomes durable or shared. Runs `work` once this
   * process's copy of the state is current and resolves with its result once what it changed is
   * committed. `work` may return a promise: the unit ends when it settles (a request's unit ends
   * when its answer is ready). What "committed" means is the store's:
   * - memory: nothing to do; `work` runs at once and the unit resolves on the next microtask;
   * - SQLite: `work` runs at once; every unit that ends in one turn of the event loop commits in
   *   ONE transaction (group commit: fifty concurrent POSTs cost one commit);
   * - shared (PostgreSQL, SQLite of `--workers`): `work` runs in this process's next batch, which
   *   starts from what every process committed, and the unit resolves when that batch commits.
   * Rejects with a `StoreUnavailableError` when the store cannot be used: before `work` ran (a
   * SQLite file that cannot take writes refuses a request; a database that cannot be reached),
   * or at the commit (the working set is back to what is committed). A `background` unit (a
   * timer, a webhook outcome) is never refused by a store one process owns: while its file
   * fails, what the work wrote waits in the working set and is committed when a write succeeds.
   * @example await store.transaction(() => service.create(input));
   */
  transaction<T>(work: (unit?: UnitHandle) => T | PromiseLike<T>, kind?: UnitKind, lock?: UnitLock): Promise<T>;
  /**
   * Runs `callback` once what the unit of work running now wrote is committed; a shared store
   * drops it when that unit's batch does not commit (a read that runs again under its lock, a
   * refused commit), so what it records in memory only (the inspector's newest events) shows
   * nothing that did not happen. Absent (memory, SQLite), or outside a unit: at once.
   */
  afterCommit?(callback: () => void): void;
  /**
   * Whether units of work say what they lock (a shared store: PostgreSQL locks per account and
   * reads without a lock; SQLite's shared layout reads without a lock, and its locks are all the
   * file's): callers then pass `transaction`'s `lock`. Absent or false: the lock is ignored
   * (memory, a SQLite file of one process).
   */
  readonly locksAccounts?: boolean;
  /** This process among all the processes that use the store (one, unless it is shared). */
  readonly process: StoreProcess;
  /**
   * Where counters every process must count in are kept (rate-limit and login-lockout windows),
   * by name. A store one process owns gives a Map of this process (not saved: windows are
   * short-lived); a shared store gives a view of its values in which each entry is a row.
   */
  counters<V>(name: string, isValue: (value: unknown) => value is V): CounterMap<V>;
  /**
   * Where each request of a read (`UnitLock.read`) counts: its account's rate-limit window. A
   * shared store that can count ahead (PostgreSQL) counts a read batch's requests in its pull,
   * under their accounts' locks, and the limiter's writes of those counts are then no writes of
   * the batch: a read under a counted limit needs no commit. Absent: nothing is counted ahead.
   */
  countReadsAhead?(windows: ReadWindows): void;
  /**
   * An append-only feed every process writes to and reads from (the journal of all processes).
   * A store one process owns has no other reader: its feed keeps nothing.
   */
  feed<T>(name: string, capacity: number): SharedFeed<T>;
}

/**
 * What a unit of work of a shared store locks (docs/scaling.md, "What a unit locks"): one
 * account — its scope and the rate-limit window of its own credential; units of different
 * accounts run at the same time in different processes — or, absent, everything (wide: companies,
 * the clock, scenarios, carrier-wide data, anything not known to stay inside one account).
 * `read`: the unit is expected to write nothing (a GET): a shared store that locks per account
 * runs it without the lock, on state at least as new as every commit acknowledged before it
 * started, and has it run again under the lock if it wrote after all (ReadMustLockError).
 * `wide`: the unit locks everything, as if absent, but names the account it works on (a
 * booking, a request of an account with event channels): a store that keeps a bounded working
 * set reads that account ahead instead of on the unit's first use of it.
 */
export type UnitLock = { account: string; read?: boolean; wide?: boolean } | undefined;

/**
 * A unit locked as a read (`UnitLock.read`: a GET of one account) ran without its account's lock
 * and wrote something whose commit could not be proven equal to a locked run (another process
 * changed that account since the read's pull): nothing was committed and the working set is put
 * back; the caller runs the unit again, holding the account's lock.
 */
export class ReadMustLockError extends Error {
  constructor() {
    super('the read wrote state another process changed meanwhile: run it again under its lock');
    this.name = 'ReadMustLockError';
  }
}

/** Who waits for a unit of work: an answer to a client, or nobody (timers, webhook outcomes). */
export type UnitKind = 'request' | 'background';

/** A shared store refused a commit: another process changed a row the batch wrote outside its lock (the reason its StoreUnavailableError gives). */
export const OUTSIDE_LOCK_CONFLICT = 'another process changed state this batch wrote outside its account at the same time; nothing was written';

/**
 * The store cannot be used now: why (`reason`), and what became of the unit's writes
 * (`outcome`: nothing was changed, or they may not have been saved). Requests answer it with a
 * 503 `store-unavailable` problem and Retry-After.
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly reason: string,
    readonly outcome = 'nothing was changed',
  ) {
    super(reason);
    this.name = 'StoreUnavailableError';
  }
}

/** A Map-like set of counters (`Store.counters`); a Map is one. */
/**
 * How the windows reads count in run, for a store that counts them ahead (`Store.countReadsAhead`):
 * each account's is the `CountedWindow` of its Account token, the system value
 * `rate:principal:account:<id>` (the one a unit of that account locks, shared-store.ts insideLock).
 */
export interface ReadWindows {
  /** The window's length now; undefined while requests are not counted (`--rate-limit off`). */
  windowMs(): number | undefined;
  /** The clock the limiter reads. */
  now(): number;
}

/** A rate-limit window as counters keep it (the rate limiter's `Window`). */
export interface CountedWindow {
  startedAt: number;
  count: number;
}

export interface CounterMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): boolean;
  clear(): void;
  readonly size: number;
  /** [key, value] pairs, oldest first. */
  entries(): IterableIterator<[string, V]>;
}

/**
 * This process among the processes of a store. Work only one process may do (sending a webhook
 * delivery) is stamped with the number of the process that does it.
 */
export interface StoreProcess {
  /** Its number among all that ever used the store (1, 2, …); 0 when no other process can use it. */
  readonly number: number;
  /** The random seed of this process: processes sharing a store draw from streams of their own, so they never hand out the same ids. */
  seed(seed: number): number;
  /** Whether work stamped with `owner` is this process's to do (one process: all of it). */
  owns(owner: number | undefined): boolean;
  /**
   * Takes over the unfinished work of processes that stopped: claims it in the store (the claim
   * is committed before `adopt` is called) and hands it to `adopt`. Nothing to take over when no
   * other process uses the store. Returns a function that stops watching.
   */
  adoptAbandoned<T extends OwnedWork>(watch: AbandonedWork<T>): () => void;
}

/** Work stamped with the process that does it (a webhook delivery). */
export interface OwnedWork {
  owner?: number;
}

/** What `StoreProcess.adoptAbandoned` watches. */
export interface AbandonedWork<T extends OwnedWork> {
  /** The records holding the work (asked for on every pass: a reset replaces them). */
  records: () => { values(): T[]; update(item: T): unknown };
  /** Whether an item still needs doing. */
  unfinished(item: T): boolean;
  /** Told of the items claimed from stopped processes (numbers of the stopped ones with them). */
  adopt(items: T[], stopped: number[]): void;
  /** Told when a pass could not run (the database is away). */
  onError?(error: Error): void;
}

/** The only process of a store no other process can use (memory, a SQLite file of one process). */
export const SOLE_PROCESS: StoreProcess = {
  number: 0,
  seed: (seed) => seed,
  owns: () => true,
  adoptAbandoned: () => () => {},
};

/** A feed no other process reads (a store one process owns): the process's own journal has its items. */
export function soleFeed<T>(): SharedFeed<T> {
  return { publish() {}, subscribe: () => () => {}, clear() {} };
}

/** What a unit of work may ask of its store while it runs (`Store.transaction` passes it to the work). */
export interface UnitHandle {
  /**
   * Waits `ms` of real time holding nothing (a scenario's latency): in a shared store the unit's
   * batch commits what it wrote so far and goes on without it, and the unit goes on in a later
   * batch (of its lock, pulled afresh) — so a delayed request holds no other request back. The
   * caller holds no state object across the wait. Once the unit has ended (its client left), what
   * runs right after the wait, synchronously, still runs in a batch (left on the next turn).
   * Elsewhere a plain wait: the unit holds nothing that others wait for.
   */
  waitOutside(ms: number): Promise<void>;
}

/** The handle of a unit that holds nothing others wait for (memory, a SQLite file of one process). */
export const PLAIN_UNIT: UnitHandle = { waitOutside: (ms) => sleep(ms) };

/** The unit of work of a store with nothing to commit (memory): the work runs now. */
export function runNow<T>(work: (unit?: UnitHandle) => T | PromiseLike<T>): Promise<T> {
  try {
    return Promise.resolve(work(PLAIN_UNIT));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Counters of this process only (a store one process owns): a Map. */
export function processCounters<V>(): CounterMap<V> {
  return new Map<string, V>();
}

/** A feed of a shared store: items published by any process reach every subscriber, in one order. */
export interface SharedFeed<T> {
  /** The number of the process publishing here, which its items carry (absent: no other process reads the feed). */
  readonly origin?: number;
  /** How many processes share the feed now (heard from lately, this one included); absent: this one alone. */
  readonly sharers?: () => number;
  /** Queues an item (sent within ~100 ms, with the others queued by then); `tag` lets `clear` find it (an account id). */
  publish(item: T, tag?: string): void;
  /** Told of every item other processes publish from now on, and of their clears (a process has its own already). */
  subscribe(onItems: (items: T[]) => void, onClear: (tag?: string) => void): () => void;
  /** Drops the items with this tag, or all, in every process. */
  clear(tag?: string): void;
}

/** The in-memory working set, optionally watched by a durable store. */
export interface MemoryStore extends Store {
  /** Every scope key with its scope (durable stores read the working set when they commit). */
  scopeEntries(): IterableIterator<[string, Scope]>;
  /** The scope of a key if it exists, without creating it. */
  existingScope(key: string): Scope | undefined;
  /** The scope of a key, created if missing (a shared store applying another process's writes). */
  scopeAt(key: string): Scope;
  /** Drops a scope by key (the watcher is told, as by reset). */
  dropScope(key: string): void;
}

/** What a durable store answers straight from its memory working set. */
export type WorkingSet = Pick<Store, 'account' | 'hasAccount' | 'accountIds' | 'accountValues' | 'company' | 'global' | 'system' | 'reset' | 'snapshot' | 'restore' | 'parts'>;

/**
 * The working-set part of a durable store (SQLite, shared): scopes are read live (a reset
 * replaces them), so add the rest with Object.assign onto this object, not by spreading it.
 * @example const store: Store = Object.assign(workingSetOf(memory), { durable: true, commit, touch, close });
 */
export function workingSetOf(memory: MemoryStore): WorkingSet {
  return {
    account: memory.account,
    hasAccount: memory.hasAccount,
    accountIds: memory.accountIds,
    accountValues: memory.accountValues,
    company: memory.company,
    get global() {
      return memory.global;
    },
    get system() {
      return memory.system;
    },
    reset: memory.reset,
    snapshot: memory.snapshot,
    restore: memory.restore,
    parts: memory.parts,
  };
}

/** The key of `Store.system`; a durable store loads it back like any scope. */
export const SYSTEM_SCOPE = 'system';

/**
 * Where a memory store keeps its scopes by key: a Map (every scope in memory), or a bounded
 * cache over a file (scope-cache.ts) whose `get` and `has` read the file on a miss, whose `keys`
 * include the stored scopes not in memory, and whose iteration reads those one at a time.
 */
export interface ScopeTable {
  get(key: string): Scope | undefined;
  set(key: string, scope: Scope): unknown;
  has(key: string): boolean;
  delete(key: string): boolean;
  clear(): void;
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, Scope]>;
  [Symbol.iterator](): IterableIterator<[string, Scope]>;
  /**
   * Every scope's snapshot but `except`'s, when the table knows a cheaper way than
   * `scope.snapshot()` of each entry (a cache gives the scopes not in memory as its file holds
   * them, their items read when they are asked for).
   */
  snapshots?(except: string): Iterable<[string, ScopeSnapshot]> & { close(): void };
  /** The value under `key` of every account scope (by scope key) that has one, without loading the scopes not in memory. */
  accountValues?(key: string): Iterable<[string, unknown]>;
}

/** The value under `name` of every account scope of a table that holds them all in memory. */
function* valuesIn(scopes: ScopeTable, name: string): Iterable<[string, unknown]> {
  for (const [key, scope] of scopes) if (key.startsWith('account:') && scope.values.has(name)) yield [key, scope.values.get(name)];
}

/**
 * @example const store = createStore(); store.account(id).collection<Address>('addresses')
 * @example const store = createStore(dirty.watcher, createScopeCache({ capacity: 100, … })) // a bounded working set
 */
export function createStore(watcher?: StoreWatcher, scopes: ScopeTable = new Map<string, Scope>()): MemoryStore {
  const scope = (key: string): Scope => {
    let found = scopes.get(key);
    if (!found) scopes.set(key, (found = new Scope(watcher?.scope(key))));
    return found;
  };
  const store: MemoryStore = {
    account: (accountId) => scope(`account:${accountId}`),
    hasAccount: (accountId) => scopes.has(`account:${accountId}`),
    accountIds: () => [...scopes.keys()].filter((key) => key.startsWith('account:')).map((key) => key.slice('account:'.length)),
    *accountValues(name) {
      const found = scopes.accountValues ? scopes.accountValues(name) : valuesIn(scopes, name);
      for (const [key, value] of found) yield [key.slice('account:'.length), value];
    },
    company: (companyId) => scope(`company:${companyId}`),
    get global() {
      return scope('global');
    },
    get system() {
      return scope(SYSTEM_SCOPE);
    },
    reset(accountId) {
      if (accountId === undefined) {
        if (watcher) for (const key of scopes.keys()) watcher.replaced(key);
        scopes.clear();
      } else {
        const key = `account:${accountId}`;
        if (scopes.delete(key)) watcher?.replaced(key);
      }
    },
    snapshot() {
      const out: Record<string, ScopeSnapshot> = {};
      const snapshot: StoreSnapshot = { version: 1, scopes: out };
      if (scopes.snapshots) {
        const all = scopes.snapshots(SYSTEM_SCOPE);
        for (const [key, value] of all) out[key] = value;
        Object.defineProperty(snapshot, 'release', { value: all.close });
      } else {
        for (const [key, value] of scopes) {
          if (key === SYSTEM_SCOPE) continue;
          const data = value.snapshot();
          // A scope is created by its first read, as a collection is (Scope.snapshot): one that
          // holds nothing is not state (a refused GET of an account nothing was written to yet
          // must leave the export as it was).
          if (Object.keys(data.collections).length || Object.keys(data.values).length) out[key] = data;
        }
      }
      return snapshot;
    },
    restore(snapshot) {
      if (snapshot?.version !== 1) throw new Error('unsupported state snapshot version');
      if (watcher) for (const key of scopes.keys()) watcher.replaced(key);
      scopes.clear();
      for (const [key, data] of Object.entries(snapshot.scopes)) {
        // An import brings resources only (see `system`); a durable store loads that scope itself.
        if (key === SYSTEM_SCOPE) continue;
        watcher?.replaced(key);
        scope(key).restore(data);
      }
    },
    durable: false,
    parts: createStateRegistry(),
    commit() {},
    touch() {},
    close() {},
    transaction: runNow,
    process: SOLE_PROCESS,
    counters: processCounters,
    feed: soleFeed,
    scopeEntries: () => scopes.entries(),
    existingScope: (key) => scopes.get(key),
    scopeAt: scope,
    dropScope(key) {
      if (scopes.delete(key)) watcher?.replaced(key);
    },
  };
  // The scopes are the first part: resources of every account, companies' accounts, the global
  // scope (issued carrier numbers). The system scope is its owners' (webhook deliveries).
  store.parts.register({
    name: 'store',
    description: 'resources in the scopes of accounts, companies and the global scope',
    durable: true,
    storage: 'rows',
    sharing: 'shared',
    reset: 'per-account',
    snapshot: () => store.snapshot(),
    restore: (saved: StoreSnapshot) => store.restore(saved),
    clear: (accountId) => store.reset(accountId),
    exported: exportedAs('store', () => store.snapshot(), (saved: StoreSnapshot) => store.restore(saved)),
  });
  return store;
}
