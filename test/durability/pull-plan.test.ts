import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, pullStatement } from '../../src/store/postgres-store.js';
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

describe('the pull of a shared PostgreSQL store', () => {
  it('reads the newest rows of a 100k-row table through the change index before the table was ever analysed', async () => {
    const url = await cluster.createDatabase();
    const { store } = await openPostgresStore(url);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
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
    } finally {
      await db.end();
      await store.close();
    }
  }, 60_000);
});
