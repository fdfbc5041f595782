import Database from 'better-sqlite3';
import type { ScopeRows, StoredScopeReads } from './shared-scopes.js';
import { openSqliteScopesView } from './sqlite-scopes-view.js';
import { fingerprintOf, type IssuedNumberReads } from './offloaded-issued-numbers.js';
import { ISSUED_NUMBERS_COLLECTION } from './store.js';

/**
 * What a process of SQLite's shared layout reads of the file besides its batches' pulls
 * (sqlite-shared-store.ts): the scopes of its bounded working set (shared-scopes.ts), an
 * export's view, the issued carrier numbers (offloaded-issued-numbers.ts). A scope's rows are a
 * range of each table's primary key, which starts with the scope: reading one costs its own rows.
 */

/** Account scopes as a range of the primary key (which starts with the scope): `LIKE 'account:%'` would read every row. */
export const ACCOUNTS = "scope >= 'account:' AND scope < 'account;'";
export const NOT_ACCOUNTS = "(scope < 'account:' OR scope >= 'account;')";
export const ISSUED = `scope = 'global' AND collection = '${ISSUED_NUMBERS_COLLECTION}'`;

/** The statements of scopeRows. */
export interface ScopeStatements {
  scopeItems: Database.Statement;
  scopeCollections: Database.Statement;
  scopeValues: Database.Statement;
}

/** A scope's rows read whole, by its primary-key ranges (deleted items and values left out). */
export function scopeStatements(db: Database.Database): ScopeStatements {
  return {
    scopeItems: db.prepare('SELECT collection, seq, body FROM shipmock_items WHERE scope = ? AND body IS NOT NULL ORDER BY collection, seq').raw(true),
    scopeCollections: db.prepare('SELECT collection, next_seq FROM shipmock_collections WHERE scope = ?').raw(true),
    scopeValues: db.prepare('SELECT key, value FROM shipmock_values WHERE scope = ? AND value IS NOT NULL').raw(true),
  };
}

/** One scope's rows (scopeStatements), undefined when nothing is stored under it. */
export function scopeRows(sql: ScopeStatements, key: string): ScopeRows | undefined {
  const collections = sql.scopeCollections.all(key) as [string, number][];
  const values = sql.scopeValues.all(key) as [string, string][];
  if (!collections.length && !values.length) return undefined;
  return { collections, items: sql.scopeItems.all(key) as [string, number, string][], values };
}

/** The bounded working set's reads (shared-scopes.ts) on the reader connection. */
export function storedScopeReads(path: string, reader: Database.Database): StoredScopeReads {
  const sql = {
    head: reader.prepare("SELECT value FROM shipmock_counters WHERE name = 'change'").pluck(),
    ...scopeStatements(reader),
    isStored: reader.prepare('SELECT EXISTS (SELECT 1 FROM shipmock_collections WHERE scope = @key) OR EXISTS (SELECT 1 FROM shipmock_values WHERE scope = @key AND value IS NOT NULL)').pluck(),
    accountKeys: reader.prepare(`SELECT scope FROM shipmock_collections WHERE ${ACCOUNTS} UNION SELECT scope FROM shipmock_values WHERE ${ACCOUNTS} AND value IS NOT NULL ORDER BY 1`).pluck(),
    accountValues: reader.prepare(`SELECT scope, value FROM shipmock_values WHERE key = ? AND ${ACCOUNTS} AND value IS NOT NULL`).raw(true),
    recentAccounts: reader.prepare(
      `SELECT scope FROM (SELECT scope, max(change) AS last FROM shipmock_collections WHERE ${ACCOUNTS} GROUP BY scope
         UNION ALL SELECT scope, max(change) FROM shipmock_values WHERE ${ACCOUNTS} GROUP BY scope)
       GROUP BY scope ORDER BY max(last) DESC LIMIT ?`,
    ).pluck(),
  };
  // A scope and the head it is at, in one read transaction (one snapshot).
  const load = reader.transaction((key: string) => ({ head: sql.head.get() as number, rows: scopeRows(sql, key) }));
  return {
    load: (key) => load(key),
    isStored: (key) => Boolean(sql.isStored.get({ key })),
    accountKeys: () => sql.accountKeys.all() as string[],
    accountValues: (name) => (sql.accountValues.all(name) as [string, string][]).map(([scope, value]) => [scope, JSON.parse(value)]),
    recentAccounts: async (limit) => sql.recentAccounts.all(limit) as string[],
    ready: async () => {},
    openView: () => storedScopesOfFile(path),
    close: () => {
      if (reader.open) reader.close();
    },
  };
}

/** The stored scopes of the shared layout as the file holds them now, for an export (sqlite-scopes-view.ts); deleted rows are left out. */
const storedScopesOfFile = (path: string) =>
  openSqliteScopesView(path, {
    collections: 'SELECT collection, next_seq, (SELECT MAX(seq) FROM shipmock_items i WHERE i.scope = c.scope AND i.collection = c.collection AND i.body IS NOT NULL) FROM shipmock_collections c WHERE scope = ?',
    values: 'SELECT key, value FROM shipmock_values WHERE scope = ? AND value IS NOT NULL',
    page: 'SELECT seq, body FROM shipmock_items WHERE scope = ? AND collection = ? AND seq > ? AND body IS NOT NULL ORDER BY seq LIMIT ?',
  });

/** The global scope's issued carrier numbers as the file holds them (offloaded-issued-numbers.ts), by the partial index shipmock_items_global_ids. */
export function issuedNumberReads(reader: Database.Database): IssuedNumberReads {
  const sql = {
    ids: reader.prepare(`SELECT id FROM shipmock_items WHERE ${ISSUED}`).pluck(),
    issued: reader.prepare(`SELECT EXISTS (SELECT 1 FROM shipmock_items WHERE ${ISSUED} AND id = ?)`).pluck(),
    items: reader.prepare(`SELECT seq, body FROM shipmock_items WHERE ${ISSUED} AND body IS NOT NULL ORDER BY seq`).raw(true),
  };
  return {
    // SQLite has no MD5: the fingerprints are computed here, from the index alone.
    fingerprints() {
      const prints: number[] = [];
      for (const id of sql.ids.iterate() as IterableIterator<string>) prints.push(fingerprintOf(id));
      const bytes = Buffer.alloc(prints.length * 4);
      prints.forEach((print, i) => bytes.writeInt32BE(print, i * 4));
      return bytes;
    },
    isIssued: (id) => Boolean(sql.issued.get(id)),
    items: () => (sql.items.all() as [number, string][]).map(([seq, body]) => [seq, JSON.parse(body)]),
  };
}

