import type { CollectionSnapshot, Entity } from './collection.js';
import type { StoredScopes } from './scope-cache.js';
import type { ScopeSnapshot } from './store.js';

/** What a durable store's consistent view reads (one read transaction, or one snapshot), synchronously. */
export interface ViewRows {
  /** The scope's collections: name, stored next sequence, highest stored item sequence (null: none). */
  collections(scope: string): [name: string, nextSeq: number, lastSeq: number | null][];
  /** The scope's values as stored (JSON text). */
  values(scope: string): [name: string, value: string][];
  /** Up to `limit` items of a collection after sequence `after`, by sequence, bodies as stored (JSON text). */
  page(scope: string, collection: string, after: number, limit: number): [seq: number, body: string][];
  /** Ends the view (its transaction, its connection). */
  close(): void;
}

/** Items read per page: a 100k-item account is streamed in slices instead of read and built in one go. */
export const VIEW_PAGE = 400;

/**
 * The scopes a durable store holds, as one view read them (scope-cache.ts's StoredScopes, for an
 * export of the scopes that are not in memory): a scope's collections and values when it is
 * asked for, its items only when a collection's `items` or `encodedItems()` is read, possibly
 * many turns later. Items stay JSON text when streamed (`encodedItems`: no object per item for
 * the garbage collector); `items` reads and parses them all for the other callers. The view is
 * closed when it is sealed and every collection it gave out has been read, or when `close()`
 * gives up what was not read.
 */
export function storedScopesView(rows: ViewRows, pageSize = VIEW_PAGE): StoredScopes {
  let unread = 0;
  let sealed = false;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    rows.close();
  };
  const release = () => {
    if (sealed && unread === 0) close();
  };
  function* pages(key: string, name: string): Generator<[number, string][]> {
    // Its transaction is gone: a read now would not be of the view's moment.
    if (closed) throw new Error('the stored scopes were given up before this collection was read');
    for (let after = 0; ; ) {
      const page = rows.page(key, name, after, pageSize);
      if (page.length) yield page;
      if (page.length < pageSize) return;
      after = page[page.length - 1][0];
    }
  }
  const collection = (key: string, name: string, nextSeq: number): CollectionSnapshot<Entity> => {
    let items: [number, Entity][] | undefined;
    let read = false;
    const done = () => {
      if (read) return;
      read = true;
      unread--;
      release();
    };
    unread++;
    const snapshot: CollectionSnapshot<Entity> = {
      nextSeq,
      get items() {
        if (!items) {
          items = [];
          for (const page of pages(key, name)) for (const [seq, body] of page) items.push([seq, JSON.parse(body) as Entity]);
          done();
        }
        return items;
      },
    };
    // Not enumerable: the snapshot compares and copies as its fields.
    return Object.defineProperty(snapshot, 'encodedItems', {
      *value() {
        if (items) {
          for (const pair of items) yield JSON.stringify(pair);
          return;
        }
        for (const page of pages(key, name)) for (const [seq, body] of page) yield `[${seq},${body}]`;
        done();
      },
    });
  };
  return {
    snapshot(key) {
      const snapshot: ScopeSnapshot = { collections: {}, values: {} };
      let found = false;
      for (const [name, nextSeq, lastSeq] of rows.collections(key)) {
        found = true;
        const next = Math.max(nextSeq, (lastSeq ?? 0) + 1);
        // As Scope.snapshot: a collection never written to is not state.
        if (lastSeq !== null || next > 1) snapshot.collections[name] = collection(key, name, next);
      }
      for (const [name, value] of rows.values(key)) {
        snapshot.values[name] = JSON.parse(value);
        found = true;
      }
      return found ? snapshot : undefined;
    },
    seal() {
      sealed = true;
      release();
    },
    close,
  };
}
