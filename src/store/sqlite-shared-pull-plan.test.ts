import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ISSUED_NUMBERS_COLLECTION } from './store.js';
import { ITEMS_FROM_SCRATCH, openSharedSqliteStore, pullStatements } from './sqlite-shared-store.js';

/**
 * A batch's pull on a shared SQLite file reads the rows committed since the process last looked:
 * a few rows of a large table. SQLite keeps no statistics of these tables, and asked for the
 * items in primary-key order it walked the whole primary key instead (every pull read the whole
 * file: 3.6 GB at 200k bookings). Plans, not timings: they say which rows a statement reads.
 */
async function fileWithRows(): Promise<Database.Database> {
  const path = join(mkdtempSync(join(tmpdir(), 'shipmock-pull-plan-')), 'shared.db');
  const { store } = await openSharedSqliteStore(path);
  await store.close();
  const db = new Database(path);
  const insert = db.prepare('INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < 20_000; i++) insert.run(`account:a${i % 50}`, 'addresses', i, `id-${i}`, 'x'.repeat(100), 1);
    for (let i = 0; i < 2_000; i++) insert.run('global', ISSUED_NUMBERS_COLLECTION, i, `n-${i}`, '{}', 1);
    for (const [scope, collection] of [['aardvark', 'c'], ['company:c1', 'accounts'], ['global', 'account-owners'], ['global', 'pudo-points'], ['system', 'webhook-deliveries'], ['account:', 'edge'], ['account;', 'edge']]) {
      for (let i = 0; i < 3; i++) insert.run(scope, collection, i, `${scope}-${i}`, '{}', 2);
    }
  })();
  return db;
}

const planOf = (db: Database.Database, sql: string, ...params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');

describe('the pull of a shared SQLite file', () => {
  it("reads the rows committed since a change through each table's change index, never the whole table", async () => {
    const db = await fileWithRows();
    try {
      for (const accounts of [true, false]) {
        const statements = pullStatements(accounts);
        expect(planOf(db, statements.items, 1)).toMatch(/SEARCH shipmock_items USING INDEX shipmock_items_change \(change>\?\)/);
        expect(planOf(db, statements.collections, 1)).toMatch(/USING INDEX shipmock_collections_change/);
        expect(planOf(db, statements.values, 1)).toMatch(/USING (COVERING )?INDEX shipmock_values_change/);
        expect(planOf(db, statements.scopes, 1)).toMatch(/USING (COVERING )?INDEX shipmock_scopes_replaced/);
      }
      const pulled = db.prepare(pullStatements(false).items).all(1) as { scope: string }[];
      expect(pulled.map((row) => row.scope)).toEqual(['aardvark', 'aardvark', 'aardvark', 'account;', 'account;', 'account;', 'company:c1', 'company:c1', 'company:c1', 'global', 'global', 'global', 'global', 'global', 'global', 'system', 'system', 'system']);
    } finally {
      db.close();
    }
  });

  it('from scratch reads the scopes that are not an account\'s, but the issued numbers, as ranges of the primary key: the same rows as a filter of the whole table', async () => {
    const db = await fileWithRows();
    try {
      expect(planOf(db, ITEMS_FROM_SCRATCH)).not.toMatch(/SCAN shipmock_items/);
      const filtered = db
        .prepare(`SELECT scope, collection, seq, id, body, change FROM shipmock_items WHERE (scope < 'account:' OR scope >= 'account;') AND NOT (scope = 'global' AND collection = '${ISSUED_NUMBERS_COLLECTION}') ORDER BY scope, collection, seq`)
        .all();
      expect(filtered).toHaveLength(18);
      expect(db.prepare(ITEMS_FROM_SCRATCH).all()).toEqual(filtered);
    } finally {
      db.close();
    }
  });
});
