import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { vacuumStatements } from './vacuum.js';
import { createSharedStore, listAccountValue, type AccountListing, type PulledRows, type PullRequest, type SharedBackend, type SharedStoreOptions, type VerifySet } from './shared-store.js';
import type { LoadedScopes } from './shared-scopes.js';
import { ACCOUNTS, issuedNumberReads, NOT_ACCOUNTS, scopeRows, scopeStatements, storedScopeReads } from './sqlite-shared-reads.js';
import { claimDataFile, DataFileError, type ClaimedDataFile } from './data-file.js';
import { ISSUED_NUMBERS_COLLECTION, OUTSIDE_LOCK_CONFLICT, type SharedFeed, type Store } from './store.js';

/**
 * The shared store on a SQLite file, for the workers of one host (`--workers N --data FILE`):
 * the batch engine of shared-store.ts over SQLite in WAL mode. The lock is SQLite's own write
 * lock (BEGIN IMMEDIATE), asked for without blocking the event loop: a busy database is tried
 * again on the next turn, for at most LOCK_WAIT_MS. A file in this layout is opened with this
 * store whether or not --workers is given (one process is a cluster of one); a file of the
 * one-process layout (sqlite-store.ts) is refused for --workers with the reason.
 *
 * Journal feed: a table read every FEED_POLL_MS (SQLite has no NOTIFY); a clear is a row in it.
 */
export interface SharedSqliteOptions extends SharedStoreOptions {
  /** The file, claimed (shared) by the caller (data-file.ts). */
  claim?: ClaimedDataFile;
}

/**
 * The layout version of shared files; the one-process layout keeps its own (sqlite-store.ts).
 * 2: the partial index shipmock_items_global_ids, by which a process asks whether a carrier
 * number was issued instead of holding every number (offloaded-issued-numbers.ts).
 */
const SHARED_LAYOUT_VERSION = 2;
/** How long a batch waits for another process's batch before the request gets a 503. */
const LOCK_WAIT_MS = 10_000;
const FEED_POLL_MS = 200;
const FEED_FLUSH_MS = 100;

/** The issued carrier numbers by id (layout 2): "was it issued?" reads the index alone. */
const GLOBAL_IDS_INDEX = "CREATE INDEX IF NOT EXISTS shipmock_items_global_ids ON shipmock_items (collection, id) WHERE scope = 'global'";

const SCHEMA = `
  CREATE TABLE shipmock_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO shipmock_counters (name, value) VALUES ('change', 0), ('process', 0);
  CREATE TABLE shipmock_items (scope TEXT NOT NULL, collection TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, body TEXT, change INTEGER NOT NULL, PRIMARY KEY (scope, collection, seq)) WITHOUT ROWID;
  CREATE INDEX shipmock_items_change ON shipmock_items (change);
  CREATE TABLE shipmock_collections (scope TEXT NOT NULL, collection TEXT NOT NULL, next_seq INTEGER NOT NULL, change INTEGER NOT NULL, PRIMARY KEY (scope, collection)) WITHOUT ROWID;
  CREATE INDEX shipmock_collections_change ON shipmock_collections (change);
  CREATE TABLE shipmock_values (scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT, change INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;
  CREATE INDEX shipmock_values_change ON shipmock_values (change);
  CREATE TABLE shipmock_parts (name TEXT PRIMARY KEY, value TEXT NOT NULL, change INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE shipmock_scopes (scope TEXT PRIMARY KEY, replaced INTEGER NOT NULL) WITHOUT ROWID;
  CREATE INDEX shipmock_scopes_replaced ON shipmock_scopes (replaced);
  CREATE TABLE shipmock_feed (id INTEGER PRIMARY KEY AUTOINCREMENT, feed TEXT NOT NULL, origin INTEGER NOT NULL, tag TEXT, body TEXT NOT NULL);
  CREATE INDEX shipmock_feed_feed_id ON shipmock_feed (feed, id);
  ${GLOBAL_IDS_INDEX};
`;

const isBusy = (error: unknown) => /^SQLITE_BUSY/.test((error as { code?: string }).code ?? '');
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/**
 * Opens a connection in WAL mode that, once open, never blocks on a busy database (the callers
 * retry on the next turn). Workers starting together race to switch a new file to WAL, and SQLite
 * answers the loser "busy" at once (no busy handler for that lock): it tries again for a while.
 */
async function connect(path: string): Promise<Database.Database> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { timeout: 1000 });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 0');
      return db;
    } catch (error) {
      db?.close();
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/** Begins a write transaction, waiting (without blocking the event loop) while another process writes. */
async function beginWrite(db: Database.Database, what: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() > deadline) throw new Error(`${what}: the data file stayed locked by another process for ${LOCK_WAIT_MS} ms`);
      await nextTurn();
    }
  }
}

/** Runs `work` in a write transaction (see beginWrite). */
async function writeTransaction<T>(db: Database.Database, work: () => T, what: string): Promise<T> {
  await beginWrite(db, what);
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Whether the file is a shared-layout data file (a process of `--workers` wrote it). */
export function isSharedDataFile(path: string): boolean {
  if (!existsSync(path) || statSync(path).size === 0) return false;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 1000 });
    return Boolean(db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'shipmock_counters'").get());
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * @example const { store } = await openSharedSqliteStore('/var/lib/shipmock/team.db');
 */
export async function openSharedSqliteStore(path: string, options: SharedSqliteOptions = {}): Promise<{ store: Store; processNumber: number }> {
  // Held shared by every process of the layout: a mock of one process is refused while they run (data-file.ts).
  const claim = options.claim ?? claimDataFile(path, 'workers');
  if (claim.links > 1) {
    claim.release();
    throw new DataFileError(path, `has ${claim.links} hard links: SQLite names its WAL after the path, so processes opening it by different names would damage it`, 'Remove the other links (or copy the file), and give every process the same path.');
  }
  let db: Database.Database;
  try {
    db = await connect(path);
  } catch (error) {
    // Another worker may be using a file this one created: only an unused new file is removed.
    claim.abandon();
    throw new DataFileError(path, `cannot be opened (${(error as Error).message})`, 'Check the path and its permissions.');
  }
  try {
    const processNumber = await writeTransaction(
      db,
      () => {
        const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
        if (!tables.includes('shipmock_counters')) {
          if (tables.length) {
            throw new DataFileError(path, 'was written by a mock of one process (or is not a shipmock file)', 'Give --workers a new --data file; the workers create it. (To move state over: GET /__admin/state from the old mock, PUT it to the new one.)');
          }
          db.exec(`CREATE TABLE shipmock_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID; ${SCHEMA}`);
          db.prepare("INSERT INTO shipmock_meta (key, value) VALUES ('layout', ?)").run(String(SHARED_LAYOUT_VERSION));
        }
        const recorded = db.prepare("SELECT value FROM shipmock_meta WHERE key = 'layout'").pluck().get() as unknown;
        const layout = Number(recorded);
        // A version that is no version (edited by hand, another tool's table): neither migrated as old nor read as current.
        if (!Number.isInteger(layout) || layout < 1) throw new DataFileError(path, `has no readable shared layout version (shipmock_meta 'layout' is ${recorded === undefined ? 'missing' : JSON.stringify(recorded)})`, 'Start with a new --data file, or restore this one from a backup.');
        if (layout > SHARED_LAYOUT_VERSION) throw new DataFileError(path, `was written by a newer shipmock (shared layout ${layout}; this one reads up to ${SHARED_LAYOUT_VERSION})`, 'Run the newer shipmock, or start this one with a new --data file.');
        if (layout < SHARED_LAYOUT_VERSION) {
          db.exec(GLOBAL_IDS_INDEX);
          db.prepare("UPDATE shipmock_meta SET value = ? WHERE key = 'layout'").run(String(SHARED_LAYOUT_VERSION));
        }
        // The token signing secret is the registered part `token-secret` (runtime.ts), pulled like
        // every shared part: a new file gets one here, in the write transaction of the start, so
        // workers starting together sign alike; a file of an earlier version moves the secret it
        // kept in shipmock_meta there (tokens issued before the upgrade stay valid).
        if (!db.prepare("SELECT 1 FROM shipmock_parts WHERE name = 'token-secret'").get()) {
          const kept = db.prepare("SELECT value FROM shipmock_meta WHERE key = 'token_secret'").pluck().get() as string | undefined;
          const change = db.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'change' RETURNING value").pluck().get() as number;
          db.prepare("INSERT INTO shipmock_parts (name, value, change) VALUES ('token-secret', ?, ?)").run(JSON.stringify(kept ?? randomBytes(32).toString('hex')), change);
        }
        return db.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'process' RETURNING value").pluck().get() as number;
      },
      'start',
    );
    const store = createSharedStore(createSqliteBackend(path, db, claim), processNumber, options);
    await store.load();
    return { store, processNumber };
  } catch (error) {
    db.close();
    claim.release();
    if (error instanceof DataFileError) throw error;
    throw new DataFileError(path, `cannot be used (${(error as Error).message})`, 'Check the file, or start with a new --data file.');
  }
}

type Row = { change: number };
type ItemRow = PulledRows['items'][number] & Row;

/**
 * What a pull reads of each table: the rows committed after a change number, through that
 * table's change index. Named (`INDEXED BY`), because SQLite keeps no statistics here: asked
 * for the items in primary-key order, it chose to walk the whole primary key rather than sort a
 * few rows — every pull read the whole table (3.6 GB at 200k bookings: 223k page reads in 2 s).
 * Exported for the plan's test.
 */
export function pullStatements(accounts: boolean): Record<'scopes' | 'items' | 'collections' | 'values', string> {
  const since = (table: string, index: string, column = 'change') => `FROM ${table} INDEXED BY ${index} WHERE ${column} > ?${accounts ? '' : ` AND ${NOT_ACCOUNTS}`}`;
  return {
    scopes: `SELECT scope, replaced AS change ${since('shipmock_scopes', 'shipmock_scopes_replaced', 'replaced')}`,
    items: `SELECT scope, collection, seq, id, body, change ${since('shipmock_items', 'shipmock_items_change')} ORDER BY scope, collection, seq`,
    collections: `SELECT scope, collection, next_seq, change ${since('shipmock_collections', 'shipmock_collections_change')}`,
    values: `SELECT scope, key, value, change ${since('shipmock_values', 'shipmock_values_change')}`,
  };
}

/**
 * A pull from scratch: every item of the scopes that are not an account's, but the issued numbers
 * (their fingerprints are read instead) — as ranges of the primary key around the accounts and
 * the numbers, so that neither is read to be skipped.
 */
export const ITEMS_FROM_SCRATCH = ["scope < 'account:'", "scope >= 'account;' AND scope < 'global'", `scope = 'global' AND collection < '${ISSUED_NUMBERS_COLLECTION}'`, `scope = 'global' AND collection > '${ISSUED_NUMBERS_COLLECTION}'`, "scope > 'global'"]
  .map((range) => `SELECT scope, collection, seq, id, body, change FROM shipmock_items WHERE ${range}`)
  .join(' UNION ALL ')
  .concat(' ORDER BY scope, collection, seq');

/** The statements of a batch on the batches' connection. */
function batchStatements(db: Database.Database) {
  const pulls = (accounts: boolean) => {
    const statements = pullStatements(accounts);
    return { scopes: db.prepare(statements.scopes), items: db.prepare(statements.items), collections: db.prepare(statements.collections), values: db.prepare(statements.values) };
  };
  return {
    change: db.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'change' RETURNING value").pluck(),
    // A write that changes nothing: it takes the write lock (upgraded).
    touch: db.prepare("UPDATE shipmock_counters SET value = value WHERE name = 'change'"),
    head: db.prepare("SELECT value FROM shipmock_counters WHERE name = 'change'").pluck(),
    every: pulls(true),
    notAccounts: pulls(false),
    itemsFromScratch: db.prepare(ITEMS_FROM_SCRATCH),
    parts: db.prepare('SELECT name, value, change FROM shipmock_parts WHERE change > ?'),
    listedAccounts: db.prepare(`SELECT DISTINCT scope FROM shipmock_collections WHERE ${ACCOUNTS}`).pluck(),
    listedValues: db.prepare(`SELECT scope, key, value FROM shipmock_values WHERE ${ACCOUNTS} AND value IS NOT NULL`),
    ...scopeStatements(db),
    dropItems: db.prepare('DELETE FROM shipmock_items WHERE scope = ?'),
    dropCollections: db.prepare('DELETE FROM shipmock_collections WHERE scope = ?'),
    dropValues: db.prepare('DELETE FROM shipmock_values WHERE scope = ?'),
    replaced: db.prepare('INSERT INTO shipmock_scopes (scope, replaced) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET replaced = excluded.replaced'),
    item: db.prepare('INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, collection, seq) DO UPDATE SET id = excluded.id, body = excluded.body, change = excluded.change'),
    collection: db.prepare('INSERT INTO shipmock_collections (scope, collection, next_seq, change) VALUES (?, ?, ?, ?) ON CONFLICT (scope, collection) DO UPDATE SET next_seq = MAX(shipmock_collections.next_seq, excluded.next_seq), change = excluded.change'),
    value: db.prepare('INSERT INTO shipmock_values (scope, key, value, change) VALUES (?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, change = excluded.change'),
    part: db.prepare('INSERT INTO shipmock_parts (name, value, change) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, change = excluded.change'),
    ...verifyStatements(db),
  };
}

/**
 * SQLite under the shared store. A batch is a transaction on the batches' connection:
 *
 *   open    BEGIN IMMEDIATE (the file's write lock: every locked batch is wide); the head and
 *           every row committed after `since`, and with a bounded working set the rows of the
 *           scopes it reads ahead and no other account rows (one transaction, one snapshot)
 *   commit  the next change number; the rows; COMMIT
 *
 * A read batch takes no lock: its open begins a read transaction (WAL: it sees the last commit
 * while another process writes, and never waits for one), kept until its commit or `endRead`.
 * If its units wrote, its commit takes the write lock in that transaction when nothing was
 * committed since (no check needed); else it waits for the lock and checks that none of the rows
 * it wrote outside a lock (every row of the accounts it wrote) changed after its pull — if one
 * did, nothing is written and its units run again under the lock, as on PostgreSQL.
 *
 * The bounded working set reads on a connection of its own (synchronous, as SQLite is): a scope
 * is a range of each table's primary key, so reading one costs its own rows.
 */
function createSqliteBackend(path: string, db: Database.Database, claim: ClaimedDataFile): SharedBackend {
  const sql = batchStatements(db);
  // The working set's reads, never inside a batch's transaction: they see the last commit.
  const reader = new Database(path, { timeout: 1000 });
  reader.pragma('busy_timeout = 1000');
  const stored = storedScopeReads(path, reader);

  return {
    // The write lock is the file's: every locked batch holds it whole (wide), so commits follow
    // one another; a read batch holds nothing until it has something to commit.
    accountLocks: false,
    readsWithoutLock: true,
    stored,
    issuedNumbers: issuedNumberReads(reader),
    async open(after, lock, skip, pull) {
      // A read: a read transaction, kept until the batch commits (or endRead), so that a commit
      // that finds nothing committed since can write in it without a check.
      if (lock.kind === 'read') db.exec('BEGIN');
      else await beginWrite(db, 'batch');
      try {
        return pulled(sql, after, skip, pull);
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    endRead() {
      if (db.inTransaction) db.exec('COMMIT');
    },
    async commit(writes) {
      // A read batch: its first write takes the write lock in its own transaction, which SQLite
      // allows only while nothing was committed since its snapshot — then no row it read can have
      // changed. Else (another process committed, or holds the lock) it ends its snapshot, waits
      // for the lock, and checks the rows it wrote outside a lock as PostgreSQL does.
      const checked = writes.lock && !(db.inTransaction && upgraded(db, sql)) ? writes.verify : undefined;
      if (writes.lock && !db.inTransaction) await beginWrite(db, 'read batch');
      try {
        if (checked && changedAfter(sql, checked)) throw new Error(OUTSIDE_LOCK_CONFLICT);
        const empty = !writes.replaced.length && !writes.items.length && !writes.collections.length && !writes.values.length && !writes.parts.length;
        const change = empty ? undefined : (sql.change.get() as number);
        if (change !== undefined) {
          for (const scope of writes.replaced) {
            sql.dropItems.run(scope);
            sql.dropCollections.run(scope);
            sql.dropValues.run(scope);
            sql.replaced.run(scope, change);
          }
          for (const [scope, collection, seq, id, body] of writes.items) sql.item.run(scope, collection, seq, id, body, change);
          for (const [scope, collection, nextSeq] of writes.collections) sql.collection.run(scope, collection, nextSeq, change);
          for (const [scope, key, value] of writes.values) sql.value.run(scope, key, value, change);
          for (const [name, value] of writes.parts) sql.part.run(name, value, change);
        }
        // Rows every process has pulled past go, whether or not this batch wrote anything (vacuum.ts).
        if (writes.vacuum) for (const statement of vacuumStatements(writes.vacuum)) db.exec(statement);
        db.exec('COMMIT');
        // Every locked batch is wide here, all of its time serial: the shared store times it (no wideMs).
        return { change };
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    abandon() {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // nothing more to give up
      }
    },
    feed(name, capacity, origin, onError) {
      return createSqliteFeed(path, name, capacity, origin, onError);
    },
    async close() {
      stored.close();
      db.close();
      claim.release();
    },
  };
}

/** The rows of one snapshot: the caller has begun its transaction. */
function pulled(sql: ReturnType<typeof batchStatements>, after: number, skip: readonly number[], pull?: PullRequest): { head: number; rows: PulledRows; loaded?: LoadedScopes; listing?: AccountListing } {
  const head = sql.head.get() as number;
  const mine = new Set(skip);
  const notMine = <T extends Row>(rows: T[]) => (mine.size ? rows.filter((row) => !mine.has(row.change)) : rows);
  const from = pull && !pull.accountRows ? sql.notAccounts : sql.every;
  const fresh = pull && !pull.accountRows && after === 0 && !skip.length;
  const rows: PulledRows = {
    scopes: notMine(from.scopes.all(after) as (PulledRows['scopes'][number] & Row)[]),
    items: notMine((fresh ? sql.itemsFromScratch.all() : from.items.all(after)) as ItemRow[]),
    collections: notMine(from.collections.all(after) as (PulledRows['collections'][number] & Row)[]),
    values: notMine(from.values.all(after) as (PulledRows['values'][number] & Row)[]),
    parts: notMine(sql.parts.all(after) as (PulledRows['parts'][number] & Row)[]),
  };
  if (!pull) return { head, rows };
  const loaded: LoadedScopes = new Map();
  for (const key of pull.load) {
    const scope = scopeRows(sql, key);
    if (scope) loaded.set(key, scope);
  }
  let listing: AccountListing | undefined;
  if (!pull.accountRows) {
    listing = { keys: new Set(sql.listedAccounts.all() as string[]), values: new Map() };
    for (const { scope, key, value } of sql.listedValues.all() as { scope: string; key: string; value: string }[]) listAccountValue(listing, scope, key, JSON.parse(value));
  }
  return { head, rows, loaded, listing };
}

/**
 * Takes the write lock inside a read batch's read transaction (its first write: a dummy update
 * of the change counter). True when it has it; false when SQLite refused — another process
 * committed since the snapshot (SQLITE_BUSY_SNAPSHOT) or holds the lock (SQLITE_BUSY) — and the
 * read transaction was ended.
 */
function upgraded(db: Database.Database, sql: { touch: Database.Statement }): boolean {
  try {
    sql.touch.run();
    return true;
  } catch (error) {
    if (!isBusy(error)) throw error;
    if (db.inTransaction) db.exec('ROLLBACK');
    return false;
  }
}

/** The statements of changedAfter: whether a row (or any row of a scope) changed after a change number. */
function verifyStatements(db: Database.Database) {
  const exists = (sql: string) => db.prepare(`SELECT EXISTS (${sql})`).pluck();
  return {
    itemChanged: exists('SELECT 1 FROM shipmock_items WHERE scope = ? AND collection = ? AND seq = ? AND change > ?'),
    collectionChanged: exists('SELECT 1 FROM shipmock_collections WHERE scope = ? AND collection = ? AND change > ?'),
    valueChanged: exists('SELECT 1 FROM shipmock_values WHERE scope = ? AND key = ? AND change > ?'),
    partChanged: exists('SELECT 1 FROM shipmock_parts WHERE name = ? AND change > ?'),
    scopeChanged: exists(
      'SELECT 1 FROM shipmock_scopes WHERE scope = @scope AND replaced > @after UNION ALL SELECT 1 FROM shipmock_items WHERE scope = @scope AND change > @after UNION ALL SELECT 1 FROM shipmock_collections WHERE scope = @scope AND change > @after UNION ALL SELECT 1 FROM shipmock_values WHERE scope = @scope AND change > @after',
    ),
  };
}

/** Whether a row a read batch wrote outside a lock was changed by a commit after its pull (PostgreSQL's verifyStatement). */
function changedAfter(sql: ReturnType<typeof verifyStatements>, verify: VerifySet): boolean {
  const after = verify.after;
  return (
    verify.items.some(([scope, collection, seq]) => sql.itemChanged.get(scope, collection, seq, after)) ||
    verify.collections.some(([scope, collection]) => sql.collectionChanged.get(scope, collection, after)) ||
    verify.values.some(([scope, key]) => sql.valueChanged.get(scope, key, after)) ||
    verify.parts.some((name) => sql.partChanged.get(name, after)) ||
    verify.scopes.some((scope) => sql.scopeChanged.get({ scope, after }))
  ) as boolean;
}

/** A feed in table shipmock_feed, read every FEED_POLL_MS on a connection of its own. */
function createSqliteFeed<T>(path: string, name: string, capacity: number, origin: number, onError: (error: Error) => void): SharedFeed<T> & { close(): void } {
  // The connection of the batches' file is open already, so this one does not race to set up the WAL.
  const db = new Database(path, { timeout: 1000 });
  db.pragma('busy_timeout = 0');
  // Not its own rows: a process has those already.
  const select = db.prepare('SELECT id, tag, body FROM shipmock_feed WHERE feed = ? AND id > ? AND origin <> ? ORDER BY id LIMIT 1000');
  const insert = db.prepare('INSERT INTO shipmock_feed (feed, origin, tag, body) VALUES (?, ?, ?, ?)');
  const dropAll = db.prepare('DELETE FROM shipmock_feed WHERE feed = ? AND id < ?');
  const dropTag = db.prepare('DELETE FROM shipmock_feed WHERE feed = ? AND tag = ? AND id < ?');
  const trim = db.prepare('DELETE FROM shipmock_feed WHERE feed = ? AND id <= (SELECT max(id) FROM shipmock_feed WHERE feed = ?) - ?');
  // Readers start from what is in the file now: the feed's newest `capacity` rows.
  let lastId = Math.max(0, ((db.prepare('SELECT coalesce(max(id), 0) FROM shipmock_feed WHERE feed = ?').pluck().get(name) as number) ?? 0) - capacity);
  let queued: { body: string; tag?: string }[] = [];
  let flushing = false;
  let closed = false;
  let reported = false;
  const itemListeners = new Set<(items: T[]) => void>();
  const clearListeners = new Set<(tag?: string) => void>();
  const report = (error: Error) => {
    if (!reported) onError(error);
    reported = true;
  };

  function read(): void {
    if (closed || !itemListeners.size) return;
    try {
      for (;;) {
        const rows = select.all(name, lastId, origin) as { id: number; tag: string | null; body: string }[];
        if (!rows.length) return;
        lastId = rows[rows.length - 1].id;
        const items: T[] = [];
        for (const row of rows) {
          const parsed = JSON.parse(row.body);
          if (parsed && typeof parsed === 'object' && '$clear' in parsed) {
            if (items.length) for (const listener of itemListeners) listener(items.splice(0));
            // A process does not hear its own clear back: it cleared already.
            if (parsed.origin !== origin) for (const listener of clearListeners) listener(parsed.$clear ?? undefined);
          } else items.push(parsed as T);
        }
        if (items.length) for (const listener of itemListeners) listener(items);
        if (rows.length < 1000) return;
      }
    } catch (error) {
      report(error as Error);
    }
  }

  async function flush(): Promise<void> {
    if (flushing || closed || !queued.length) return;
    flushing = true;
    const batch = queued;
    queued = [];
    try {
      await writeTransaction(
        db,
        () => {
          for (const item of batch) {
            const { lastInsertRowid } = insert.run(name, origin, item.tag ?? null, item.body);
            const body = JSON.parse(item.body);
            if (body && typeof body === 'object' && '$clear' in body) {
              if (body.$clear === null) dropAll.run(name, lastInsertRowid);
              else dropTag.run(name, body.$clear, lastInsertRowid);
            }
          }
          trim.run(name, name, capacity);
        },
        'journal feed',
      );
      reported = false;
      read();
    } catch (error) {
      queued = batch.concat(queued).slice(-capacity);
      report(error as Error);
    } finally {
      flushing = false;
    }
  }

  const timer = setInterval(() => {
    void flush();
    read();
  }, FEED_POLL_MS);
  timer.unref();
  let flushSoon: NodeJS.Timeout | undefined;

  return {
    publish(item, tag) {
      queued.push({ body: JSON.stringify(item), tag });
      flushSoon ??= setTimeout(() => {
        flushSoon = undefined;
        void flush();
      }, FEED_FLUSH_MS);
      flushSoon.unref();
    },
    subscribe(onItems, onClear) {
      itemListeners.add(onItems);
      clearListeners.add(onClear);
      return () => {
        itemListeners.delete(onItems);
        clearListeners.delete(onClear);
      };
    },
    clear(tag) {
      // A row of the feed, so every reader clears at the same place in the order.
      queued.push({ body: JSON.stringify({ $clear: tag ?? null, origin }) });
      void flush();
    },
    close() {
      closed = true;
      clearInterval(timer);
      if (flushSoon) clearTimeout(flushSoon);
      db.close();
    },
  };
}
