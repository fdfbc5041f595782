import pg from 'pg';
import { maskUrl, redactSecrets } from './data-location.js';
import { createPostgresFeed, storable } from './postgres-feed.js';
import { vacuumStatements } from './vacuum.js';
import { createSharedStore, type SharedBackend, type SharedStoreOptions, type WriteSet } from './shared-store.js';
import type { Store } from './store.js';

/**
 * The shared store on PostgreSQL (--data postgres://…): several shipmock processes, on one host
 * or many, keep their state in one database and behave as one mock. The batch engine is
 * shared-store.ts; here is what PostgreSQL brings to it: the lock (a transaction-level advisory
 * lock), a change sequence, migrations that run once however many processes start at the same
 * moment (a session advisory lock), the token secret and process numbers kept in the database,
 * and a feed with LISTEN/NOTIFY (postgres-feed.ts). A batch costs two round trips.
 *
 * No pg type leaves this file and postgres-feed.ts: the rest of the mock sees a `Store`.
 */
export type PostgresStoreOptions = SharedStoreOptions;

export interface OpenedPostgresStore {
  store: Store;
  processNumber: number;
}

/** Migrations, newest last; each runs once, in a transaction, under the migration lock. */
const MIGRATIONS: string[] = [
  `CREATE SEQUENCE shipmock_change;
   CREATE SEQUENCE shipmock_process;
   CREATE TABLE shipmock_items (scope text NOT NULL, collection text NOT NULL, seq bigint NOT NULL, id text NOT NULL, body text, change bigint NOT NULL, PRIMARY KEY (scope, collection, seq));
   CREATE INDEX shipmock_items_change ON shipmock_items (change);
   CREATE TABLE shipmock_collections (scope text NOT NULL, collection text NOT NULL, next_seq bigint NOT NULL, change bigint NOT NULL, PRIMARY KEY (scope, collection));
   CREATE INDEX shipmock_collections_change ON shipmock_collections (change);
   CREATE TABLE shipmock_values (scope text NOT NULL, key text NOT NULL, value text, change bigint NOT NULL, PRIMARY KEY (scope, key));
   CREATE INDEX shipmock_values_change ON shipmock_values (change);
   CREATE TABLE shipmock_parts (name text PRIMARY KEY, value text NOT NULL, change bigint NOT NULL);
   CREATE TABLE shipmock_scopes (scope text PRIMARY KEY, replaced bigint NOT NULL);
   CREATE INDEX shipmock_scopes_replaced ON shipmock_scopes (replaced);`,
  // 2: feeds every process writes and reads (the journal of all processes, postgres-feed.ts).
  `CREATE TABLE shipmock_feed (id bigserial PRIMARY KEY, feed text NOT NULL, origin integer NOT NULL, tag text, body text NOT NULL);
   CREATE INDEX shipmock_feed_feed_id ON shipmock_feed (feed, id);`,
];
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Advisory lock keys ("shm" + a number): migrations, and the batch lock every process takes. */
const MIGRATION_LOCK = 0x73686d01;
const BATCH_LOCK = 0x73686d02;

/** The database cannot be used: the message names it (password masked) and what to do. */
export class SharedStoreError extends Error {
  constructor(url: string, problem: string, remedy: string) {
    // The problem may quote what pg said about the URL: no form of the password survives.
    super(`--data ${maskUrl(url)}: ${redactSecrets(problem, url)}. ${remedy}`);
    this.name = 'SharedStoreError';
  }
}

const CONNECT_TIMEOUT_MS = 5000;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'shipmock' });
  // An idle connection that breaks must not end the process (pg emits 'error' on the client).
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    // Logged or shown later (a reconnect's error is logged): no form of the password in it.
    const { message, code } = error as Error & { code?: string };
    throw Object.assign(new Error(redactSecrets(message, url)), { code });
  }
  return client;
}

/**
 * Connects, migrates (once, whoever starts first), and loads the state.
 * @example const { store } = await openPostgresStore('postgres://shipmock@127.0.0.1:5432/shipmock');
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<OpenedPostgresStore> {
  let client: pg.Client;
  try {
    client = await connect(url);
  } catch (error) {
    throw new SharedStoreError(url, `cannot connect to PostgreSQL (${(error as Error).message || (error as { code?: string }).code})`, 'Start PostgreSQL, or check the host, port, user and database in the URL.');
  }
  try {
    const processNumber = await migrate(client, url);
    const store = createSharedStore(createPostgresBackend(url, client), processNumber, options);
    await store.load();
    return { store, processNumber };
  } catch (error) {
    await client.end().catch(() => {});
    throw error instanceof SharedStoreError ? error : new SharedStoreError(url, `cannot be used (${(error as Error).message})`, 'Check that the database is a shipmock database and the user may create tables in it.');
  }
}

async function migrate(client: pg.Client, url: string): Promise<number> {
  // Several processes may start at the same moment: one migrates, the others wait and find it done.
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS shipmock_meta (key text PRIMARY KEY, value text NOT NULL)');
    const row = (await client.query<{ value: string }>("SELECT value FROM shipmock_meta WHERE key = 'schema_version'")).rows[0];
    const version = row ? Number(row.value) : 0;
    if (!Number.isInteger(version) || version > POSTGRES_SCHEMA_VERSION) {
      throw new SharedStoreError(url, `holds a shipmock schema newer than this shipmock (version ${row?.value}; this one knows up to ${POSTGRES_SCHEMA_VERSION})`, 'Run the newer shipmock, or point --data at another database.');
    }
    for (let next = version; next < POSTGRES_SCHEMA_VERSION; next++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[next]);
        await client.query("INSERT INTO shipmock_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(next + 1)]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }
    await seedTokenSecret(client);
    return Number((await client.query<{ n: string }>("SELECT nextval('shipmock_process') AS n")).rows[0].n);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}

/**
 * The token signing secret is the registered part `token-secret` (runtime.ts), pulled like every
 * shared part. A new database gets one here, under the migration lock, so that processes starting
 * together sign alike; a database of an earlier version moves the secret it kept in shipmock_meta
 * there (tokens issued before the upgrade stay valid). Under the batch lock: its change number
 * follows commit order like every batch's.
 */
async function seedTokenSecret(client: pg.Client): Promise<void> {
  const has = await client.query("SELECT 1 FROM shipmock_parts WHERE name = 'token-secret'");
  if (has.rowCount) return;
  const kept = (await client.query<{ value: string }>("SELECT value FROM shipmock_meta WHERE key = 'token_secret'")).rows[0]?.value;
  const secret = kept ?? (await import('node:crypto')).randomBytes(32).toString('hex');
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BATCH_LOCK]);
    await client.query("INSERT INTO shipmock_parts (name, value, change) VALUES ('token-secret', $1, nextval('shipmock_change')) ON CONFLICT (name) DO NOTHING", [JSON.stringify(secret)]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * PostgreSQL under the shared store: the lock is a transaction-level advisory lock, the pull and
 * the writes are one round trip each (statement lists; values escaped by pg).
 */
function createPostgresBackend(url: string, firstClient: pg.Client): SharedBackend {
  let client: pg.Client | undefined = firstClient;

  async function database(): Promise<pg.Client> {
    if (client) return client;
    const connected = await connect(url);
    connected.on('error', () => {
      if (client === connected) client = undefined;
    });
    client = connected;
    return connected;
  }

  return {
    async open(since) {
      const db = await database();
      const after = String(since);
      // One round trip: the lock, a change number, and every row changed since `after` (a number, not user input).
      const results = (await db.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${BATCH_LOCK}); SELECT nextval('shipmock_change') AS change;
         SELECT scope FROM shipmock_scopes WHERE replaced > ${after};
         SELECT scope, collection, seq, id, body FROM shipmock_items WHERE change > ${after} ORDER BY scope, collection, seq;
         SELECT scope, collection, next_seq FROM shipmock_collections WHERE change > ${after};
         SELECT scope, key, value FROM shipmock_values WHERE change > ${after};
         SELECT name, value FROM shipmock_parts WHERE change > ${after};`,
      )) as unknown as pg.QueryResult[];
      return {
        change: Number(results[2].rows[0].change),
        rows: { scopes: results[3].rows, items: results[4].rows, collections: results[5].rows, values: results[6].rows, parts: results[7].rows },
      };
    },
    async commit(writes) {
      const db = await database();
      const statements = commitStatements(writes, (value) => (value === null ? 'NULL' : db.escapeLiteral(storable(value))));
      await db.query(statements.length ? `${statements.join(';\n')};\nCOMMIT` : 'COMMIT');
    },
    abandon() {
      const broken = client;
      client = undefined;
      void broken?.end().catch(() => {});
    },
    feed(name, capacity, origin, onError) {
      return createPostgresFeed({ connect: () => connect(url), name, capacity, origin, onError });
    },
    async close() {
      await client?.end().catch(() => {});
    },
  };
}

/** A batch's writes as SQL statements (PostgreSQL; `literal` quotes a value). */
function commitStatements(writes: WriteSet, literal: (value: string | null) => string): string[] {
  const { change } = writes;
  const statements: string[] = [];
  for (const key of writes.replaced) {
    const scope = literal(key);
    statements.push(
      `DELETE FROM shipmock_items WHERE scope = ${scope}`,
      `DELETE FROM shipmock_collections WHERE scope = ${scope}`,
      `DELETE FROM shipmock_values WHERE scope = ${scope}`,
      `INSERT INTO shipmock_scopes (scope, replaced) VALUES (${scope}, ${change}) ON CONFLICT (scope) DO UPDATE SET replaced = excluded.replaced`,
    );
  }
  if (writes.items.length) {
    const rows = writes.items.map(([scope, collection, seq, id, body]) => `(${literal(scope)}, ${literal(collection)}, ${seq}, ${literal(id)}, ${literal(body)}, ${change})`);
    statements.push(`INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES ${rows.join(', ')} ON CONFLICT (scope, collection, seq) DO UPDATE SET id = excluded.id, body = excluded.body, change = excluded.change`);
  }
  if (writes.collections.length) {
    const rows = writes.collections.map(([scope, collection, nextSeq]) => `(${literal(scope)}, ${literal(collection)}, ${nextSeq}, ${change})`);
    statements.push(`INSERT INTO shipmock_collections (scope, collection, next_seq, change) VALUES ${rows.join(', ')} ON CONFLICT (scope, collection) DO UPDATE SET next_seq = GREATEST(shipmock_collections.next_seq, excluded.next_seq), change = excluded.change`);
  }
  if (writes.values.length) {
    const rows = writes.values.map(([scope, key, value]) => `(${literal(scope)}, ${literal(key)}, ${literal(value)}, ${change})`);
    statements.push(`INSERT INTO shipmock_values (scope, key, value, change) VALUES ${rows.join(', ')} ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, change = excluded.change`);
  }
  if (writes.parts.length) {
    const rows = writes.parts.map(([name, value]) => `(${literal(name)}, ${literal(value)}, ${change})`);
    statements.push(`INSERT INTO shipmock_parts (name, value, change) VALUES ${rows.join(', ')} ON CONFLICT (name) DO UPDATE SET value = excluded.value, change = excluded.change`);
  }
  if (writes.vacuum) statements.push(...vacuumStatements(writes.vacuum));
  return statements;
}
