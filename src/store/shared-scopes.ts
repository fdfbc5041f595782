import type { CollectionSnapshot, Entity } from './collection.js';
import type { DirtyWrites } from './dirty-writes.js';
import type { ScopeSource, StoredScopes } from './scope-cache.js';
import { Scope, type ScopeSnapshot } from './store.js';

/**
 * The bounded working set of a shared store (issue 27; docs/scaling.md, "A bounded working set"):
 * which account scopes a process holds is its own business — the database holds them all — so
 * each process keeps at most `--cache-size` of them (scope-cache.ts) and reads the others whole
 * when they are needed:
 *
 * - ahead, in a batch's pull: the accounts its units said they use (an account batch's account,
 *   the accounts of a read batch's GETs) are read by the pull's statement, so they are exactly at
 *   the head it read, and nothing waits for them (`PullRequest.load`);
 * - on a miss (a unit that did not say, such as a clock timer or an admin request; start-up
 *   work), synchronously through `StoredScopeReads` (PostgreSQL: postgres-sync-reader.ts), at the
 *   newest commit, which the scope records (`LoadStamps`) so that a pull already under way when
 *   it was read, older than it, does not put older rows into it.
 *
 * A pull skips the rows of account scopes not in memory (the next read gets them whole).
 */
export interface StoredScopeReads {
  /** One scope's stored rows and the head they are at, in one snapshot; `rows` undefined when nothing is stored. */
  load(key: string): { head: number; rows: ScopeRows | undefined };
  /** Whether anything is stored under the key. */
  isStored(key: string): boolean;
  /** Keys of every account scope stored. */
  accountKeys(): string[];
  /** The stored value under `name` of every account scope that has one, by scope key. */
  accountValues(name: string): [string, unknown][];
  /** The account scopes changed most recently, newest first, at most `limit` (read ahead at start). */
  recentAccounts(limit: number): Promise<string[]>;
  /** Settles when the synchronous reads can start without waiting for their connection (awaited before the store loads). */
  ready(): Promise<void>;
  /**
   * A view of the stored scopes as they are now, which later commits do not change, read a page
   * at a time (an export streams accounts that are not in memory). Absent: each scope is read
   * whole when the export asks for it.
   */
  openView?(): StoredScopes;
  close(): void;
}

/** A scope's rows as stored (deleted items and values, kept as body-less rows for the pull, are left out). */
export interface ScopeRows {
  collections: [name: string, nextSeq: number][];
  /** In sequence order within each collection. */
  items: [name: string, seq: number, body: string][];
  values: [key: string, value: string][];
}

/** Rows of several scopes, read by a pull at its head: scope key → rows. */
export type LoadedScopes = Map<string, ScopeRows>;

/** Adds one row of a loaded scope to `out` (the pull reads them for several scopes at once). */
export function loadedRow(out: LoadedScopes, scope: string): ScopeRows {
  let rows = out.get(scope);
  if (!rows) out.set(scope, (rows = { collections: [], items: [], values: [] }));
  return rows;
}

/** A new Scope of the store (its writes watched) holding what `rows` hold; loading is not a write. */
export function scopeOfRows(key: string, rows: ScopeRows, dirty: DirtyWrites): Scope {
  const collections: Record<string, { nextSeq: number; items: [number, Entity][] }> = {};
  const collectionOf = (name: string) => (collections[name] ??= { nextSeq: 1, items: [] });
  for (const [name, nextSeq] of rows.collections) collectionOf(name).nextSeq = Math.max(collectionOf(name).nextSeq, nextSeq);
  for (const [name, seq, body] of rows.items) {
    const collection = collectionOf(name);
    collection.items.push([seq, JSON.parse(body) as Entity]);
    if (seq >= collection.nextSeq) collection.nextSeq = seq + 1;
  }
  const snapshot: ScopeSnapshot = { collections: collections as Record<string, CollectionSnapshot<Entity>>, values: {} };
  for (const [name, value] of rows.values) snapshot.values[name] = JSON.parse(value);
  const scope = new Scope(dirty.watcher.scope(key));
  dirty.muted(() => scope.restore(snapshot));
  return scope;
}

/**
 * The head each scope read on a miss is at (it may be newer than the copy's last pull): a pull
 * whose head is not past it leaves that scope alone, one past it applies and ends the mark.
 */
export type LoadStamps = Map<string, number>;

const isAccount = (key: string) => key.startsWith('account:');

/**
 * What the scope cache reads on a miss: account scopes from the database, synchronously. Other
 * scopes (companies, the global and system scopes) are always in memory: every pull applies
 * their rows, so one that is not in memory is not stored.
 */
export function sharedScopeSource(reads: StoredScopeReads, dirty: DirtyWrites, stamps: LoadStamps): ScopeSource {
  const read = (key: string): { head: number; scope: Scope } | undefined => {
    if (!isAccount(key)) return undefined;
    const { head, rows } = reads.load(key);
    return rows && { head, scope: scopeOfRows(key, rows, dirty) };
  };
  const load = (key: string): Scope | undefined => {
    const found = read(key);
    if (found) stamps.set(key, found.head);
    return found?.scope;
  };
  const wholeScopes: StoredScopes = {
    // An export (a wide unit: nothing else commits meanwhile) takes each scope not in memory as
    // stored, without keeping it.
    snapshot: (key) => read(key)?.scope.snapshot(),
    seal() {},
    close() {},
  };
  return {
    load,
    isStored: (key) => isAccount(key) && reads.isStored(key),
    storedKeys: () => reads.accountKeys(),
    accountValues: (name) => reads.accountValues(name),
    reader: () => reads.openView?.() ?? wholeScopes,
  };
}

