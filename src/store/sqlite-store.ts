import { readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Entity, OffloadedItems } from './collection.js';
import { ClaimContendedError, claimDataFile, DataFileError, type ClaimedDataFile } from './data-file.js';
import { createDirtyWrites, dirtyRows, type DirtyWrites } from './dirty-writes.js';
import { createGroupCommit } from './group-commit.js';
import { createScopeCache, DEFAULT_CACHE_SIZE, type ScopeCache, type ScopeSource } from './scope-cache.js';
import { createStore, ISSUED_NUMBERS_COLLECTION, PLAIN_UNIT, processCounters, Scope, SOLE_PROCESS, soleFeed, StoreUnavailableError, workingSetOf, type MemoryStore, type WorkingSet, type ScopeSnapshot, type Store, type UnitHandle, type UnitKind } from './store.js';
import { changedParts, savedAsValue, type SavedPart, type StatePart } from './state-registry.js';
import { openSqliteScopesView } from './sqlite-scopes-view.js';

/**
 * The durable store: the memory store is the working set (reads cost what they cost in memory),
 * and every write it sees is recorded as dirty; `commit()` writes the dirty items, values and
 * changed state parts to SQLite in ONE transaction. The working set is bounded (issue 27): it
 * holds at most `cacheSize` account scopes (scope-cache.ts), least recently used out once
 * committed, and reads an account that is not in memory from the file when it is asked for
 * (its rows are one range of each table's primary key, which starts with the scope). Companies,
 * the global and the system scope stay in memory. The HTTP layer commits before it
 * writes a response, so an acknowledged write is on disk; background work (timers, deliveries)
 * asks for a commit with `touch()` or by writing through the store.
 *
 * Layout (docs/storage.md): one key/value table of JSON bodies per kind of thing — `items`
 * (scope, collection, seq, id, body), `collections` (next sequence), `scope_values`,
 * `state_parts`, `meta` — versioned by PRAGMA user_version with migrations from version 1.
 *
 * WAL with synchronous=NORMAL: a commit survives the process being killed (kill -9) at any
 * moment; a power cut may lose the last few commits (never corrupt the file).
 *
 * No better-sqlite3 type leaves this file: the rest of the mock sees a `Store`.
 */
export interface SqliteStoreOptions {
  /** Reports a failed background commit (request commits throw to the HTTP layer instead). */
  onError?: (error: Error) => void;
  /** The file, claimed by the caller (data-file.ts); kept by the caller when the file is in the shared layout. */
  claim?: ClaimedDataFile;
  /** Account scopes kept in memory (`--cache-size`); the others are read from the file on use. Default DEFAULT_CACHE_SIZE. */
  cacheSize?: number;
}

/** The schema versions this build reads, newest last; each entry migrates from the one before. */
const MIGRATIONS: ((db: Database.Database) => void)[] = [
  // 1: the first layout.
  (db) => {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE items (
        scope TEXT NOT NULL,
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (scope, collection, id)
      ) WITHOUT ROWID;
      CREATE TABLE collections (scope TEXT NOT NULL, collection TEXT NOT NULL, next_seq INTEGER NOT NULL, PRIMARY KEY (scope, collection)) WITHOUT ROWID;
      CREATE TABLE scope_values (scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;
      CREATE TABLE state_parts (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO meta (key, value) VALUES ('format', 'shipmock-data');
    `);
  },
  // 2: items keyed by insertion sequence instead of id. Ids are random UUIDs, so a commit of n
  // new items touched n B-tree pages; by sequence they append to the last page (measured: a
  // commit of ~45 new addresses ~3x cheaper). Updates and deletes know the slot's sequence.
  (db) => {
    db.exec(`
      CREATE TABLE items_by_seq (
        scope TEXT NOT NULL,
        collection TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (scope, collection, seq)
      ) WITHOUT ROWID;
      INSERT INTO items_by_seq (scope, collection, seq, id, body) SELECT scope, collection, seq, id, body FROM items;
      DROP TABLE items;
      ALTER TABLE items_by_seq RENAME TO items;
    `);
  },
];
export const SCHEMA_VERSION = MIGRATIONS.length;

const SQLITE_HEADER = 'SQLite format 3\0';

export { ClaimContendedError, DataFileError } from './data-file.js';

/** The file is in the shared layout (`--workers`): it is opened with sqlite-shared-store.ts instead. */
export class SharedLayoutError extends Error {
  constructor(path: string) {
    super(`--data ${path} is a data file of the shared layout (--workers)`);
    this.name = 'SharedLayoutError';
  }
}

/** A write that failed because the data file cannot take it now (disk full, read-only, I/O error). */
class FileUnavailableError extends StoreUnavailableError {
  constructor(reason: string) {
    super(reason);
    this.message = `the data file cannot be written: ${reason}`;
  }
}

/** How often a store whose writes fail tries again (and the Retry-After its refusals carry). */
export const RECOVERY_INTERVAL_MS = 1000;

/** What a failed write says to a user: the SQLite code in words, then its own message. */
function writeFailure(error: unknown): string {
  const code = String((error as { code?: string }).code ?? '');
  const message = (error as Error).message;
  if (code.startsWith('SQLITE_FULL')) return `the disk is full (${code}: ${message})`;
  if (code.startsWith('SQLITE_READONLY')) return `the file or its folder is read-only (${code}: ${message})`;
  if (code.startsWith('SQLITE_IOERR')) return `the disk refused the write (${code}: ${message}; a full disk, a file size limit or a failing device)`;
  return code ? `${code}: ${message}` : message;
}

/**
 * Opens (or creates, mode 0600) a SQLite data file and loads it into memory.
 * @example const store = openSqliteStore('/tmp/mock.db'); store.account(id).collection('addresses').insert(a); store.commit();
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const claim = options.claim ?? claimDataFile(path, 'one-process');
  let scheduled = false;
  /** Something was written or drawn since the last commit. */
  let wanted = false;
  let loading = true;
  const outage: Outage = { failure: undefined, recovery: undefined, commitBytes: 0, probeBytes: 0 };

  /** The units of work that ended in this turn of the event loop: ONE commit for them all. */
  const group = createGroupCommit(() => store.commit());

  const schedule = () => {
    if (loading) return;
    wanted = true;
    if (scheduled || outage.failure) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      // A unit of work's commit in this turn already took it, or is about to (its group commit
      // comes next): no second pass over every state part.
      if (!wanted || group.pending) return;
      try {
        store.commit();
      } catch (error) {
        // The outage itself was logged when it began (the request that met it was answered 503).
        if (!(error instanceof StoreUnavailableError)) options.onError?.(error as Error);
      }
    });
  };

  const dirty = createDirtyWrites(schedule);
  const cache = createAccountCache(options.cacheSize, dirty, () => store.commit());
  const memory: MemoryStore = createStore(dirty.watcher, cache);
  let db: Database.Database;
  try {
    // SQLite names its WAL after the path: a file with other names is read only by its one user.
    if (claim.links > 1) claim.upgrade();
    db = openDatabase(path, claim, (opened) => readAhead(opened, claim.target, cache, dirty, (scope) => offloadIssuedNumbers(scope, issuedNumbersIn(opened)), options.cacheSize ?? DEFAULT_CACHE_SIZE));
  } catch (error) {
    if (!(error instanceof SharedLayoutError && options.claim)) claim.abandon();
    throw error;
  }
  loading = false;

  const sql = prepareStatements(db);
  const issuedInFile = issuedNumbersIn(db);
  offloadIssuedNumbers(memory, issuedInFile);
  const file: OpenFile = { db, sql, dirty, cache, memory, parts: keepSavedParts(memory, sql), outage, onError: options.onError, commit: () => store.commit() };
  const writeRows = createRowWriter(file);

  /**
   * The unit of work (Store.transaction): the work runs at once, against the working set; the
   * units that end in one turn commit together on the next. While the file cannot take writes a
   * request is refused before its work runs, so the store stays as committed; background work
   * runs, and what it wrote is committed when a write succeeds again (recover).
   */
  function transaction<T>(work: (unit?: UnitHandle) => T | PromiseLike<T>, kind: UnitKind = 'request'): Promise<T> {
    if (outage.failure && kind === 'request') return Promise.reject(new FileUnavailableError(outage.failure));
    return runHolding(cache, work).then((value) => {
      if (outage.failure && kind === 'background') {
        schedule();
        return value;
      }
      return group.join().then(() => value);
    });
  }

  let closed = false;
  const store: Store = Object.assign(workingSetOf(memory), {
    durable: true,
    commit() {
      if (closed) return;
      if (outage.failure) {
        // Writes made since the outage began (a request admitted just before it) are not kept:
        // their answers are 503 too.
        if (!dirty.empty) {
          try {
            rollBack(file);
          } catch {
            // the file cannot be read either: the reason already says the file is failing
          }
        }
        throw new FileUnavailableError(outage.failure);
      }
      wanted = false;
      const partsToWrite = changedParts(file.parts);
      if (dirty.empty && !partsToWrite.length) return cache.committed();
      try {
        writeRows(partsToWrite);
      } catch (error) {
        throw fail(file, error);
      }
      dirty.clear();
      for (const [name, json] of partsToWrite) file.parts.get(name)!.saved = json;
      offloadIssuedNumbers(memory, issuedInFile);
      cache.committed();
    },
    touch: schedule,
    transaction,
    process: SOLE_PROCESS,
    counters: processCounters,
    feed: soleFeed,
    probe: async () => outage.failure,
    close() {
      if (closed) return;
      if (outage.recovery) clearInterval(outage.recovery);
      try {
        if (!outage.failure) store.commit();
      } finally {
        closed = true;
        db.close();
        claim.release();
      }
    },
  } satisfies Omit<Store, keyof WorkingSet>);
  return store;
}

/** The working set's account scopes: at most `cacheSize` in memory once committed (scope-cache.ts). */
function createAccountCache(cacheSize: number | undefined, dirty: DirtyWrites, commit: () => void): ScopeCache {
  return createScopeCache({
    capacity: cacheSize ?? DEFAULT_CACHE_SIZE,
    resident: (key) => !key.startsWith('account:'),
    busy: (key) => dirty.replaced.has(key) || dirty.items.has(key) || dirty.values.has(key),
    // Start-up work that wrote to many accounts (timers that fell due while the mock was stopped).
    onPressure: commit,
  });
}

/** Runs a unit's work now; what it uses stays in memory until it settles (it may hold a scope across an await). */
function runHolding<T>(cache: ScopeCache, work: (unit?: UnitHandle) => T | PromiseLike<T>): Promise<T> {
  const unit = cache.begin();
  const done = new Promise<T>((resolve) => resolve(cache.run(unit, () => work(PLAIN_UNIT))));
  const end = () => cache.end(unit);
  done.then(end, end);
  return done;
}

/** A store's state while its file cannot be written, and the sizes that decide the probe's. */
interface Outage {
  /** Set while the file cannot be written: requests are refused with it, and a timer tries again. */
  failure: string | undefined;
  recovery: NodeJS.Timeout | undefined;
  /** About how many bytes the last commit wrote (the size of the write that proves a recovery). */
  commitBytes: number;
  probeBytes: number;
}

type Statements = ReturnType<typeof prepareStatements>;

/** What the parts of an open SQLite store share. */
interface OpenFile {
  db: Database.Database;
  sql: Statements;
  dirty: DirtyWrites;
  cache: ScopeCache;
  memory: MemoryStore;
  parts: Map<string, SavedPart>;
  outage: Outage;
  onError: SqliteStoreOptions['onError'];
  /** The store's commit (recover commits what background work wrote meanwhile). */
  commit: () => void;
}

function prepareStatements(db: Database.Database) {
  return {
    upsertItem: db.prepare('INSERT INTO items (scope, collection, seq, id, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, collection, seq) DO UPDATE SET id = excluded.id, body = excluded.body'),
    deleteItem: db.prepare('DELETE FROM items WHERE scope = ? AND collection = ? AND seq = ?'),
    upsertCollection: db.prepare('INSERT INTO collections (scope, collection, next_seq) VALUES (?, ?, ?) ON CONFLICT (scope, collection) DO UPDATE SET next_seq = excluded.next_seq'),
    upsertValue: db.prepare('INSERT INTO scope_values (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value'),
    deleteValue: db.prepare('DELETE FROM scope_values WHERE scope = ? AND key = ?'),
    dropItems: db.prepare('DELETE FROM items WHERE scope = ?'),
    dropCollections: db.prepare('DELETE FROM collections WHERE scope = ?'),
    dropValues: db.prepare('DELETE FROM scope_values WHERE scope = ?'),
    upsertPart: db.prepare('INSERT INTO state_parts (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
    parts: db.prepare('SELECT name, value FROM state_parts'),
  };
}

/** The durable parts the store saves, each given its saved value back as it registers. */
function keepSavedParts(memory: MemoryStore, sql: Statements): Map<string, SavedPart> {
  const savedParts = new Map<string, string>();
  for (const row of sql.parts.all() as { name: string; value: string }[]) savedParts.set(row.name, row.value);
  const parts = new Map<string, SavedPart>();
  // Every durable part kept as a value (state-registry.ts): its saved value goes back to it as it
  // registers, and each commit saves it when its snapshot changed.
  memory.parts.keep((part) => {
    if (!savedAsValue(part)) return;
    const saved = savedParts.get(part.name);
    if (saved !== undefined) part.restore!(JSON.parse(saved));
    parts.set(part.name, { part, saved });
  });
  return parts;
}

/** The transaction of a commit: the dirty rows and the changed parts, written in one. */
function createRowWriter(file: OpenFile): (partsToWrite: [string, string][]) => void {
  const { db, sql, dirty, memory, outage } = file;
  return db.transaction((partsToWrite: [string, string][]) => {
    const rows = dirtyRows(dirty, memory);
    outage.commitBytes = 0;
    for (const row of rows.items) outage.commitBytes += (row[4]?.length ?? 0) + 64;
    for (const row of rows.values) outage.commitBytes += (row[2]?.length ?? 0) + 64;
    for (const [, json] of partsToWrite) outage.commitBytes += json.length + 64;
    for (const key of rows.replaced) {
      sql.dropItems.run(key);
      sql.dropCollections.run(key);
      sql.dropValues.run(key);
    }
    for (const [key, name, seq, id, body] of rows.items) {
      if (body === null) sql.deleteItem.run(key, name, seq);
      else sql.upsertItem.run(key, name, seq, id, body);
    }
    for (const [key, name, nextSeq] of rows.collections) sql.upsertCollection.run(key, name, nextSeq);
    for (const [key, name, value] of rows.values) {
      if (value === null) sql.deleteValue.run(key, name);
      else sql.upsertValue.run(key, name, value);
    }
    for (const [name, json] of partsToWrite) sql.upsertPart.run(name, json);
  });
}

/**
 * After a failed commit: the working set goes back to what the file holds (SQLite rolled the
 * transaction back), so the requests answered 503 changed nothing and nothing unacknowledged
 * is committed later. Background work (timers, deliveries) goes on from the file's state.
 */
function rollBack(file: OpenFile): void {
  const { sql, dirty, cache, parts } = file;
  dirty.clear();
  // Every scope is read from the file again as it is used.
  cache.forget();
  const saved = new Map((sql.parts.all() as { name: string; value: string }[]).map((row) => [row.name, row.value]));
  for (const [name, entry] of parts) {
    const value = saved.get(name);
    if (value === undefined) continue;
    entry.saved = value;
    entry.part.restore!(JSON.parse(value));
  }
}

/**
 * Tries a real write as large as the one that failed (a commit appends to the WAL as a
 * request's would; a tiny write could pass on a disk that still cannot take the real one),
 * then removes it.
 */
function probe(file: OpenFile): void {
  file.db.prepare("INSERT INTO meta (key, value) VALUES ('probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run('x'.repeat(file.outage.probeBytes));
  file.db.prepare("DELETE FROM meta WHERE key = 'probe'").run();
}

function fail(file: OpenFile, error: unknown): FileUnavailableError {
  const { outage } = file;
  outage.failure = writeFailure(error);
  outage.probeBytes = Math.min(outage.commitBytes, 16 * 1024 * 1024);
  try {
    rollBack(file);
  } catch (reloadError) {
    outage.failure = `${outage.failure}; the file could not be read back either (${(reloadError as Error).message})`;
  }
  outage.recovery ??= setInterval(() => recover(file), RECOVERY_INTERVAL_MS);
  outage.recovery.unref();
  const unavailable = new FileUnavailableError(outage.failure);
  // Logged once when the outage begins, whoever met it (a request or background work).
  file.onError?.(new Error(`${unavailable.message}; requests are answered 503 store-unavailable until a write succeeds again (tried every ${RECOVERY_INTERVAL_MS / 1000} s)`));
  return unavailable;
}

function recover(file: OpenFile): void {
  const { outage } = file;
  try {
    probe(file);
    // What background work wrote meanwhile is committed now.
    outage.failure = undefined;
    clearInterval(outage.recovery);
    outage.recovery = undefined;
    file.commit();
  } catch (error) {
    // A failed commit has called fail() itself.
    if (error instanceof StoreUnavailableError) return;
    outage.failure = writeFailure(error);
  }
}

/**
 * Opens the file and loads it, refusing what is not a shipmock data file this build can read,
 * and a file that cannot take a write (a read-only file or folder, a full disk): better refused
 * at start than failing every request. Nothing is written before the file has been read whole:
 * a damaged file is left as it was.
 */
function openDatabase(path: string, claim: ClaimedDataFile, read: (db: Database.Database) => void): Database.Database {
  const isNew = claim.size === 0;
  if (!isNew) checkHeader(path, claim);
  let db: Database.Database;
  try {
    db = new Database(claim.target, { fileMustExist: true, timeout: 0 });
  } catch (error) {
    throw new DataFileError(path, `cannot be opened (${(error as Error).message})`, 'Check the path and its permissions.');
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new DataFileError(path, `was written by a newer shipmock (data schema ${version}; this one reads up to ${SCHEMA_VERSION})`, 'Run the newer shipmock, or start this one with a new --data file.');
    }
    if (version === 0) {
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
      if (tables.includes('shipmock_counters')) throw new SharedLayoutError(path);
      if (tables.length > 0) throw new DataFileError(path, 'is a SQLite database, but not a shipmock data file', 'Pass a new file name to --data.');
    } else {
      const format = db.prepare("SELECT value FROM meta WHERE key = 'format'").get() as { value: string } | undefined;
      if (format?.value !== 'shipmock-data') throw new DataFileError(path, 'is a SQLite database, but not a shipmock data file', 'Pass a new file name to --data.');
    }
    // A file of one process: this process's alone from here on, before anything is written.
    claim.upgrade();
    if (version === SCHEMA_VERSION) read(db);
    // WAL: readers (any SQLite tool) never block the mock's commits. NORMAL: durable against a
    // killed process, which is what a mock needs; FULL would add an fsync per request.
    let mode: unknown;
    try {
      mode = db.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      throw new DataFileError(path, `cannot be written (${writeFailure(error)})`, 'Make the file and its folder writable and free some disk space, or pass another --data file.');
    }
    if (mode !== 'wal') throw new DataFileError(path, `cannot switch to WAL mode (got ${String(mode)})`, 'Put the file on a local file system.');
    db.pragma('synchronous = NORMAL');
    // Checkpoint every ~40 MB of WAL instead of every 4 MB: a checkpoint inside a request's
    // commit doubled its cost (measured ~97 → ~54 µs per commit); close() checkpoints the rest.
    db.pragma('wal_autocheckpoint = 10000');
    try {
      if (version < SCHEMA_VERSION) migrate(db, version);
      // Ids of the global scope by collection (issued carrier numbers are looked up by id, not
      // kept in memory). Partial: account items, keyed by sequence, pay nothing for it. Not a
      // schema version: a build without it reads and writes the file as before (SQLite keeps the
      // index); a large file of an older build is indexed once, here.
      db.exec("CREATE INDEX IF NOT EXISTS items_global_ids ON items (collection, id) WHERE scope = 'global'");
      // A commit, as every request's: a read-only file, folder or full disk is refused now.
      db.transaction(() => db.prepare("UPDATE meta SET value = value WHERE key = 'format'").run())();
    } catch (error) {
      throw new DataFileError(path, `cannot be written (${writeFailure(error)})`, 'Make the file and its folder writable and free some disk space, or pass another --data file.');
    }
    if (version < SCHEMA_VERSION) read(db);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof DataFileError || error instanceof SharedLayoutError) throw error;
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new ClaimContendedError(path, 'is being set up by another process', 'Try again.');
    throw new DataFileError(path, `cannot be read (${(error as Error).message})`, 'The file is damaged: restore it from a backup, or start with a new --data file.');
  }
}

function migrate(db: Database.Database, from: number): void {
  for (let version = from; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      MIGRATIONS[version](db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/** Reads the header through the claim's descriptor (closing another descriptor of the file would drop SQLite's POSIX locks). */
function checkHeader(path: string, claim: ClaimedDataFile): void {
  const header = Buffer.alloc(100);
  const read = readSync(claim.fd, header, 0, 100, 0);
  if (header.toString('latin1', 0, 16) !== SQLITE_HEADER) {
    throw new DataFileError(path, 'is not a SQLite database (a JSON --state-file from an older shipmock, or another file)', 'Pass a new file name to --data; to bring a JSON state over, start with the new file and PUT the JSON to /__admin/state.');
  }
  // SQLite file format §1.3: the page count at offset 28 is valid when the change counter (24)
  // equals the version-valid-for number (92). A file shorter than that count lost its tail —
  // when it is at rest. A file other processes run on (the shared layout) may be read in the
  // middle of their checkpoint, which writes page 1 before the pages that lengthen the file:
  // that file is left to SQLite, which reads it under its own locks. So is a file whose
  // write-ahead log holds frames: a process killed in the middle of a checkpoint leaves the
  // same file (page 1 written, the rest not), and SQLite recovers it from the log.
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = header.readUInt32BE(28);
  const size = claim.size;
  const shorterThanItsHeader = header.readUInt32BE(24) === header.readUInt32BE(92) && size < pages * pageSize;
  if (read < 100 || (shorterThanItsHeader && !claim.inUseByOthers() && !writeAheadLogHoldsFrames(claim.target))) {
    throw new DataFileError(path, `is truncated (${size} bytes; its header says ${pages} pages of ${pageSize} bytes)`, 'The file is damaged: restore it from a backup, or start with a new --data file.');
  }
}

/** A WAL file starts with a 32-byte header; anything past it is frames SQLite replays on open. */
const WAL_HEADER_BYTES = 32;

function writeAheadLogHoldsFrames(target: string): boolean {
  return (statSync(`${target}-wal`, { throwIfNoEntry: false })?.size ?? 0) > WAL_HEADER_BYTES;
}

/**
 * Reads what stays in memory (companies, the global and the system scope) and the list of
 * stored scopes, and attaches the file to the cache, which reads account scopes on use. When
 * every stored account fits the cache they are all read now: a sandbox that fits is in memory
 * from the start, as it was before the cache (its first requests and exports do not read the
 * file, and its objects are not new to the garbage collector in the middle of serving). A
 * sandbox that does not fit is read as it is used: the first `capacity` accounts in key order
 * (random ids) are seldom the ones in use, and each would be evicted — left to the garbage
 * collector — as those come in (measured at 200k bookings: a list load over 70 accounts grew the
 * heap by the ~70 accounts read ahead for nothing, +23 % RSS over 10k).
 */
function readAhead(db: Database.Database, target: string, cache: ScopeCache, dirty: DirtyWrites, offload: (global: Scope) => void, capacity: number): void {
  const source = createScopeSource(db, target, dirty, offload);
  cache.attach(source);
  const keys = [...source.storedKeys()];
  const accounts = keys.filter((key) => key.startsWith('account:'));
  for (const key of keys) if (!key.startsWith('account:')) cache.get(key);
  if (accounts.length <= capacity) for (const key of accounts) cache.get(key);
}

/**
 * One scope's rows, read by the primary keys, which start with the scope: (scope, collection,
 * seq) of items, (scope, collection) of collections, (scope, key) of values. Loading an account
 * costs its own rows, whatever the size of the file (test: src/store/sqlite-store-cache.test.ts).
 */
function createScopeSource(db: Database.Database, target: string, dirty: DirtyWrites, offload: (global: Scope) => void): ScopeSource {
  const sql = {
    collections: db.prepare('SELECT collection, next_seq FROM collections WHERE scope = ?').raw(true),
    items: db.prepare('SELECT collection, seq, body FROM items WHERE scope = ? ORDER BY collection, seq').raw(true),
    // The global scope without its issued numbers (two per booking: 400k rows at 200k bookings),
    // which stay in the file: skipped by SQLite, not read as 400k rows of garbage at every start.
    globalItems: db.prepare("SELECT collection, seq, body FROM items WHERE scope = 'global' AND collection <> ? ORDER BY collection, seq").raw(true),
    values: db.prepare('SELECT key, value FROM scope_values WHERE scope = ?').raw(true),
    stored: db.prepare('SELECT EXISTS (SELECT 1 FROM collections WHERE scope = @scope) OR EXISTS (SELECT 1 FROM scope_values WHERE scope = @scope)').pluck(),
    keys: db.prepare('SELECT scope FROM collections UNION SELECT scope FROM scope_values').pluck(),
    // A pass over the values table (a few small rows per account), never over the items.
    accountValues: db.prepare("SELECT scope, value FROM scope_values WHERE key = ? AND scope LIKE 'account:%'").raw(true),
  };
  return {
    load(key) {
      // Built here, then copied by restore (a ScopeSnapshot's pairs are read-only).
      const collections: Record<string, { nextSeq: number; items: [number, Entity][] }> = {};
      const snapshot: ScopeSnapshot = { collections, values: {} };
      let found = false;
      const collectionOf = (name: string) => (collections[name] ??= { nextSeq: 1, items: [] });
      for (const [name, nextSeq] of sql.collections.all(key) as [string, number][]) {
        collectionOf(name).nextSeq = nextSeq;
        found = true;
      }
      const global = key === 'global';
      const rows = global ? sql.globalItems.all(ISSUED_NUMBERS_COLLECTION) : sql.items.all(key);
      for (const [name, seq, body] of rows as [string, number, string][]) {
        const collection = collectionOf(name);
        found = true;
        // Issued numbers stay in the file (offloadIssuedNumbers); their next sequence is in `collections`.
        if (global && name === ISSUED_NUMBERS_COLLECTION) continue;
        collection.items.push([seq, JSON.parse(body)]);
        if (seq >= collection.nextSeq) collection.nextSeq = seq + 1;
        found = true;
      }
      for (const [name, value] of sql.values.all(key) as [string, string][]) {
        snapshot.values[name] = JSON.parse(value);
        found = true;
      }
      if (!found) return undefined;
      const scope = new Scope(dirty.watcher.scope(key));
      // Loading is not a write.
      dirty.muted(() => scope.restore(snapshot));
      if (global) offload(scope);
      return scope;
    },
    isStored: (key) => sql.stored.get({ scope: key }) === 1,
    storedKeys: () => sql.keys.all() as string[],
    accountValues: (name) => (sql.accountValues.all(name) as [string, string][]).map(([key, value]) => [key, JSON.parse(value)]),
    reader: () => openStoredScopes(target),
  };
}

/** The stored scopes as the file holds them now, for an export (sqlite-scopes-view.ts). */
const openStoredScopes = (target: string) =>
  openSqliteScopesView(target, {
    collections: 'SELECT collection, next_seq, (SELECT MAX(seq) FROM items i WHERE i.scope = c.scope AND i.collection = c.collection) FROM collections c WHERE scope = ?',
    values: 'SELECT key, value FROM scope_values WHERE scope = ?',
    page: 'SELECT seq, body FROM items WHERE scope = ? AND collection = ? AND seq > ? ORDER BY seq LIMIT ?',
  });

/**
 * The global scope's issued carrier numbers as the file holds them, looked up by id through the
 * partial index `items_global_ids` (openDatabase): "was this number issued?" costs one index
 * probe, not a resident set of every number ever issued (~240 B each, two per booking).
 */
function issuedNumbersIn(db: Database.Database): OffloadedItems<Entity> {
  const sql = {
    has: db.prepare("SELECT EXISTS (SELECT 1 FROM items WHERE scope = 'global' AND collection = ? AND id = ?)").pluck(),
    all: db.prepare("SELECT seq, body FROM items WHERE scope = 'global' AND collection = ? ORDER BY seq").raw(true),
  };
  return {
    has: (id) => sql.has.get(ISSUED_NUMBERS_COLLECTION, id) === 1,
    items: () => (sql.all.all(ISSUED_NUMBERS_COLLECTION) as [number, string][]).map(([seq, body]) => [seq, JSON.parse(body) as Entity]),
  };
}

/**
 * Keeps the issued numbers in the file: the global scope's collection answers `has` from it, and
 * forgets the numbers it holds in memory once they are committed. Called when the global scope is
 * read, and after each commit (an import or a reset brings a new global scope).
 */
function offloadIssuedNumbers(where: MemoryStore | Scope, inFile: OffloadedItems<Entity>): void {
  const global = where instanceof Scope ? where : where.existingScope('global');
  const issued = global?.existing<Entity>(ISSUED_NUMBERS_COLLECTION);
  if (!issued) return;
  if (!issued.isOffloaded) issued.offload(inFile);
  if (issued.size) issued.dropResident();
}
