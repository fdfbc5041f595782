import { Collection, type CollectionSnapshot, type Entity } from './collection.js';

/**
 * All mutable state of a mock instance, behind one registry (no module globals).
 *
 * State lives in scopes: `account:<id>` (the isolation unit of the spec), `company:<id>`, and
 * `global`. A scope is created lazily on first use and holds named collections plus a small
 * key/value map for counters. `reset(accountId)` drops one account's scope; `reset()` all.
 */
export class Scope {
  private readonly collections = new Map<string, Collection<any>>();
  /** Small per-scope values (usage counters, settings) that are not lists of resources. */
  readonly values = new Map<string, unknown>();

  collection<T extends Entity>(name: string): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) this.collections.set(name, (collection = new Collection<T>()));
    return collection as Collection<T>;
  }

  snapshot(): ScopeSnapshot {
    const collections: Record<string, CollectionSnapshot<Entity>> = {};
    for (const [name, collection] of this.collections) collections[name] = collection.snapshot();
    return { collections, values: Object.fromEntries(this.values) };
  }

  restore(snapshot: ScopeSnapshot): void {
    this.collections.clear();
    this.values.clear();
    for (const [name, data] of Object.entries(snapshot.collections)) this.collection(name).restore(data);
    for (const [key, value] of Object.entries(snapshot.values)) this.values.set(key, value);
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

export interface Store {
  account(accountId: string): Scope;
  /** Whether the account's scope exists, without creating it (readers of deleted accounts). */
  hasAccount(accountId: string): boolean;
  company(companyId: string): Scope;
  readonly global: Scope;
  /** Drops one account's state, or everything when no id is given. */
  reset(accountId?: string): void;
  snapshot(): StoreSnapshot;
  restore(snapshot: StoreSnapshot): void;
}

/** @example const store = createStore(); store.account(id).collection<Address>('addresses') */
export function createStore(): Store {
  const scopes = new Map<string, Scope>();
  const scope = (key: string): Scope => {
    let found = scopes.get(key);
    if (!found) scopes.set(key, (found = new Scope()));
    return found;
  };
  return {
    account: (accountId) => scope(`account:${accountId}`),
    hasAccount: (accountId) => scopes.has(`account:${accountId}`),
    company: (companyId) => scope(`company:${companyId}`),
    get global() {
      return scope('global');
    },
    reset(accountId) {
      if (accountId === undefined) scopes.clear();
      else scopes.delete(`account:${accountId}`);
    },
    snapshot() {
      const out: Record<string, ScopeSnapshot> = {};
      for (const [key, value] of scopes) out[key] = value.snapshot();
      return { version: 1, scopes: out };
    },
    restore(snapshot) {
      if (snapshot?.version !== 1) throw new Error('unsupported state snapshot version');
      scopes.clear();
      for (const [key, data] of Object.entries(snapshot.scopes)) scope(key).restore(data);
    },
  };
}
