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
 * and makes them durable on `commit()`, which the HTTP layer calls before it answers.
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

export interface ScopeSnapshot {
  collections: Record<string, CollectionSnapshot<Entity>>;
  values: Record<string, unknown>;
}

export interface StoreSnapshot {
  version: 1;
  scopes: Record<string, ScopeSnapshot>;
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
  /** Ids of every account scope (start-up work such as re-arming tracker timers). */
  accountIds(): string[];
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
   * Makes every write since the last commit durable as one transaction. The HTTP layer calls it
   * before writing any response; background work gets it scheduled by `touch`. No-op in memory.
   */
  commit(): void;
  /** Asks for a commit soon (state parts changed outside a request). No-op in memory. */
  touch(): void;
  /** Commits and releases the engine (file handles); the store is unusable after. */
  close(): void;
  /**
   * Why the store cannot take writes right now (a full disk, a read-only file), or undefined.
   * Set by a store one process owns (SQLite): requests are refused with `503 store-unavailable`
   * while it is set, and the store clears it by itself once a write succeeds again.
   */
  unavailable?(): string | undefined;
  /**
   * Checks that the store can be used now (`/__admin/health`): resolves with why not, or
   * undefined. A shared store runs an empty batch against its database.
   */
  probe?(): Promise<string | undefined>;
  /**
   * Set by a store several processes share (PostgreSQL, or a SQLite file of `--workers`): state is read and written in batches,
   * one process at a time across all of them, each batch starting from what the others
   * committed. Absent on stores one process owns.
   */
  readonly shared?: SharedBatches;
}

/**
 * The batches of a shared store. A request (or background work) `enter`s before it touches
 * state and `settle`s when it is done with it; the batch commits when every member has
 * settled, and a member's answer waits for that commit.
 */
export interface SharedBatches {
  /** Joins the batch being opened, or opens the next; resolves once this process's copy is current. Rejects when the database cannot be reached. */
  enter(member: object): Promise<void>;
  /** The member is done with state; resolves when its writes are committed (rejects if that failed). */
  settle(member: object): Promise<void>;
  /** Runs background work (a timer, a delivery's outcome) in a batch of its own. */
  run(work: () => void): Promise<void>;
  /** This process's number among all that ever used the database (its random stream, its name in logs). */
  readonly processNumber: number;
  /**
   * An append-only feed every process writes to and reads from (the journal of all processes):
   * the newest `capacity` items are kept, in one order for all readers.
   */
  feed<T>(name: string, capacity: number): SharedFeed<T>;
}

/** A feed of a shared store: items published by any process reach every subscriber, in one order. */
export interface SharedFeed<T> {
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
export type WorkingSet = Pick<Store, 'account' | 'hasAccount' | 'accountIds' | 'company' | 'global' | 'system' | 'reset' | 'snapshot' | 'restore' | 'parts'>;

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

/** @example const store = createStore(); store.account(id).collection<Address>('addresses') */
export function createStore(watcher?: StoreWatcher): MemoryStore {
  const scopes = new Map<string, Scope>();
  const scope = (key: string): Scope => {
    let found = scopes.get(key);
    if (!found) scopes.set(key, (found = new Scope(watcher?.scope(key))));
    return found;
  };
  const store: MemoryStore = {
    account: (accountId) => scope(`account:${accountId}`),
    hasAccount: (accountId) => scopes.has(`account:${accountId}`),
    accountIds: () => [...scopes.keys()].filter((key) => key.startsWith('account:')).map((key) => key.slice('account:'.length)),
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
      for (const [key, value] of scopes) if (key !== SYSTEM_SCOPE) out[key] = value.snapshot();
      return { version: 1, scopes: out };
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
