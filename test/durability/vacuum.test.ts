import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { openSharedSqliteStore } from '../../src/store/sqlite-shared-store.js';
import type { Store } from '../../src/store/store.js';
import { VACUUM_PART } from '../../src/store/vacuum.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { until } from './child-mock.js';

/**
 * Issue 27: rows that say "gone" (a deleted item's body-less row, a deleted value, a replaced
 * scope's marker) are vacuumed once every process sharing the store has pulled past them
 * (src/store/vacuum.ts); a process that has not pulled yet holds the vacuum back while it is
 * heard from, one taken for stopped does not, and when it comes back it loads everything again
 * rather than keep what was deleted meanwhile. Three stores of one database in this test process,
 * each with its heartbeat running (as the webhook dispatcher starts it) and a wall clock of its
 * own, so that a store can be made to look alive or long silent without waiting for it.
 */
const dir = mkdtempSync(join(tmpdir(), 'shipmock-vacuum-'));
let cluster: ThrowawayPostgres;
throwawayPostgresForFile([], (started) => (cluster = started));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the test reads straight from the database. */
interface Tables {
  /** Rows saying "gone": body-less items, value-less values, replaced-scope markers. */
  gone(): Promise<{ items: number; values: number; scopes: number }>;
  vacuum(): Promise<{ horizon: number; processes: Record<string, { seen: number; at: number }> }>;
  /** The newest change of an item or a scope marker. */
  latest(): Promise<number>;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  open(now: () => number): Promise<{ store: Store; processNumber: number }>;
  tables(): Promise<Tables>;
}

const GONE_ITEMS = 'SELECT (SELECT count(*) FROM shipmock_items WHERE body IS NULL) AS items, (SELECT count(*) FROM shipmock_values WHERE value IS NULL) AS vals, (SELECT count(*) FROM shipmock_scopes) AS scopes';
const LATEST = 'SELECT max(m) AS latest FROM (SELECT max(change) AS m FROM shipmock_items UNION ALL SELECT max(replaced) AS m FROM shipmock_scopes) AS newest';
const VACUUM_VALUE = `SELECT value FROM shipmock_parts WHERE name = '${VACUUM_PART}'`;

const sqlite = (): Backend => {
  const path = join(dir, `vacuum-${Date.now()}.db`);
  return {
    name: 'a shared SQLite file',
    open: (now) => openSharedSqliteStore(path, { now }),
    async tables() {
      const db = new Database(path, { readonly: true });
      return {
        gone: async () => {
          const row = db.prepare(GONE_ITEMS).get() as { items: number; vals: number; scopes: number };
          return { items: row.items, values: row.vals, scopes: row.scopes };
        },
        vacuum: async () => JSON.parse((db.prepare(VACUUM_VALUE).pluck().get() as string | undefined) ?? '{"horizon":0,"processes":{}}'),
        latest: async () => Number((db.prepare(LATEST).get() as { latest: number }).latest),
        close: async () => void db.close(),
      };
    },
  };
};

const postgres = async (): Promise<Backend> => {
  const url = await cluster.createDatabase();
  return {
    name: 'PostgreSQL',
    open: (now) => openPostgresStore(url, { now }),
    async tables() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return {
        gone: async () => {
          const row = (await client.query(GONE_ITEMS)).rows[0];
          return { items: Number(row.items), values: Number(row.vals), scopes: Number(row.scopes) };
        },
        vacuum: async () => JSON.parse((await client.query(VACUUM_VALUE)).rows[0]?.value ?? '{"horizon":0,"processes":{}}'),
        latest: async () => Number((await client.query(LATEST)).rows[0].latest),
        close: () => client.end(),
      };
    },
  };
};

/** A store's heartbeat, as the webhook dispatcher runs it (no deliveries to adopt here). */
const heartbeat = (store: Store) => store.process.adoptAbandoned({ records: () => ({ values: () => [], update: () => {} }), unfinished: () => false, adopt: () => {} });

const things = (store: Store, account: string) => store.account(account).collection<{ id: string; n: number }>('things');

async function vacuumScenario(backend: Backend): Promise<void> {
  // C's wall clock is moved by the test: ahead (it looks alive for a while after it stalls), or behind (it looks long silent).
  let skewC = 0;
  const [a, b, c] = await Promise.all([backend.open(Date.now), backend.open(Date.now), backend.open(() => Date.now() + skewC)]);
  const tables = await backend.tables();
  const beats = [a, b, c].map(({ store }) => heartbeat(store));
  const C = String(c.processNumber);
  try {
    const stall = async (skew: number) => {
      skewC = skew;
      await until('C beats with its moved clock', () => tables.vacuum(), (v) => Math.abs((v.processes[C]?.at ?? 0) - (Date.now() + skew)) < 3_000);
      beats[2]();
    };
    /** Waits until A and B both said (in a heartbeat) that they have pulled every item and scope marker now in the database. */
    const pulledByAAndB = async () => {
      const latest = await tables.latest();
      await until('A and B pulled past the deletes', () => tables.vacuum(), (v) => [a, b].every(({ processNumber }) => (v.processes[processNumber]?.seen ?? 0) >= latest));
    };

    // C stalls, looking alive (its last heartbeat says so for 30 s): it has not pulled what A deletes next.
    await stall(30_000);
    await a.store.transaction(() => {
      for (let n = 0; n < 10; n++) things(a.store, 'acct-1').insert({ id: `thing-${n}`, n });
      things(a.store, 'acct-2').insert({ id: 'other', n: 0 });
      a.store.account('acct-1').values.set('note', 'kept until deleted');
    });
    await a.store.transaction(() => {
      for (let n = 0; n < 6; n++) things(a.store, 'acct-1').delete(`thing-${n}`);
      a.store.account('acct-1').values.delete('note');
    });
    await b.store.transaction(() => b.store.reset('acct-2'));
    expect(await tables.gone()).toEqual({ items: 6, values: 1, scopes: 1 });
    await pulledByAAndB();
    // The vacuum ran (its horizon reached what C had seen) but no further: every row saying "gone" stays for C.
    const cSeen = (await tables.vacuum()).processes[C].seen;
    await until('the vacuum reached what C had seen', () => tables.vacuum(), (v) => v.horizon === cSeen);
    expect(await tables.gone()).toEqual({ items: 6, values: 1, scopes: 1 });

    // C comes back and pulls: then the rows go, and C has the deletions.
    skewC = 0;
    beats[2] = heartbeat(c.store);
    await until('the rows saying "gone" are vacuumed once C pulled', () => tables.gone(), (gone) => gone.items + gone.values + gone.scopes === 0);
    expect(await c.store.transaction(() => things(c.store, 'acct-1').values().map((t) => t.id))).toEqual(['thing-6', 'thing-7', 'thing-8', 'thing-9']);
    expect(await c.store.transaction(() => c.store.account('acct-1').values.has('note'))).toBe(false);
    expect(await c.store.transaction(() => things(c.store, 'acct-2').values())).toEqual([]);

    // C stops for good (its last heartbeat is older than the takeover timeout): it does not hold the vacuum back.
    await stall(-10_000);
    const cSeenBefore = (await tables.vacuum()).processes[C].seen;
    await a.store.transaction(() => {
      for (const n of [6, 7, 8]) things(a.store, 'acct-1').delete(`thing-${n}`);
    });
    expect((await tables.gone()).items).toBe(3);
    await pulledByAAndB();
    await until('the rows are vacuumed although C never pulled them', () => tables.gone(), (gone) => gone.items === 0);
    expect((await tables.vacuum()).horizon).toBeGreaterThan(cSeenBefore);
    // A and B went on as before; C, back, loads everything again instead of keeping what it missed.
    for (const { store } of [a, b, c]) expect(await store.transaction(() => things(store, 'acct-1').values().map((t) => t.id))).toEqual(['thing-9']);
    await c.store.transaction(() => things(c.store, 'acct-1').insert({ id: 'after', n: 10 }));
    expect(await a.store.transaction(() => things(a.store, 'acct-1').values().map((t) => t.id))).toEqual(['thing-9', 'after']);
  } finally {
    for (const stop of beats) stop();
    for (const { store } of [a, b, c]) store.close();
    await tables.close();
  }
}

/** `scenario` on a shared SQLite file (named `what`), then on PostgreSQL. */
function onBothBackends(what: string, scenario: (backend: Backend) => Promise<void>, timeoutMs: number): void {
  it(`on a shared SQLite file: ${what}`, () => scenario(sqlite()), timeoutMs);
  it('on PostgreSQL: the same', async () => scenario(await postgres()), timeoutMs);
}

describe('vacuum of rows that say "gone", once every process has seen them', () => {
  onBothBackends('a stalled process holds it back, a stopped one does not, and reloads when it comes back', vacuumScenario, 60_000);
});

/**
 * Every beat writes the vacuum part, so beats of processes that commit at the same moment lose to
 * each other; processes started together beat together. Each lost beat is made again at once
 * (BEAT_RETRIES), and a lost race is not reported as the store being away. The beats then tell
 * every process how many share the store.
 */
async function simultaneousBeats(backend: Backend): Promise<void> {
  const opened = await Promise.all([1, 2, 3, 4].map(() => backend.open(Date.now)));
  const tables = await backend.tables();
  const reported: string[] = [];
  // Their first beats, at one moment, as processes started together make them.
  const beats = opened.map(({ store }) =>
    store.process.adoptAbandoned({ records: () => ({ values: () => [], update: () => {} }), unfinished: () => false, adopt: () => {}, onError: (error) => reported.push(error.message) }),
  );
  try {
    await until('every process beat', () => tables.vacuum(), (v) => opened.every(({ processNumber }) => v.processes[processNumber] !== undefined));
    // Past the next beat of each: a lost race would have been reported by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(reported).toEqual([]);
    // Each knows how many share the store (the journal shares its successes by it).
    for (const { store } of opened) expect(store.feed('journal', 10).sharers?.()).toBe(opened.length);
  } finally {
    for (const stop of beats) stop();
    for (const { store } of opened) store.close();
    await tables.close();
  }
}

describe('heartbeats of processes started together', () => {
  onBothBackends('every one lands, none reported as a failure', simultaneousBeats, 30_000);
});
