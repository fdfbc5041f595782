import pg from 'pg';
import { maskUrl, redactSecrets } from './data-location.js';
import { createPostgresFeed, storable } from './postgres-feed.js';
import { createSharedStore, listAccountValue, type AccountListing, type CommitLock, type CountedAhead, type CountsAhead, type PulledRows, type PullRequest, type SharedBackend, type SharedStoreOptions, type VerifySet, type WriteSet } from './shared-store.js';
import { loadedRow, type LoadedScopes, type ScopeRows, type StoredScopeReads } from './shared-scopes.js';
import type { StoredScopes } from './scope-cache.js';
import { storedScopesView } from './stored-scopes-view.js';
import type { IssuedNumberReads } from './offloaded-issued-numbers.js';
import { createSyncReader, type SyncReader } from './postgres-sync-reader.js';
import { vacuumStatements } from './vacuum.js';
import { ISSUED_NUMBERS_COLLECTION, OUTSIDE_LOCK_CONFLICT, type Store } from './store.js';

/**
 * The shared store on PostgreSQL (--data postgres://…): several shipmock processes, on one host
 * or many, keep their state in one database and behave as one mock. The batch engine is
 * shared-store.ts; here is what PostgreSQL brings to it: the lock (a transaction-level advisory
 * lock per account and a wide one), change numbers taken at commit, migrations that run once however many processes start at the same
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

/**
 * Advisory lock keys ("shm" + a number): migrations; the wide lock (exclusive for a wide batch,
 * shared by every account batch); and the namespace of account locks (two-key form: this and
 * hashtext of the account id; two accounts of one hash only wait for each other).
 */
const MIGRATION_LOCK = 0x73686d01;
const WIDE_LOCK = 0x73686d02;
const ACCOUNT_LOCKS = 0x73686d03;

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
  // 3: change numbers taken at commit: the one-row head is the sequencer (its row lock is held
  // only through a commit statement) and the number of the last commit (what a pull has seen).
  `CREATE TABLE shipmock_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), change bigint NOT NULL);
   INSERT INTO shipmock_head (change) SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM shipmock_change;`,
  // 4: "was this carrier number issued?" asked of the database (offloaded-issued-numbers.ts), as
  // the SQLite store's items_global_ids: an index on the global scope's ids only.
  `CREATE INDEX shipmock_items_global_ids ON shipmock_items (collection, id) WHERE scope = 'global';`,
  // 5: the commit of a read batch that wrote values only (until migration 6, every read batch
  // under a rate limit: its accounts' windows) as one function, whose statements PostgreSQL plans once per session:
  // as a script of a dozen statements it cost the database ~480 µs of CPU a commit, ~200 µs so.
  // The same steps as commitLocks, NEXT_CHANGE, verifyStatement and the values' upsert.
  `CREATE FUNCTION shipmock_commit_values(p_after bigint, p_accounts text[], p_unchanged_value_scopes text[], p_unchanged_value_keys text[], p_unchanged_scopes text[], p_scopes text[], p_keys text[], p_values text[])
   RETURNS TABLE (next_change bigint, next_at float8) LANGUAGE plpgsql AS $$
   DECLARE
     account text;
   BEGIN
     PERFORM pg_advisory_xact_lock_shared(${WIDE_LOCK});
     FOREACH account IN ARRAY p_accounts LOOP
       PERFORM pg_advisory_xact_lock(${ACCOUNT_LOCKS}, hashtext(account));
     END LOOP;
     UPDATE shipmock_head SET change = shipmock_head.change + 1 RETURNING shipmock_head.change INTO next_change;
     next_at := (extract(epoch from clock_timestamp()) * 1000)::float8;
     -- Bounded by the change just taken too (no row is past it), as the pull is: a plan cached
     -- for any p_after then stays on the change indexes however large the tables grow.
     IF EXISTS (SELECT 1 FROM shipmock_values v JOIN unnest(p_unchanged_value_scopes, p_unchanged_value_keys) AS c(scope, key) ON v.scope = c.scope AND v.key = c.key WHERE v.change > p_after AND v.change <= next_change)
        OR EXISTS (SELECT 1 FROM shipmock_scopes WHERE replaced > p_after AND replaced <= next_change AND scope = ANY (p_unchanged_scopes))
        OR EXISTS (SELECT 1 FROM shipmock_items WHERE change > p_after AND change <= next_change AND scope = ANY (p_unchanged_scopes))
        OR EXISTS (SELECT 1 FROM shipmock_collections WHERE change > p_after AND change <= next_change AND scope = ANY (p_unchanged_scopes))
        OR EXISTS (SELECT 1 FROM shipmock_values WHERE change > p_after AND change <= next_change AND scope = ANY (p_unchanged_scopes)) THEN
       -- The same refusal as verifyStatement's: division by zero, reported as OUTSIDE_LOCK_CONFLICT.
       PERFORM 1 / 0;
     END IF;
     INSERT INTO shipmock_values (scope, key, value, change) SELECT w.scope, w.key, w.value, next_change FROM unnest(p_scopes, p_keys, p_values) AS w(scope, key, value)
       ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, change = excluded.change;
     RETURN NEXT;
   END $$;`,
  // 6: a read batch's requests counted ahead in their accounts' rate-limit windows, in the read's
  // own round trip (its pull's transaction, which holds those accounts' locks): each window gains
  // its requests, or starts afresh at p_now when it has ended (or holds no window of ours). The
  // windows are the limiter's JSON ({"startedAt":…,"count":…}: JSON.stringify's form, kept so
  // that a window written by either is read by both). Without it, every read batch under a
  // counted limit committed its windows: a second round trip and a second transaction.
  `CREATE FUNCTION shipmock_count_ahead(p_now numeric, p_window_ms numeric, p_keys text[], p_counts bigint[])
   RETURNS TABLE (next_change bigint, next_at float8, window_keys text[], window_values text[]) LANGUAGE plpgsql AS $$
   DECLARE
     i int;
     stored text;
     m text[];
     counted text;
   BEGIN
     UPDATE shipmock_head SET change = shipmock_head.change + 1 RETURNING shipmock_head.change INTO next_change;
     next_at := (extract(epoch from clock_timestamp()) * 1000)::float8;
     window_keys := p_keys;
     window_values := ARRAY[]::text[];
     -- A statement per window, each with a plan PostgreSQL keeps: as one CTE the count was
     -- planned at every call (~150 µs of the database's CPU more).
     FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
       SELECT v.value INTO stored FROM shipmock_values v WHERE v.scope = 'system' AND v.key = p_keys[i];
       m := regexp_match(stored, '^\\{"startedAt":(-?[0-9]+(?:\\.[0-9]+)?),"count":([0-9]+)\\}$');
       -- A window that started after p_now is kept: p_now may be older than a clock another process moved on.
       IF m IS NULL OR p_now >= m[1]::numeric + p_window_ms THEN
         counted := '{"startedAt":' || p_now::text || ',"count":' || p_counts[i]::text || '}';
       ELSE
         counted := '{"startedAt":' || m[1] || ',"count":' || (m[2]::numeric + p_counts[i])::text || '}';
       END IF;
       INSERT INTO shipmock_values AS v (scope, key, value, change) VALUES ('system', p_keys[i], counted, next_change)
         ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, change = excluded.change;
       window_values := window_values || counted;
     END LOOP;
     RETURN NEXT;
   END $$;`,
];
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** The database cannot be used: the message names it (password masked) and what to do. */
export class SharedStoreError extends Error {
  constructor(url: string, problem: string, remedy: string) {
    // The problem may quote what pg said about the URL: no form of the password survives.
    super(`--data ${maskUrl(url)}: ${redactSecrets(problem, url)}. ${remedy}`);
    this.name = 'SharedStoreError';
  }
}

const CONNECT_TIMEOUT_MS = 5000;

/** What a process's connections are named once it has its number: other processes see it alive while one is open. */
const SESSION_NAME = 'shipmock:';
const sessionName = (processNumber?: number) => (processNumber === undefined ? 'shipmock' : `${SESSION_NAME}${processNumber}`);

async function connect(url: string, processNumber?: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: sessionName(processNumber) });
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
    await client.query(`SET application_name = '${sessionName(processNumber)}'`);
    const store = createSharedStore(createPostgresBackend(url, client, processNumber), processNumber, options);
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
 * there (tokens issued before the upgrade stay valid). Numbered by the head like every commit.
 */
async function seedTokenSecret(client: pg.Client): Promise<void> {
  const has = await client.query("SELECT 1 FROM shipmock_parts WHERE name = 'token-secret'");
  if (has.rowCount) return;
  const kept = (await client.query<{ value: string }>("SELECT value FROM shipmock_meta WHERE key = 'token_secret'")).rows[0]?.value;
  const secret = kept ?? (await import('node:crypto')).randomBytes(32).toString('hex');
  await client.query('BEGIN');
  try {
    await client.query('WITH head AS (UPDATE shipmock_head SET change = change + 1 RETURNING change) INSERT INTO shipmock_parts (name, value, change) SELECT \'token-secret\', $1, change FROM head ON CONFLICT (name) DO NOTHING', [JSON.stringify(secret)]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * PostgreSQL under the shared store. A batch is a READ COMMITTED transaction:
 *
 *   open    BEGIN; the lock (wide: the wide lock exclusive; an account: the wide lock shared, then
 *           the account's); ONE statement reading the head and every row committed after
 *           `since` (one statement is one snapshot)                                  -- round trip 1
 *   commit  take the next number from the head (its row lock orders commits); check the rows an
 *           account batch wrote outside its account; write the rows; COMMIT           -- round trip 2
 *
 * A read batch (no lock): its open is the pull alone, in a transaction of its own; if it wrote,
 * its commit begins the transaction, takes the wide lock shared and the locks of the accounts it
 * wrote (sorted), then as above, its check covering every row of those accounts. Under a counted
 * rate limit its open takes those locks first and counts its requests in their windows after
 * the pull, committing there (countAheadAndPull): it has nothing left to commit.
 *
 * The head's row lock is held only through the commit statement: that, and a wide batch, is
 * what runs one at a time across processes; both are timed by the database's clock
 * (`clock_timestamp()` after the lock or the head is had, and after COMMIT) for `serialMs`. Every batch takes the wide lock first and at most
 * one account lock, so no two batches wait for each other in a cycle.
 */
function createPostgresBackend(url: string, firstClient: pg.Client, processNumber: number): SharedBackend {
  let client: pg.Client | undefined;
  /** The connection broke between batches (the next one connects afresh; see `connectionBroke`). */
  let broke = false;
  const use = (connected: pg.Client) => {
    connected.on('error', () => {
      if (client !== connected) return;
      client = undefined;
      broke = true;
    });
    client = connected;
    return connected;
  };
  use(firstClient);

  async function database(): Promise<pg.Client> {
    return client ?? use(await connect(url, processNumber));
  }

  /** When the open wide batch had the wide lock, by the database's clock (ms). */
  let wideSince: number | undefined;
  const syncReader = createSyncReader(url, sessionName(processNumber));
  const stored = storedScopeReads(syncReader, async (sql, params) => (await database()).query(sql, params), () => storedScopesAtSnapshot(url, sessionName(processNumber)));

  return {
    accountLocks: true,
    stored,
    issuedNumbers: issuedNumberReads(syncReader),
    countsAhead: true,
    connectionBroke() {
      const was = broke;
      broke = false;
      return was;
    },
    async open(since, lock, skip, pull, ahead) {
      const db = await database();
      wideSince = undefined;
      const statement = () => pullStatement(since, skip, pull, (value) => db.escapeLiteral(value));
      if (lock.kind === 'read' && ahead?.windows.length) return countAheadAndPull(db, (await pullToExecute(db, since, skip, pull)) ?? statement(), ahead);
      // A read: the pull alone, one statement in a transaction of its own (one snapshot), no lock.
      if (lock.kind === 'read') return pulledRows((await db.query<PulledRow>(preparedPull(since, skip, pull) ?? statement())).rows);
      // A process batch (its heartbeat) needs no lock of its own: only this process writes its
      // row, and a process runs one batch at a time.
      const locks =
        lock.kind === 'wide'
          ? `SELECT pg_advisory_xact_lock(${WIDE_LOCK}); SELECT ${CLOCK_MS} AS at;`
          : `SELECT pg_advisory_xact_lock_shared(${WIDE_LOCK});${lock.kind === 'account' ? ` SELECT pg_advisory_xact_lock(${ACCOUNT_LOCKS}, hashtext(${db.escapeLiteral(lock.account)}));` : ''}`;
      const results = resultsOf<PulledRow & { at: string }>(await db.query(`BEGIN; ${locks} ${statement()};`));
      if (lock.kind === 'wide') wideSince = Number(results[2].rows[0].at);
      return pulledRows(results[results.length - 1].rows);
    },
    async commit(writes) {
      const db = await database();
      const literal = (value: string | null) => (value === null ? 'NULL' : db.escapeLiteral(storable(value)));
      // A read's commit of values only is one call (never empty); anything else, the script's statements.
      const valuesOnly = valuesOnlyReadCommit(writes, literal);
      const statements = valuesOnly ? [] : commitStatements(writes, literal);
      const since = wideSince;
      wideSince = undefined;
      if (!valuesOnly && !statements.length) {
        // A read batch began no transaction.
        if (writes.lock) return { change: undefined };
        const results = resultsOf<{ at: string }>(await db.query(`COMMIT; SELECT ${CLOCK_MS} AS at`));
        return { change: undefined, wideMs: since === undefined ? undefined : Number(results[1].rows[0].at) - since };
      }
      const begin = valuesOnly ? ['BEGIN'] : writes.lock ? commitLocks(writes.lock, (value) => db.escapeLiteral(value)) : [];
      const script = valuesOnly ? [...begin, valuesOnly] : [...begin, NEXT_CHANGE, ...statements];
      const results = resultsOf<{ change: string; at: string }>(
        await db.query(`${[...script, 'COMMIT', `SELECT ${CLOCK_MS} AS at`].join(';\n')}`).catch(async (error: Error & { code?: string }) => {
          // The check of rows outside the account failed (division by zero on purpose, see
          // verifyStatement); two read commits waited for each other's account locks (40P01).
          if (!(error.code === '22012' || (writes.lock && error.code === '40P01'))) throw error;
          // Refused: nothing was written. Its transaction ends here, so the connection stays (a
          // ROLLBACK that fails is an error of the connection, handled as one).
          await db.query('ROLLBACK');
          throw new Error(OUTSIDE_LOCK_CONFLICT);
        }),
      );
      const head = results[begin.length].rows[0];
      const committedAt = Number(results[results.length - 1].rows[0].at);
      return { change: Number(head.change), headMs: committedAt - Number(head.at), wideMs: since === undefined ? undefined : committedAt - since };
    },
    abandon() {
      const broken = client;
      client = undefined;
      void broken?.end().catch(() => {});
    },
    feed(name, capacity, origin, onError) {
      return createPostgresFeed({ connect: () => connect(url, processNumber), name, capacity, origin, onError });
    },
    // A killed process's connections close with it (the kernel closes its sockets); a slow or
    // stopped one keeps them open. Read on a connection of its own: the batch connection may be
    // inside a batch's transaction, where PostgreSQL's activity view is a snapshot.
    async liveProcesses() {
      const reader = await connect(url, processNumber);
      try {
        const { rows } = await reader.query<{ name: string }>('SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1', [`${SESSION_NAME}%`]);
        return new Set(rows.map((row) => Number(row.name.slice(SESSION_NAME.length))).filter(Number.isInteger));
      } finally {
        await reader.end().catch(() => {});
      }
    },
    async close() {
      stored.close();
      await client?.end().catch(() => {});
    },
  };
}

/** Connections on which the usual pull is PREPAREd in SQL (`pullToExecute`). */
const preparedInSql = new WeakSet<pg.Client>();

/**
 * The usual pull as an EXECUTE of a statement PREPAREd in SQL once per connection: it can join a
 * multi-statement query (a protocol-level prepared statement cannot) and still is planned once.
 * `undefined` where `preparedPull` is (a pull that loads scopes or starts from scratch).
 */
async function pullToExecute(db: pg.Client, since: number, skip: readonly number[], pull?: PullRequest): Promise<string | undefined> {
  if (!loadsNothing(pull)) return undefined;
  if (!preparedInSql.has(db)) {
    await db.query(`PREPARE shipmock_pull_in_sql (bigint, bigint[]) AS ${PREPARED_PULL_TEXT}`);
    preparedInSql.add(db);
  }
  return `EXECUTE shipmock_pull_in_sql (${Number(since)}, ARRAY[${skip.map(Number).join(', ')}]::bigint[])`;
}

/**
 * A read batch's pull that counts its requests ahead in their accounts' windows (migration 6),
 * one round trip: the locks of those accounts first (the wide lock shared, then theirs, sorted),
 * so that nobody else changes their windows between the pull and the count — the windows the
 * pull read are the ones the count started from.
 */
async function countAheadAndPull(db: pg.Client, pull: string, ahead: CountsAhead): Promise<ReturnType<typeof pulledRows> & { counted: CountedAhead }> {
  const { windows } = ahead;
  const keys = textArray(windows.map((window) => window.key), (value) => db.escapeLiteral(value));
  const count = `SELECT next_change, next_at, window_keys, window_values FROM shipmock_count_ahead(${ahead.now}, ${ahead.windowMs}, ${keys}, ARRAY[${windows.map((window) => window.count).join(', ')}]::bigint[])`;
  const script = [...commitLocks({ accounts: windows.map((window) => window.account) }, (value) => db.escapeLiteral(value)), pull, count, 'COMMIT', `SELECT ${CLOCK_MS} AS at`];
  const results = resultsOf<PulledRow & { next_change: string; next_at: number; window_keys: string[]; window_values: string[]; at: number }>(await db.query(script.join(';\n')));
  const counted = results[script.indexOf(count)].rows[0];
  const committedAt = Number(results[script.length - 1].rows[0].at);
  return {
    ...pulledRows(results[script.indexOf(pull)].rows),
    counted: { change: Number(counted.next_change), windows: counted.window_keys.map((key, i) => [key, counted.window_values[i]]), headMs: committedAt - Number(counted.next_at) },
  };
}

/**
 * The bounded working set's reads of one scope, and of the keys and small values of every
 * account (shared-scopes.ts), on a connection of their own read synchronously
 * (postgres-sync-reader.ts). A scope's rows are a range of each table's primary key, which
 * starts with the scope: reading one costs its own rows, whatever the size of the sandbox.
 */
function storedScopeReads(reader: SyncReader, query: (sql: string, params: unknown[]) => Promise<pg.QueryResult<{ scope: string }>>, openView: () => StoredScopes): StoredScopeReads {
  return {
    openView,
    load(key) {
      const rows = reader.query<PulledRow>(
        `SELECT 0 AS k, change AS c, NULL::text AS a, NULL::bigint AS n, NULL::text AS v FROM shipmock_head
         UNION ALL SELECT 7, 0, collection, next_seq, NULL FROM shipmock_collections WHERE scope = $1
         UNION ALL SELECT 6, 0, collection, seq, body FROM shipmock_items WHERE scope = $1 AND body IS NOT NULL
         UNION ALL SELECT 8, 0, key, NULL, value FROM shipmock_values WHERE scope = $1 AND value IS NOT NULL
         ORDER BY k, a, n`,
        [key],
      );
      let head = 0;
      const scopes: LoadedScopes = new Map();
      for (const row of rows) {
        if (row.k === 0) head = Number(row.c);
        else addLoadedRow(scopes, { ...row, s: key });
      }
      return { head, rows: scopes.get(key) };
    },
    isStored: (key) =>
      reader.query<{ found: boolean }>('SELECT EXISTS (SELECT 1 FROM shipmock_collections WHERE scope = $1) OR EXISTS (SELECT 1 FROM shipmock_values WHERE scope = $1 AND value IS NOT NULL) AS found', [key])[0].found,
    accountKeys: () =>
      reader.query<{ scope: string }>("SELECT scope FROM shipmock_collections WHERE scope LIKE 'account:%' UNION SELECT scope FROM shipmock_values WHERE scope LIKE 'account:%' AND value IS NOT NULL ORDER BY 1").map((row) => row.scope),
    accountValues: (name) =>
      reader.query<{ scope: string; value: string }>("SELECT scope, value FROM shipmock_values WHERE key = $1 AND scope LIKE 'account:%' AND value IS NOT NULL", [name]).map((row) => [row.scope, JSON.parse(row.value)]),
    // On the batch connection, before the first batch (nothing waits for it synchronously).
    recentAccounts: async (limit) =>
      (
        await query(
          `SELECT scope FROM (SELECT scope, max(change) AS last FROM shipmock_collections WHERE scope LIKE 'account:%' GROUP BY scope
             UNION ALL SELECT scope, max(change) FROM shipmock_values WHERE scope LIKE 'account:%' GROUP BY scope) AS changed
           GROUP BY scope ORDER BY max(last) DESC LIMIT $1`,
          [limit],
        )
      ).rows.map((row) => row.scope),
    ready: () => reader.ready(),
    close: () => reader.close(),
  };
}

/** Views an export left unread (a client gone midway): their connection ends when the view is garbage collected. */
const abandonedViews = new FinalizationRegistry<SyncReader>((reader) => reader.close());

/**
 * The stored scopes as the database holds them now, for an export (stored-scopes-view.ts): a
 * connection of its own (a synchronous reader: the export's reads are synchronous) in one
 * REPEATABLE READ transaction, so that pages read many turns later — an export of a big sandbox
 * streams for seconds — still give the state of the moment the view was opened, inside the
 * export's wide unit; the working set's reader keeps seeing the newest commits for the misses of
 * other units meanwhile. Opening it blocks until its thread has connected (an export, not a
 * request, waits for it). The connection ends when every collection given out has been read.
 */
function storedScopesAtSnapshot(url: string, applicationName: string): StoredScopes {
  const reader = createSyncReader(url, applicationName);
  try {
    // The snapshot is taken by the first statement after BEGIN: now, while the export's unit runs.
    reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    reader.query('SELECT 1');
  } catch (error) {
    reader.close();
    throw error;
  }
  const view = storedScopesView({
    collections: (scope) =>
      reader
        .query<{ name: string; next: string; last: string | null }>(
          'SELECT c.collection AS name, c.next_seq AS next, (SELECT max(seq) FROM shipmock_items i WHERE i.scope = c.scope AND i.collection = c.collection AND i.body IS NOT NULL) AS last FROM shipmock_collections c WHERE c.scope = $1',
          [scope],
        )
        .map((row) => [row.name, Number(row.next), row.last === null ? null : Number(row.last)]),
    values: (scope) => reader.query<{ key: string; value: string }>('SELECT key, value FROM shipmock_values WHERE scope = $1 AND value IS NOT NULL', [scope]).map((row) => [row.key, row.value]),
    page: (scope, collection, after, limit) =>
      reader
        .query<{ seq: string; body: string }>('SELECT seq, body FROM shipmock_items WHERE scope = $1 AND collection = $2 AND seq > $3 AND body IS NOT NULL ORDER BY seq LIMIT $4', [scope, collection, after, limit])
        .map((row) => [Number(row.seq), row.body]),
    close: () => {
      abandonedViews.unregister(reader);
      reader.close();
    },
  });
  abandonedViews.register(view, reader, reader);
  return view;
}

/**
 * The global scope's issued carrier numbers as the database holds them (offloaded-issued-numbers.ts),
 * on the bounded working set's reader: the fingerprints in one value, a number by the partial
 * index shipmock_items_global_ids.
 */
function issuedNumberReads(reader: SyncReader): IssuedNumberReads {
  // Numbers are never deleted (no body-less rows to leave out): the index alone answers the first two (an index-only scan).
  const issued = `scope = 'global' AND collection = '${ISSUED_NUMBERS_COLLECTION}'`;
  return {
    fingerprints: () => reader.query<{ prints: Uint8Array | null }>(`SELECT string_agg(decode(substr(md5(id), 1, 8), 'hex'), ''::bytea) AS prints FROM shipmock_items WHERE ${issued}`)[0].prints ?? new Uint8Array(0),
    isIssued: (id) => reader.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM shipmock_items WHERE ${issued} AND id = $1) AS found`, [id])[0].found,
    items: () => reader.query<{ seq: string; body: string }>(`SELECT seq, body FROM shipmock_items WHERE ${issued} AND body IS NOT NULL ORDER BY seq`).map((row) => [Number(row.seq), JSON.parse(row.body)]),
  };
}

/** A row of a scope read whole (k 6 items, 7 collections, 8 values) into its scope's rows. */
function addLoadedRow(out: LoadedScopes, row: PulledRow): void {
  const rows: ScopeRows = loadedRow(out, row.s!);
  if (row.k === 6) rows.items.push([row.a!, Number(row.n), row.v!]);
  else if (row.k === 7) rows.collections.push([row.a!, Number(row.n)]);
  else rows.values.push([row.a!, row.v!]);
}

/** One row of the pull: k says which table (0 head, 1 scopes, 2 items, 3 collections, 4 values, 5 parts; rows of a scope read whole: 6 items, 7 collections, 8 values). */
interface PulledRow {
  k: number;
  c: string;
  s: string | null;
  a: string | null;
  n: string | null;
  i: string | null;
  v: string | null;
}

/** A pull that loads scopes quotes their keys with the connection's own quoting (pg's escapeLiteral), never one of ours. */
const NO_LITERAL = (): string => {
  throw new Error('pullStatement: a pull that loads scopes needs the connection\'s literal quoting');
};

/**
 * The items a pull from scratch reads: those of the scopes that are not an account's (the global,
 * system and company scopes; every scope with items has a collection row), found through the
 * primary key instead of a scan of every account's rows (1.8 GB at 200k bookings: the start took
 * 10 s), without the issued carrier numbers (the process keeps their fingerprints:
 * offloaded-issued-numbers.ts). Every row, at any change: the pull starts from nothing. A scope
 * at a time (LATERAL, kept from being flattened into a join by OFFSET 0): a planner that has not
 * analysed the tables yet otherwise hashes the scopes and scans every item.
 */
const ITEMS_FROM_SCRATCH = `(SELECT DISTINCT scope AS picked FROM shipmock_collections WHERE scope NOT LIKE 'account:%') AS scopes
      CROSS JOIN LATERAL (SELECT change, scope, collection, seq, id, body FROM shipmock_items WHERE scope = scopes.picked AND NOT (scope = 'global' AND collection = '${ISSUED_NUMBERS_COLLECTION}') OFFSET 0) AS rows`;

/**
 * The head and every row committed after `since` except by the commits in `skip`, as ONE
 * statement (one snapshot); with `pull`, also every row of the scopes it loads, and no other
 * account rows unless `accountRows`. Each changed row is also bounded above by the head it reads,
 * which changes nothing (a visible row's change is never past the visible head) but keeps the plan
 * on the `change` indexes: on a table that grew faster than autovacuum analyses it (a load test's
 * first minute), `change > N` alone is estimated to match a third of the table, and PostgreSQL
 * scanned all of it, in parallel workers, for every pull: ~130 ms per pull at 100k rows instead of
 * 0.1 ms, which showed as seconds of lock wait in the scale-out bench. A range of two bounds is
 * estimated at 0.5 % until the statistics say better (test/durability/pull-plan.test.ts).
 */
export function pullStatement(since: number, skip: readonly number[], pull?: PullRequest, literal: (value: string) => string = NO_LITERAL): string {
  return pullText(String(since), skip.length ? `'{${skip.map(Number).join(',')}}'::bigint[]` : undefined, pull, literal);
}

/** A pull that loads no scope and reads every account's changed rows: the usual one, whatever its bounds. */
const loadsNothing = (pull?: PullRequest) => !pull || (pull.accountRows && !pull.load.length);

/** The usual pull with its bounds as parameters ($1 since, $2 the commits to skip): one text, prepared once per connection. */
const PREPARED_PULL_TEXT = pullText('$1::bigint', '$2::bigint[]');

/**
 * A read batch's usual pull as a named prepared statement: PostgreSQL parses and plans it once
 * per connection instead of at every pull (planning the six-way UNION took 0.16–0.2 ms of the
 * database's CPU per pull, as long as running it; a read batch is a pull and nothing else).
 * `undefined` for a pull that loads scopes or starts from scratch (its text names the scopes).
 * A locked batch's pull follows its locks in one multi-statement query, which a prepared
 * statement cannot join, so it stays `pullStatement`.
 * @example await db.query(preparedPull(since, skip, pull) ?? pullStatement(since, skip, pull, quote))
 */
export function preparedPull(since: number, skip: readonly number[], pull?: PullRequest): pg.QueryConfig<[number, number[]]> | undefined {
  if (!loadsNothing(pull)) return undefined;
  return { name: 'shipmock_pull', text: PREPARED_PULL_TEXT, values: [since, skip.map(Number)] };
}

/** The pull's text, its bounds given as SQL: `after` (the change it starts after), `mine` (an array of changes to skip, or none). */
function pullText(after: string, mine: string | undefined, pull?: PullRequest, literal: (value: string) => string = NO_LITERAL): string {
  const newer = (column: string) => `${column} > ${after} AND ${column} <= (SELECT change FROM shipmock_head)${mine ? ` AND ${column} <> ALL(${mine})` : ''}`;
  const accounts = pull && !pull.accountRows ? " AND scope NOT LIKE 'account:%'" : '';
  const items = pull && !pull.accountRows && after === '0' && !mine ? ITEMS_FROM_SCRATCH : `shipmock_items WHERE ${newer('change')}${accounts}`;
  const load = pull?.load.length ? `scope IN (${pull.load.map(literal).join(', ')})` : undefined;
  return `SELECT 0 AS k, change AS c, NULL::text AS s, NULL::text AS a, NULL::bigint AS n, NULL::text AS i, NULL::text AS v FROM shipmock_head
    UNION ALL SELECT 1, replaced, scope, NULL, NULL, NULL, NULL FROM shipmock_scopes WHERE ${newer('replaced')}${accounts}
    UNION ALL SELECT 2, change, scope, collection, seq, id, body FROM ${items}
    UNION ALL SELECT 3, change, scope, collection, next_seq, NULL, NULL FROM shipmock_collections WHERE ${newer('change')}${accounts}
    UNION ALL SELECT 4, change, scope, key, NULL, NULL, value FROM shipmock_values WHERE ${newer('change')}${accounts}
    UNION ALL SELECT 5, change, name, NULL, NULL, NULL, value FROM shipmock_parts WHERE ${newer('change')}${
      load
        ? `
    UNION ALL SELECT 6, 0, scope, collection, seq, NULL, body FROM shipmock_items WHERE ${load} AND body IS NOT NULL
    UNION ALL SELECT 7, 0, scope, collection, next_seq, NULL, NULL FROM shipmock_collections WHERE ${load}
    UNION ALL SELECT 8, 0, scope, key, NULL, NULL, value FROM shipmock_values WHERE ${load} AND value IS NOT NULL`
        : ''
    }${
      pull && !pull.accountRows
        ? `
    UNION ALL SELECT 9, 0, scope, NULL, NULL, NULL, NULL FROM (SELECT DISTINCT scope FROM shipmock_collections WHERE scope LIKE 'account:%') AS stored
    UNION ALL SELECT 10, 0, scope, key, NULL, NULL, value FROM shipmock_values WHERE scope LIKE 'account:%' AND value IS NOT NULL`
        : ''
    }
    ORDER BY k, s, a, n`;
}

function pulledRows(rows: PulledRow[]): { head: number; rows: PulledRows; loaded: LoadedScopes; listing?: AccountListing } {
  const out: PulledRows = { scopes: [], items: [], collections: [], values: [], parts: [] };
  const loaded: LoadedScopes = new Map();
  let listing: AccountListing | undefined;
  let head = 0;
  for (const row of rows) {
    if (row.k >= 9) {
      listing ??= { keys: new Set(), values: new Map() };
      if (row.k === 10) listAccountValue(listing, row.s!, row.a!, JSON.parse(row.v!));
      else listing.keys.add(row.s!);
    } else if (row.k >= 6) addLoadedRow(loaded, row);
    else if (row.k === 0) head = Number(row.c);
    else if (row.k === 1) out.scopes.push({ scope: row.s! });
    else if (row.k === 2) out.items.push({ scope: row.s!, collection: row.a!, seq: row.n!, id: row.i!, body: row.v });
    else if (row.k === 3) out.collections.push({ scope: row.s!, collection: row.a!, next_seq: row.n! });
    else if (row.k === 4) out.values.push({ scope: row.s!, key: row.a!, value: row.v });
    else out.parts.push({ name: row.s!, value: row.v! });
  }
  return { head, rows: out, loaded, listing };
}

/** The database's clock in ms: the serial sections are timed by it, around the exact statements (lock-stats.ts). */
const CLOCK_MS = '(extract(epoch from clock_timestamp()) * 1000)::float8';

/**
 * Takes the next change number (the head's row lock, held to COMMIT, orders commits) and keeps it
 * for the writes; `at` is when it had the row (the commit's turn starts there).
 */
const NEXT_CHANGE = `WITH head AS (UPDATE shipmock_head SET change = change + 1 RETURNING change) SELECT set_config('shipmock.change', change::text, true) AS change, ${CLOCK_MS} AS at FROM head`;

/**
 * A read batch's commit begins its transaction here and takes the locks an account batch holds
 * from its open: the wide lock shared, then each account's (in one order everywhere).
 */
function commitLocks(lock: CommitLock, literal: (value: string) => string): string[] {
  return ['BEGIN', `SELECT pg_advisory_xact_lock_shared(${WIDE_LOCK})`, ...lock.accounts.map((account) => `SELECT pg_advisory_xact_lock(${ACCOUNT_LOCKS}, hashtext(${literal(account)}))`)];
}
const CHANGE = "current_setting('shipmock.change')::bigint";

/**
 * Fails the commit (division by zero, reported as OUTSIDE_LOCK_CONFLICT) when a row an account
 * batch wrote outside its account was changed by a commit after the batch's pull. Runs after
 * NEXT_CHANGE, so no commit can come in between.
 */
function verifyStatement(verify: VerifySet, literal: (value: string) => string): string {
  const after = String(verify.after);
  const tests: string[] = [];
  const tuples = (keys: (string | number)[][]) => keys.map((key) => `(${key.map((part) => (typeof part === 'number' ? String(part) : literal(part))).join(', ')})`).join(', ');
  if (verify.items.length) tests.push(`EXISTS (SELECT 1 FROM shipmock_items WHERE change > ${after} AND (scope, collection, seq) IN (${tuples(verify.items)}))`);
  if (verify.collections.length) tests.push(`EXISTS (SELECT 1 FROM shipmock_collections WHERE change > ${after} AND (scope, collection) IN (${tuples(verify.collections)}))`);
  if (verify.values.length) tests.push(`EXISTS (SELECT 1 FROM shipmock_values WHERE change > ${after} AND (scope, key) IN (${tuples(verify.values)}))`);
  if (verify.parts.length) tests.push(`EXISTS (SELECT 1 FROM shipmock_parts WHERE change > ${after} AND name IN (${verify.parts.map(literal).join(', ')}))`);
  if (verify.scopes.length) {
    const scopes = verify.scopes.map(literal).join(', ');
    tests.push(`EXISTS (SELECT 1 FROM shipmock_scopes WHERE replaced > ${after} AND scope IN (${scopes}))`);
    for (const table of ['shipmock_items', 'shipmock_collections', 'shipmock_values']) tests.push(`EXISTS (SELECT 1 FROM ${table} WHERE change > ${after} AND scope IN (${scopes}))`);
  }
  return `SELECT 1 / (CASE WHEN ${tests.join(' OR ')} THEN 0 ELSE 1 END) FROM shipmock_head`;
}

/** A text[] literal of `values`, each quoted by `literal`. */
function textArray<V extends string | null>(values: V[], literal: (value: V) => string): string {
  return `ARRAY[${values.map(literal).join(', ')}]::text[]`;
}

/**
 * The commit of a read batch that wrote values only (a window that ended between its count and
 * its request, a value of its account) as one call of migration 5's function — the same locks, change number, check and upsert as
 * the script of commitLocks, NEXT_CHANGE and commitStatements, planned once per session —
 * or undefined when the batch wrote anything else.
 */
function valuesOnlyReadCommit(writes: WriteSet, literal: (value: string | null) => string): string | undefined {
  const { lock, verify } = writes;
  if (!lock || !verify || !writes.values.length || writes.items.length || writes.collections.length || writes.replaced.length || writes.parts.length || writes.vacuum) return undefined;
  if (verify.items.length || verify.collections.length || verify.parts.length) return undefined;
  const array = (values: (string | null)[]) => textArray(values, literal);
  const args = [
    String(verify.after),
    array(lock.accounts),
    array(verify.values.map(([scope]) => scope)),
    array(verify.values.map(([, key]) => key)),
    array(verify.scopes),
    array(writes.values.map(([scope]) => scope)),
    array(writes.values.map(([, key]) => key)),
    array(writes.values.map(([, , value]) => value)),
  ];
  return `SELECT next_change AS change, next_at AS at FROM shipmock_commit_values(${args.join(', ')})`;
}

/** A batch's writes as SQL statements (PostgreSQL; `literal` quotes a value); none when it wrote nothing. */
function commitStatements(writes: WriteSet, literal: (value: string | null) => string): string[] {
  const change = CHANGE;
  const statements: string[] = [];
  if (writes.verify) statements.push(verifyStatement(writes.verify, literal));
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

/**
 * The results of a query of several statements: pg answers one QueryResult per statement, in an
 * array, though its types promise one result (pg's typings have no overload for it).
 */
function resultsOf<Row extends object>(answer: unknown): pg.QueryResult<Row>[] {
  return answer as pg.QueryResult<Row>[];
}
