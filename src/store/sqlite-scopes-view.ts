import Database from 'better-sqlite3';
import type { StoredScopes } from './scope-cache.js';
import { storedScopesView } from './stored-scopes-view.js';

/**
 * A SQLite layout's statements for a view (stored-scopes-view.ts's ViewRows), positional
 * parameters in that order: a scope's collections (name, stored next sequence, highest stored
 * item sequence), its values (name, JSON text), a page of a collection's items (sequence, JSON
 * text) after a sequence.
 */
export interface ScopesViewStatements {
  collections: string;
  values: string;
  page: string;
}

/** Views an export left unread (a client gone midway): their connection, and its read transaction, end when the view is garbage collected. */
const abandonedViews = new FinalizationRegistry<Database.Database>((db) => {
  if (db.open) db.close();
});

/**
 * The stored scopes as a SQLite file holds them now, for an export: a read-only connection of
 * its own in one read transaction, begun with a read so that its snapshot is of this moment
 * (inside the export's unit), not of its first page many turns later. WAL keeps that snapshot
 * while the mock commits, and the view never blocks those commits. The connection closes when
 * every collection given out has been read (stored-scopes-view.ts), or when an abandoned view is
 * garbage collected. Both SQLite stores use it (sqlite-store.ts, sqlite-shared-reads.ts).
 */
export function openSqliteScopesView(path: string, statements: ScopesViewStatements): StoredScopes {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const sql = {
    collections: db.prepare(statements.collections).raw(true),
    values: db.prepare(statements.values).raw(true),
    page: db.prepare(statements.page).raw(true),
  };
  db.exec('BEGIN');
  // A read transaction takes its snapshot at its first read: now.
  db.prepare('SELECT count(*) FROM sqlite_schema').get();
  const view = storedScopesView({
    collections: (scope) => sql.collections.all(scope) as [string, number, number | null][],
    values: (scope) => sql.values.all(scope) as [string, string][],
    page: (scope, collection, after, limit) => sql.page.all(scope, collection, after, limit) as [number, string][],
    close: () => {
      abandonedViews.unregister(db);
      if (db.open) db.close();
    },
  });
  abandonedViews.register(view, db, db);
  return view;
}
