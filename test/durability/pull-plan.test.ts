import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, preparedPull, pullStatement } from '../../src/store/postgres-store.js';
import { ISSUED_NUMBERS_COLLECTION } from '../../src/store/store.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';

/**
 * A batch's pull (src/store/postgres-store.ts, `pullStatement`) reads the rows committed since
 * the process last looked: a few rows of a large table. It must stay on the `change` indexes
 * while the table is new to the planner — grown by a load test faster than autovacuum analyses
 * it — or every pull scans the whole table (in the scale-out bench: ~130 ms per pull at 100k
 * rows, seconds of lock wait per batch).
 */
let cluster: ThrowawayPostgres;
throwawayPostgresForFile([], (started) => (cluster = started));

/** A new database with the store's tables (a store opened on it, closed after), and a connection to it for `use`. */
async function onNewStoreDatabase(use: (db: pg.Client) => Promise<void>): Promise<void> {
  const url = await cluster.createDatabase();
  const { store } = await openPostgresStore(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await use(db);
  } finally {
    await db.end();
    await store.close();
  }
}

describe('the pull of a shared PostgreSQL store', () => {
  it('reads the newest rows of a 100k-row table through the change index before the table was ever analysed', async () => {
    await onNewStoreDatabase(async (db) => {
      // Never analysed: what the planner knows of a table that grew within autovacuum's minute.
      for (const table of ['shipmock_items', 'shipmock_values']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      const { rows } = await db.query<{ change: string }>('SELECT change FROM shipmock_head');
      const start = Number(rows[0].change);
      await db.query(`INSERT INTO shipmock_items (scope, collection, seq, id, body, change)
        SELECT 'account:' || (i % 4), 'addresses', i, 'id-' || i, repeat('x', 300), ${start} + i FROM generate_series(1, 100000) i`);
      await db.query(`UPDATE shipmock_head SET change = ${start + 100_000}`);
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${pullStatement(start + 99_980, [start + 99_990])}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/Seq Scan on shipmock_items/);
      expect(plan).toMatch(/Index .*Scan .*shipmock_items_change/);
      const pulled = await db.query<{ k: number; c: string }>(pullStatement(start + 99_980, [start + 99_990]));
      expect(pulled.rows.filter((row) => row.k === 2).map((row) => Number(row.c) - start).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 99_981 + i).filter((change) => change !== 99_990));

      // The read batch's prepared pull: the same rows, and its generic plan (the one PostgreSQL
      // settles on after a few executions, bounds unknown) stays on the change index too.
      const prepared = preparedPull(start + 99_980, [start + 99_990])!;
      expect((await db.query<{ k: number; c: string }>(prepared)).rows).toEqual(pulled.rows);
      await db.query('SET plan_cache_mode = force_generic_plan');
      await db.query(`PREPARE generic_pull(bigint, bigint[]) AS ${prepared.text}`);
      const genericPlan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE generic_pull(${start + 99_980}, '{${start + 99_990}}')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(genericPlan).not.toMatch(/Seq Scan on shipmock_items/);
      expect(genericPlan).toMatch(/Index .*Scan .*shipmock_items_change/);
      expect(preparedPull(0, [], { load: [], accountRows: false })).toBeUndefined();
      expect(preparedPull(0, [], { load: ['account:a'], accountRows: true })).toBeUndefined();
    });
  }, 60_000);

  it("from scratch, reads the rows that are not an account's through the primary key, without the issued carrier numbers, however many account rows there are", async () => {
    await onNewStoreDatabase(async (db) => {
      for (const table of ['shipmock_items', 'shipmock_collections']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      const change = Number((await db.query<{ change: string }>('UPDATE shipmock_head SET change = change + 1 RETURNING change')).rows[0].change);
      await db.query(`INSERT INTO shipmock_items (scope, collection, seq, id, body, change)
        SELECT 'account:' || (i % 1000), 'addresses', i, 'id-' || i, repeat('x', 300), ${change} FROM generate_series(1, 100000) i
        UNION ALL SELECT 'global', '${ISSUED_NUMBERS_COLLECTION}', i, 'DHL:STAGING:' || i, '{}', ${change} FROM generate_series(1, 1000) i
        UNION ALL SELECT 'global', 'account-owners', i, 'owner-' || i, '{}', ${change} FROM generate_series(1, 3) i
        UNION ALL SELECT 'company:c1', 'accounts', 1, 'a1', '{}', ${change}`);
      await db.query(`INSERT INTO shipmock_collections (scope, collection, next_seq, change)
        SELECT DISTINCT 'account:' || (i % 1000), 'addresses', 100001, ${change} FROM generate_series(1, 100000) i
        UNION ALL VALUES ('global', '${ISSUED_NUMBERS_COLLECTION}', 1001, ${change}), ('global', 'account-owners', 4, ${change}), ('company:c1', 'accounts', 2, ${change})`);
      const fromScratch = pullStatement(0, [], { load: [], accountRows: false });
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${fromScratch}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      // The items by scope, on the primary key: not a scan of the table, nor of its change index (every row is after 0).
      expect(plan).not.toMatch(/Seq Scan on shipmock_items|shipmock_items_change/);
      expect(plan).toMatch(/Index Scan (on|using) shipmock_items_pkey/);
      const pulled = await db.query<{ k: number; s: string; i: string }>(fromScratch);
      expect(pulled.rows.filter((row) => row.k === 2).map((row) => `${row.s} ${row.i}`).sort()).toEqual(['company:c1 a1', 'global owner-1', 'global owner-2', 'global owner-3']);
    });
  }, 60_000);

  it("commits a read batch's values (shipmock_commit_values) on 100k-row tables through the change indexes, with the generic plans PostgreSQL caches for it", async () => {
    await onNewStoreDatabase(async (db) => {
      for (const table of ['shipmock_items', 'shipmock_collections', 'shipmock_values', 'shipmock_scopes']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      const start = Number((await db.query<{ change: string }>('SELECT change FROM shipmock_head')).rows[0].change);
      await db.query(`INSERT INTO shipmock_items (scope, collection, seq, id, body, change)
        SELECT 'account:' || (i % 4), 'addresses', i, 'id-' || i, repeat('x', 300), ${start} + i FROM generate_series(1, 100000) i`);
      await db.query(`INSERT INTO shipmock_collections (scope, collection, next_seq, change) SELECT 'account:' || i, 'addresses', 2, ${start} + i FROM generate_series(1, 100000) i`);
      await db.query(`INSERT INTO shipmock_values (scope, key, value, change) SELECT 'system', 'rate:principal:account:' || i, '{}', ${start} + i FROM generate_series(1, 100000) i`);
      await db.query(`UPDATE shipmock_head SET change = ${start + 100_000}`);
      // Every plan of the function's statements, to the server's log, as PostgreSQL settles on them for any p_after.
      await db.query("LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET plan_cache_mode = force_generic_plan");
      const marker = `pull-plan ${Date.now()}`;
      await db.query(`SELECT '${marker}'`);
      const commit = (after: number) =>
        db.query(`BEGIN; SELECT * FROM shipmock_commit_values(${after}, ARRAY['a9']::text[], ARRAY['system']::text[], ARRAY['rate:principal:account:a9']::text[], ARRAY['account:a9']::text[], ARRAY['system']::text[], ARRAY['rate:principal:account:a9']::text[], ARRAY['{"n":1}']::text[]); COMMIT`);
      // Nothing of account a9 changed after start + 99,990: committed (change start + 100,001).
      await commit(start + 99_990);
      // Pulled after that commit: committed (start + 100,002).
      await commit(start + 100_001);
      // Pulled before it: its window changed since, refused.
      await expect(commit(start + 100_001)).rejects.toMatchObject({ code: '22012' });
      await db.query('ROLLBACK');
      const plans = cluster.log().split(marker)[1];
      expect(plans).toMatch(/Index .*Scan .*shipmock_items_change/);
      expect(plans).not.toMatch(/Seq Scan on shipmock_(items|collections|values)/);
      expect((await db.query("SELECT value FROM shipmock_values WHERE scope = 'system' AND key = 'rate:principal:account:a9'")).rows).toEqual([{ value: '{"n":1}' }]);
    });
  }, 60_000);
});
