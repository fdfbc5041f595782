import type { Entity } from './collection.js';
import type { MemoryStore, StoreWatcher } from './store.js';

/**
 * What a durable store has to write at its next commit, as told by the memory store's watcher:
 * scopes dropped or replaced wholesale, item slots written, values set or deleted. Items are
 * named by slot, not copied: the commit reads them from the working set, so ten updates of one
 * item cost one row write. Used by the SQLite and the PostgreSQL store.
 *
 * @example
 * const dirty = createDirtyWrites(scheduleCommit);
 * const memory = createStore(dirty.watcher);
 * dirty.muted(() => loadRows(memory)); // loading is not a write
 */
export interface DirtyWrites {
  readonly watcher: StoreWatcher;
  /** Scope keys dropped or replaced (reset, import): their stored rows are all stale. */
  readonly replaced: Set<string>;
  /** scope → collection → slot sequence → id: the slots written. */
  readonly items: Map<string, Map<string, Map<number, string>>>;
  /** scope → value keys set or deleted. */
  readonly values: Map<string, Set<string>>;
  readonly empty: boolean;
  clear(): void;
  /** Runs `work` without recording what it writes (loading rows, applying another process's writes). */
  muted<T>(work: () => T): T;
}

export function createDirtyWrites(onChange: () => void): DirtyWrites {
  const replaced = new Set<string>();
  const items = new Map<string, Map<string, Map<number, string>>>();
  const values = new Map<string, Set<string>>();
  let muteDepth = 0;

  const watcher: StoreWatcher = {
    scope(key) {
      return {
        item(collection, id, seq) {
          if (muteDepth) return;
          let byCollection = items.get(key);
          if (!byCollection) items.set(key, (byCollection = new Map()));
          let slots = byCollection.get(collection);
          if (!slots) byCollection.set(collection, (slots = new Map()));
          slots.set(seq, id);
          onChange();
        },
        value(name) {
          if (muteDepth) return;
          let keys = values.get(key);
          if (!keys) values.set(key, (keys = new Set()));
          keys.add(name);
          onChange();
        },
      };
    },
    replaced(key) {
      if (muteDepth) return;
      replaced.add(key);
      items.delete(key);
      values.delete(key);
      onChange();
    },
  };

  return {
    watcher,
    replaced,
    items,
    values,
    get empty() {
      return !replaced.size && !items.size && !values.size;
    },
    clear() {
      replaced.clear();
      items.clear();
      values.clear();
    },
    muted(work) {
      muteDepth++;
      try {
        return work();
      } finally {
        muteDepth--;
      }
    },
  };
}

/** Rows as the durable stores write them: [scope, collection, seq, id, body or null (deleted)]. */
export type ItemRow = [scope: string, collection: string, seq: number, id: string, body: string | null];
export type CollectionRow = [scope: string, collection: string, nextSeq: number];
/** [scope, key, value or null (deleted)] */
export type ValueRow = [scope: string, key: string, value: string | null];

/** What the next commit writes: scopes to empty first, then rows to put (a null body or value: the row goes). */
export interface DirtyRows {
  replaced: string[];
  items: ItemRow[];
  collections: CollectionRow[];
  values: ValueRow[];
}

/**
 * The rows of what changed, read from the working set now (ten updates of an item are one row).
 * A replaced scope comes whole (its later writes are in that); a slot that no longer holds its
 * item (deleted, or re-inserted under a new sequence, which has its own entry) gives a row
 * without a body. One row per key: a statement cannot update one row twice.
 */
export function dirtyRows(dirty: DirtyWrites, memory: MemoryStore): DirtyRows {
  const rows: DirtyRows = { replaced: [...dirty.replaced], items: [], collections: [], values: [] };
  const collections = new Map<string, CollectionRow>();
  for (const key of dirty.replaced) {
    const live = memory.existingScope(key);
    if (!live) continue;
    for (const name of live.collectionNames()) {
      const collection = live.existing<Entity>(name)!;
      for (const item of collection.values()) rows.items.push([key, name, collection.seqOf(item.id)!, item.id, JSON.stringify(item)]);
      collections.set(`${key}\n${name}`, [key, name, collection.sequence]);
    }
    for (const [name, value] of live.values) rows.values.push([key, name, JSON.stringify(value ?? null)]);
  }
  for (const [key, byCollection] of dirty.items) {
    if (dirty.replaced.has(key)) continue;
    const live = memory.existingScope(key);
    for (const [name, slots] of byCollection) {
      const collection = live?.existing<Entity>(name);
      for (const [seq, id] of slots) {
        const value = collection?.seqOf(id) === seq ? collection.get(id) : undefined;
        rows.items.push([key, name, seq, id, value ? JSON.stringify(value) : null]);
      }
      if (collection) collections.set(`${key}\n${name}`, [key, name, collection.sequence]);
    }
  }
  for (const [key, names] of dirty.values) {
    if (dirty.replaced.has(key)) continue;
    const values = memory.existingScope(key)?.values;
    for (const name of names) rows.values.push([key, name, values?.has(name) ? JSON.stringify(values.get(name) ?? null) : null]);
  }
  rows.collections = [...collections.values()];
  return rows;
}
