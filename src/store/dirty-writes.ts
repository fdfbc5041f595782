import type { StoreWatcher } from './store.js';

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
