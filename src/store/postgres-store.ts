import pg from 'pg';
import type { Entity } from './collection.js';
import { maskUrl } from './data-location.js';
import { createDirtyWrites } from './dirty-writes.js';
import { createPostgresFeed } from './postgres-feed.js';
import { createStore, type MemoryStore, type SharedBatches, type StatePart, type Store } from './store.js';

/**
 * The shared store: several shipmock processes (on one host or many) keep their state in one
 * PostgreSQL database and behave as one mock (docs/scaling.md).
 *
 * Each process keeps the memory store as its working set, as the SQLite store does, so reads
 * cost what they cost in memory. What keeps the copies one mock is the batch: every piece of
 * work that reads or writes state (a request, a timer) runs inside a batch, and a batch is
 *
 *   BEGIN; pg_advisory_xact_lock; pull every row changed since this process last looked;
 *   … the work of every request that joined the batch …;
 *   write what they changed; COMMIT
 *
 * in two round trips. Batches of all processes therefore run one at a time, each starting from
 * everything the others committed: a write acknowledged anywhere is read by the next request
 * everywhere; sequences, ids, tracking numbers, rate-limit windows and scenario counters are
 * drawn from current state; a tracker step that falls due is recorded by whichever batch sees
 * it first and found done by the others. The price is that batches do not run in parallel
 * across processes: the cluster commits about as many batches per second as one lock
 * round trip allows, each carrying every request its process had ready (docs/scaling.md).
 *
 * Rows carry the `change` number of the batch that wrote them (a sequence taken under the
 * lock, so numbers follow commit order); a deleted item stays as a row without a body until its
 * scope is replaced, so other processes learn of the deletion.
 *
 * No pg type leaves this file: the rest of the mock sees a `Store`.
 */
export interface PostgresStoreOptions {
  /** Used instead of the secret kept in the database (all processes must then be given the same). */
  tokenSecret?: string;
  /** Reports a failed background batch (requests get a 503 instead). */
  onError?: (error: Error) => void;
  /** A member that has not settled after this long no longer holds its batch (default 2 s). */
  memberTimeoutMs?: number;
}

export interface OpenedPostgresStore {
  store: Store;
  tokenSecret: string;
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
  `CREATE TABLE shipmock_feed (id bigserial PRIMARY KEY, feed text NOT NULL, tag text, body text NOT NULL);
   CREATE INDEX shipmock_feed_feed_id ON shipmock_feed (feed, id);`,
];
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Advisory lock keys ("shm" + a number): migrations, and the batch lock every process takes. */
const MIGRATION_LOCK = 0x73686d01;
const BATCH_LOCK = 0x73686d02;

/** The state parts each process keeps for itself: its own random stream (ids never collide across processes). */
const LOCAL_PARTS = new Set(['random']);

/** The database cannot be used: the message names it (password masked) and what to do. */
export class SharedStoreError extends Error {
  constructor(url: string, problem: string, remedy: string) {
    super(`--data ${maskUrl(url)}: ${problem}. ${remedy}`);
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
    throw error;
  }
  return client;
}

/**
 * Connects, migrates (once, whoever starts first), and loads the state.
 * @example const { store, tokenSecret } = await openPostgresStore('postgres://shipmock@127.0.0.1:5432/shipmock');
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<OpenedPostgresStore> {
  let client: pg.Client;
  try {
    client = await connect(url);
  } catch (error) {
    throw new SharedStoreError(url, `cannot connect to PostgreSQL (${(error as Error).message || (error as { code?: string }).code})`, 'Start PostgreSQL, or check the host, port, user and database in the URL.');
  }
  try {
    const { tokenSecret, processNumber } = await migrate(client, url, options.tokenSecret);
    const store = createPostgresStore(url, client, processNumber, options);
    await store.shared.run(() => {});
    return { store, tokenSecret, processNumber };
  } catch (error) {
    await client.end().catch(() => {});
    throw error instanceof SharedStoreError ? error : new SharedStoreError(url, `cannot be used (${(error as Error).message})`, 'Check that the database is a shipmock database and the user may create tables in it.');
  }
}

async function migrate(client: pg.Client, url: string, givenSecret: string | undefined): Promise<{ tokenSecret: string; processNumber: number }> {
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
    const candidate = (await import('node:crypto')).randomBytes(32).toString('hex');
    await client.query("INSERT INTO shipmock_meta (key, value) VALUES ('token_secret', $1) ON CONFLICT (key) DO NOTHING", [candidate]);
    const saved = (await client.query<{ value: string }>("SELECT value FROM shipmock_meta WHERE key = 'token_secret'")).rows[0].value;
    const processNumber = Number((await client.query<{ n: string }>("SELECT nextval('shipmock_process') AS n")).rows[0].n);
    return { tokenSecret: givenSecret ?? saved, processNumber };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}

interface Batch {
  /** Members that have not settled yet. */
  pending: Set<object>;
  /** Still taking members (until it is open and one turn of the event loop has passed). */
  admitting: boolean;
  opened: Promise<void>;
  done: Promise<void>;
  finish(error?: Error): void;
  committing: boolean;
  change: number;
}

interface PulledRows {
  scopes: { scope: string }[];
  items: { scope: string; collection: string; seq: string; id: string; body: string | null }[];
  collections: { scope: string; collection: string; next_seq: string }[];
  values: { scope: string; key: string; value: string | null }[];
  parts: { name: string; value: string }[];
}

function createPostgresStore(url: string, firstClient: pg.Client, processNumber: number, options: PostgresStoreOptions): Store & { shared: SharedBatches } {
  let client: pg.Client | undefined = firstClient;
  const memberTimeoutMs = options.memberTimeoutMs ?? 2000;
  const dirty = createDirtyWrites(() => {
    // A write outside any batch (a delivery's outcome arriving from the network) is pushed by a batch soon.
    if (!current && !closed) scheduleBackgroundBatch();
  });
  const memory: MemoryStore = createStore(dirty.watcher);
  const parts = new Map<string, { part: StatePart; saved?: string }>();
  /** Part values pulled before the part was registered. */
  const pulledParts = new Map<string, string>();
  /** The change number this copy has applied everything up to. */
  let lastSeen = 0;
  /** The copy may differ from the database (a commit failed half-way): the next batch loads everything again. */
  let reloadNeeded = false;
  let current: Batch | undefined;
  let previousDone: Promise<void> = Promise.resolve();
  let closed = false;
  const members = new Map<object, Batch>();
  /** Members whose batch committed without them (they took too long): their writes need a batch of their own. */
  const expired = new WeakSet<object>();

  async function database(): Promise<pg.Client> {
    if (client) return client;
    client = await connect(url);
    client.on('error', () => {
      client = undefined;
    });
    // Another process may have committed anything meanwhile, and our last commit may or may not have landed.
    reloadNeeded = true;
    return client;
  }

  function dropConnection(): void {
    const broken = client;
    client = undefined;
    void broken?.end().catch(() => {});
  }

  async function open(batch: Batch): Promise<void> {
    const db = await database();
    if (reloadNeeded) {
      lastSeen = 0;
      dirty.clear();
      dirty.muted(() => {
        for (const [key] of [...memory.scopeEntries()]) memory.dropScope(key);
      });
      for (const entry of parts.values()) entry.saved = undefined;
    }
    const since = String(lastSeen);
    // One round trip: the lock, a change number, and every row changed since `since` (a number, not user input).
    const results = (await db.query(
      `BEGIN; SELECT pg_advisory_xact_lock(${BATCH_LOCK}); SELECT nextval('shipmock_change') AS change;
       SELECT scope FROM shipmock_scopes WHERE replaced > ${since};
       SELECT scope, collection, seq, id, body FROM shipmock_items WHERE change > ${since} ORDER BY scope, collection, seq;
       SELECT scope, collection, next_seq FROM shipmock_collections WHERE change > ${since};
       SELECT scope, key, value FROM shipmock_values WHERE change > ${since};
       SELECT name, value FROM shipmock_parts WHERE change > ${since};`,
    )) as unknown as pg.QueryResult[];
    batch.change = Number(results[2].rows[0].change);
    apply({
      scopes: results[3].rows,
      items: results[4].rows,
      collections: results[5].rows,
      values: results[6].rows,
      parts: results[7].rows,
    });
    reloadNeeded = false;
    // Everything committed before this batch took its number is applied now.
    lastSeen = batch.change - 1;
  }

  /** Puts what other processes committed into the working set; none of it is a write of ours. */
  function apply(rows: PulledRows): void {
    dirty.muted(() => {
      for (const { scope } of rows.scopes) memory.dropScope(scope);
      for (const row of rows.items) {
        memory.scopeAt(row.scope).collection<Entity>(row.collection).applyRemote(Number(row.seq), row.id, row.body === null ? undefined : JSON.parse(row.body));
      }
      for (const row of rows.collections) memory.scopeAt(row.scope).collection<Entity>(row.collection).advanceSequence(Number(row.next_seq));
      for (const row of rows.values) {
        const values = memory.scopeAt(row.scope).values;
        if (row.value === null) values.delete(row.key);
        else values.set(row.key, JSON.parse(row.value));
      }
    });
    // Parts last and not muted: a clock set forward fires the timers now due, and what they
    // write (a tracker's next scan) is this batch's write.
    for (const { name, value } of rows.parts) {
      const entry = parts.get(name);
      if (!entry) {
        pulledParts.set(name, value);
        continue;
      }
      entry.saved = value;
      entry.part.restore(JSON.parse(value));
    }
  }

  /** The batch's writes and COMMIT, as one statement list (values escaped by pg), in one round trip. */
  function commitStatements(change: number, db: pg.Client, changed: [string, string][]): string | undefined {
    const literal = (value: string | null) => (value === null ? 'NULL' : db.escapeLiteral(value));
    const statements: string[] = [];
    const itemRows: string[] = [];
    // Keyed: ON CONFLICT cannot update one row twice in a statement.
    const collectionRows = new Map<string, string>();
    const valueRows: string[] = [];
    for (const key of dirty.replaced) {
      const scope = literal(key);
      statements.push(
        `DELETE FROM shipmock_items WHERE scope = ${scope}`,
        `DELETE FROM shipmock_collections WHERE scope = ${scope}`,
        `DELETE FROM shipmock_values WHERE scope = ${scope}`,
        `INSERT INTO shipmock_scopes (scope, replaced) VALUES (${scope}, ${change}) ON CONFLICT (scope) DO UPDATE SET replaced = excluded.replaced`,
      );
      const live = memory.existingScope(key);
      if (!live) continue;
      for (const name of live.collectionNames()) {
        const collection = live.existing<Entity>(name)!;
        for (const item of collection.values()) itemRows.push(`(${scope}, ${literal(name)}, ${collection.seqOf(item.id)}, ${literal(item.id)}, ${literal(JSON.stringify(item))}, ${change})`);
        collectionRows.set(`${key}\n${name}`, `(${scope}, ${literal(name)}, ${collection.sequence}, ${change})`);
      }
      for (const [name, value] of live.values) valueRows.push(`(${scope}, ${literal(name)}, ${literal(JSON.stringify(value ?? null))}, ${change})`);
    }
    // A replaced scope was written whole above; its later writes are in that.
    for (const [key, byCollection] of dirty.items) {
      if (dirty.replaced.has(key)) continue;
      const live = memory.existingScope(key);
      for (const [name, slots] of byCollection) {
        const collection = live?.existing<Entity>(name);
        for (const [seq, id] of slots) {
          // The slot still holds the item: its body; else it was deleted: a row without one.
          const value = collection?.seqOf(id) === seq ? collection.get(id) : undefined;
          itemRows.push(`(${literal(key)}, ${literal(name)}, ${seq}, ${literal(id)}, ${literal(value ? JSON.stringify(value) : null)}, ${change})`);
        }
        if (collection) collectionRows.set(`${key}\n${name}`, `(${literal(key)}, ${literal(name)}, ${collection.sequence}, ${change})`);
      }
    }
    for (const [key, names] of dirty.values) {
      if (dirty.replaced.has(key)) continue;
      const values = memory.existingScope(key)?.values;
      for (const name of names) valueRows.push(`(${literal(key)}, ${literal(name)}, ${literal(values?.has(name) ? JSON.stringify(values.get(name) ?? null) : null)}, ${change})`);
    }
    const partRows = changed.map(([name, json]) => `(${literal(name)}, ${literal(json)}, ${change})`);
    if (itemRows.length) {
      statements.push(
        `INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES ${itemRows.join(', ')} ON CONFLICT (scope, collection, seq) DO UPDATE SET id = excluded.id, body = excluded.body, change = excluded.change`,
      );
    }
    if (collectionRows.size) {
      statements.push(
        `INSERT INTO shipmock_collections (scope, collection, next_seq, change) VALUES ${[...collectionRows.values()].join(', ')} ON CONFLICT (scope, collection) DO UPDATE SET next_seq = GREATEST(shipmock_collections.next_seq, excluded.next_seq), change = excluded.change`,
      );
    }
    if (valueRows.length) statements.push(`INSERT INTO shipmock_values (scope, key, value, change) VALUES ${valueRows.join(', ')} ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, change = excluded.change`);
    if (partRows.length) statements.push(`INSERT INTO shipmock_parts (name, value, change) VALUES ${partRows.join(', ')} ON CONFLICT (name) DO UPDATE SET value = excluded.value, change = excluded.change`);
    return statements.length ? statements.join(';\n') : undefined;
  }

  function changedParts(): [string, string][] {
    const out: [string, string][] = [];
    for (const [name, entry] of parts) {
      if (LOCAL_PARTS.has(name)) continue;
      const json = JSON.stringify(entry.part.snapshot() ?? null);
      if (json !== entry.saved) out.push([name, json]);
    }
    return out;
  }

  async function commit(batch: Batch): Promise<void> {
    const db = await database();
    const touchedParts = changedParts();
    const writes = commitStatements(batch.change, db, touchedParts);
    await db.query(writes ? `${writes};\nCOMMIT` : 'COMMIT');
    dirty.clear();
    for (const [name, json] of touchedParts) parts.get(name)!.saved = json;
    lastSeen = batch.change;
  }

  function newBatch(): Batch {
    let finish!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      finish = (error) => (error ? reject(error) : resolve());
    });
    // Members wait on `done`; a batch nobody waits on must not be an unhandled rejection.
    done.catch(() => {});
    const batch: Batch = { pending: new Set(), admitting: true, opened: Promise.resolve(), done, finish, committing: false, change: 0 };
    const after = previousDone;
    previousDone = done.catch(() => {});
    batch.opened = after.then(() => {
      if (closed) throw new Error('the store is closed');
      return open(batch);
    });
    batch.opened.then(
      () =>
        setImmediate(() => {
          batch.admitting = false;
          maybeCommit(batch);
        }),
      (error: Error) => {
        batch.admitting = false;
        if (current === batch) current = undefined;
        for (const member of batch.pending) members.delete(member);
        dropConnection();
        reloadNeeded = true;
        batch.finish(error);
      },
    );
    return batch;
  }

  function maybeCommit(batch: Batch): void {
    if (batch.admitting || batch.committing || batch.pending.size) return;
    batch.committing = true;
    if (current === batch) current = undefined;
    commit(batch).then(
      () => batch.finish(),
      (error: Error) => {
        // What this batch wrote may or may not be in the database: ask it again next time.
        dropConnection();
        reloadNeeded = true;
        batch.finish(error);
      },
    );
  }

  function enter(member: object): Promise<void> {
    if (closed) return Promise.reject(new Error('the store is closed'));
    if (!current || !current.admitting) current = newBatch();
    const batch = current;
    batch.pending.add(member);
    members.set(member, batch);
    // A member that never settles (a handler waiting on a slow carrier) must not hold every process.
    // Its writes after that go with a later batch (settle finds it no longer a member).
    const timer = setTimeout(() => {
      if (!batch.pending.delete(member)) return;
      members.delete(member);
      expired.add(member);
      maybeCommit(batch);
    }, memberTimeoutMs);
    timer.unref();
    return batch.opened.then(() => clearTimeout(timer), (error) => {
      clearTimeout(timer);
      throw error;
    });
  }

  /** Idempotent: a member settled twice (answered, then its connection closed) settles once. */
  function settle(member: object): Promise<void> {
    const batch = members.get(member);
    members.delete(member);
    if (!batch) {
      if (!expired.has(member)) return Promise.resolve();
      expired.delete(member);
      return run(() => {});
    }
    batch.pending.delete(member);
    maybeCommit(batch);
    return batch.done;
  }

  async function run(work: () => void): Promise<void> {
    const member = {};
    await enter(member);
    try {
      work();
    } finally {
      await settle(member);
    }
  }

  let backgroundScheduled = false;
  function scheduleBackgroundBatch(): void {
    if (backgroundScheduled) return;
    backgroundScheduled = true;
    setImmediate(() => {
      backgroundScheduled = false;
      run(() => {}).catch((error: Error) => options.onError?.(error));
    });
  }

  const feeds: { close(): void }[] = [];
  const shared: SharedBatches = {
    enter,
    settle,
    run,
    processNumber,
    feed<T>(name: string, capacity: number) {
      const feed = createPostgresFeed<T>({ connect: () => connect(url), name, capacity, onError: (error) => options.onError?.(error) });
      feeds.push(feed);
      return feed;
    },
  };

  const store: Store & { shared: SharedBatches } = {
    account: memory.account,
    hasAccount: memory.hasAccount,
    accountIds: memory.accountIds,
    company: memory.company,
    get global() {
      return memory.global;
    },
    get system() {
      return memory.system;
    },
    reset: memory.reset,
    snapshot: memory.snapshot,
    restore: memory.restore,
    durable: true,
    part(name, part) {
      const pulled = pulledParts.get(name);
      pulledParts.delete(name);
      if (pulled !== undefined && !LOCAL_PARTS.has(name)) part.restore(JSON.parse(pulled));
      parts.set(name, { part, saved: LOCAL_PARTS.has(name) ? undefined : pulled });
    },
    // Requests commit through their batch (settle); work outside one gets a batch of its own.
    commit() {
      if (!dirty.empty || changedParts().length) scheduleBackgroundBatch();
    },
    touch() {
      if (!current) scheduleBackgroundBatch();
    },
    close() {
      if (closed) return;
      closed = true;
      for (const feed of feeds) feed.close();
      const last = previousDone;
      void last.then(() => client?.end()).catch(() => {});
    },
    shared,
  };
  return store;
}
