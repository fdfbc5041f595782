import { setTimeout as wait } from 'node:timers/promises';
import type { Entity } from './collection.js';
import { createDirtyWrites, dirtyRows, type DirtyRows, type DirtyWrites } from './dirty-writes.js';
import { hashString } from '../random/random.js';
import { batchStatsOf, emptyLockStats, type LockStats } from './lock-stats.js';
import { heartbeatKey, watchAbandonedWork } from './process-takeover.js';
import { createStore, OUTSIDE_LOCK_CONFLICT, ReadMustLockError, Scope, StoreUnavailableError, workingSetOf, type CounterMap, type CountedWindow, type MemoryStore, type ReadWindows, type SharedFeed, type Store, type StoreProcess, type UnitHandle, type UnitLock, type WorkingSet } from './store.js';
import { createScopeCache, DEFAULT_CACHE_SIZE, type CacheUnit, type ScopeCache } from './scope-cache.js';
import { offloadedIssuedNumbers, type IssuedNumberReads, type OffloadedIssuedNumbers } from './offloaded-issued-numbers.js';
import { scopeOfRows, sharedScopeSource, type LoadedScopes, type LoadStamps, type StoredScopeReads } from './shared-scopes.js';
import { changedParts, sharedValue, type SavedPart, type StatePart } from './state-registry.js';
import { valuesUnderPrefix } from './values-under-prefix.js';
import { SYSTEM_SCOPE } from './store.js';
import { createVacuum, missedVacuum, type VacuumRange } from './vacuum.js';

/**
 * The engine of a store several processes share (docs/scaling.md): each process keeps the
 * memory store as its working set, as the SQLite store does, so reads cost what they cost in
 * memory. What keeps the copies one mock is the batch: every piece of work that reads or writes
 * state (a request, a timer) runs inside a batch, and a batch is
 *
 *   take the batch's lock; pull every row committed since this process last looked;
 *   … the work of every request that joined the batch …;
 *   write what they changed under the next change number; commit (releasing the lock)
 *
 * What a batch locks is what its units said (`UnitLock`): one account (units of that account
 * only: batches of different accounts run at the same time in different processes), or
 * everything (wide: companies, the clock, scenarios, anything that may span accounts). A process
 * runs its batches one at a time, each of one lock; units of another lock wait for the next.
 *
 * A read (a GET of one account, `UnitLock.read`) joins a read batch, which takes no lock: its
 * pull is one statement, so it sees every commit up to the head it read — every write any
 * process had acknowledged before. If its units wrote nothing it ends there (one round trip). If
 * they wrote (a tracker catching up, a rate-limit window, a timer its pull fired), its commit
 * takes the locks of the accounts it wrote and checks that none of their rows (nor any other row
 * it wrote) changed since the pull — then the batch did exactly what it would have done holding
 * those locks from the start; else nothing is written, the copy reloads, and its units run
 * again under their account's lock (ReadMustLockError; their account's reads lock for a second).
 *
 * Change numbers are taken at commit, under a sequencer held only through the commit statement,
 * so they follow commit order: a pull that sees head H sees every commit numbered up to H. Rows
 * an account batch wrote outside its account (another scope, a state part) are checked at its
 * commit: if another process changed one since this batch pulled, the commit fails (503, the
 * copy reloads) rather than losing that write. The units that do write outside their account
 * are locked wide by their callers (src/app/steps/unit-lock.ts); the check is the safety net.
 *
 * The database is a `SharedBackend`: PostgreSQL (postgres-store.ts: hosts anywhere) or a SQLite
 * file (sqlite-shared-store.ts: the workers of one host; its write lock is per file, so every
 * batch there is wide). A deleted item stays as a row without a body, so other processes learn
 * of it, until every process has pulled past it (then the vacuum deletes it, vacuum.ts).
 *
 * On a backend that can read scopes by themselves (`SharedBackend.stored`: PostgreSQL) the
 * working set is bounded (`cacheSize`, scope-cache.ts; shared-scopes.ts): a batch's pull reads
 * whole the accounts its units said they use that are not in memory, at its head; a pull skips
 * the rows of accounts not in memory; a unit that uses an account nobody said is read on the
 * miss; an account with no uncommitted writes and no running unit is evicted, least recently
 * used first. SQLite's shared layout keeps every scope in every process.
 */
export interface SharedStoreOptions {
  /** Reports a failed background batch (requests get a 503 instead). */
  onError?: (error: Error) => void;
  /** A member that has not settled after this long no longer holds its batch (default 2 s). */
  memberTimeoutMs?: number;
  /** Wall time of heartbeats and of the vacuum's liveness (default Date.now; tests move it). */
  now?: () => number;
  /** Account scopes kept in memory on a backend that reads scopes by themselves (`SharedBackend.stored`); default DEFAULT_CACHE_SIZE. */
  cacheSize?: number;
}

/**
 * What a pull reads besides the rows committed since `since`: every row of the scopes in `load`
 * (at the pull's head; the scope's key is in `LoadedScopes` only when something is stored), and,
 * when `accountRows` is false, no rows of account scopes otherwise (a copy loading afresh reads
 * only the accounts it keeps).
 */
export interface PullRequest {
  load: string[];
  accountRows: boolean;
}

/**
 * What a pull from scratch (`accountRows` false) also reads, in its snapshot: the key of every
 * stored account scope and every account's values (a few small rows each). The keys are kept
 * up to date by every later pull and commit (a key per account: whether an account is stored
 * is never a synchronous read, a new account's first use reads nothing); the values answer
 * start-up work (re-arming tracker timers from their due values) until the next pull.
 */
export interface AccountListing {
  keys: Set<string>;
  /** Value name → [scope key, value] of every account scope that has it; only until the next pull. */
  values?: Map<string, [string, unknown][]>;
}

/** Adds a stored account's value to a pull's listing (and the account to its keys). */
export function listAccountValue(listing: AccountListing, scope: string, name: string, value: unknown): void {
  listing.keys.add(scope);
  const values = (listing.values ??= new Map());
  let named = values.get(name);
  if (!named) values.set(name, (named = []));
  named.push([scope, value]);
}

export type PartRow = [name: string, value: string];

/** What other processes committed since a change number. */
export interface PulledRows {
  scopes: { scope: string }[];
  items: { scope: string; collection: string; seq: string | number; id: string; body: string | null }[];
  collections: { scope: string; collection: string; next_seq: string | number }[];
  values: { scope: string; key: string; value: string | null }[];
  parts: { name: string; value: string }[];
}

/** What one batch writes: scopes replaced whole, the rows it changed and its state parts (the backend numbers it). */
export interface WriteSet extends DirtyRows {
  parts: PartRow[];
  /** Rows an account (or process) batch wrote outside its lock: the commit fails if any changed after `after`. */
  verify?: VerifySet;
  /** Body-less rows and scope markers every process has seen, to delete in the same transaction (vacuum.ts). */
  vacuum?: VacuumRange;
  /** A read batch (which holds no lock) that wrote: the transaction begins here, taking these locks before anything else. */
  lock?: CommitLock;
}

/** Keys of rows written outside a batch's lock, and the head its pull saw. */
export interface VerifySet {
  after: number;
  items: [scope: string, collection: string, seq: number][];
  collections: [scope: string, collection: string][];
  values: [scope: string, key: string][];
  parts: string[];
  /** Scopes replaced whole: any row of them changed, or the scope replaced, after `after`. */
  scopes: string[];
}

/**
 * What a batch holds: the wide lock alone (everything); or the wide lock shared with one
 * account's lock; or the wide lock shared alone, for a process's own heartbeat (a row only that
 * process writes; the claims of a stopped process's work it may make are checked at commit).
 */
export type BatchLock = { kind: 'wide' } | { kind: 'account'; account: string } | { kind: 'process'; process: number } | { kind: 'read' };

/** What a read batch's commit takes, when it wrote after all: the locks of the accounts whose rows it wrote. */
export interface CommitLock {
  accounts: string[];
}

/**
 * The requests a read batch counts ahead in its accounts' rate-limit windows, in its pull
 * (`SharedBackend.countsAhead`): `count` requests in the window (a system value) of each
 * account, at `now`, for windows of `windowMs`. Sorted by account: their locks are taken in this order.
 */
export interface CountsAhead {
  now: number;
  windowMs: number;
  windows: { account: string; key: string; count: number }[];
}

/** What a pull counted ahead: each window as it stands after it (JSON), written under `change`. */
export interface CountedAhead {
  change: number;
  windows: [key: string, value: string][];
  /** From taking the change number (the head row) to the COMMIT having finished, by the database's clock. */
  headMs?: number;
}

/** The database under a shared store. */
export interface SharedBackend {
  /**
   * Begins a transaction holding `lock` and reads, in one snapshot, the head (the number of the
   * last commit) and every row committed after `since` except by the commits numbered in `skip`
   * (this process's own, which it has). A `read` lock takes no lock and begins no transaction:
   * the pull alone, one statement (one snapshot).
   */
  open(since: number, lock: BatchLock, skip: readonly number[], pull?: PullRequest, ahead?: CountsAhead): Promise<{ head: number; rows: PulledRows; loaded?: LoadedScopes; listing?: AccountListing; counted?: CountedAhead }>;
  /**
   * Whether a read's `open` can count its requests ahead (`CountsAhead`, PostgreSQL): it then
   * takes the wide lock shared and the accounts' locks, pulls, writes the windows under a change
   * number of their own and commits, in one round trip — the read's units write nothing for
   * their windows, and a read batch that wrote nothing else needs no commit.
   */
  readonly countsAhead?: boolean;
  /**
   * Reads of stored scopes by themselves, synchronous (PostgreSQL: a connection in a worker
   * thread): with them the store keeps a bounded working set. Absent (SQLite's shared layout):
   * every process holds every scope.
   */
  readonly stored?: StoredScopeReads;
  /**
   * The global scope's issued carrier numbers read from the database (PostgreSQL): with them a
   * process keeps their fingerprints, not the numbers (offloaded-issued-numbers.ts), and a pull
   * from scratch leaves their rows out. Absent: they are in memory like every row.
   */
  readonly issuedNumbers?: IssuedNumberReads;
  /**
   * Writes the batch's rows under the next change number and commits (the lock goes with the
   * commit); resolves with that number (undefined when there was nothing to write) and, where
   * the database can tell, how long the commit held what every process takes in turn (the head
   * row: `headMs`) and how long the batch held the wide lock exclusively (`wideMs`), measured by
   * the database's clock around the exact statements.
   */
  commit(writes: WriteSet): Promise<CommitResult>;
  /** Whether batches of different accounts can hold their locks at the same time (PostgreSQL); else every batch is wide. */
  readonly accountLocks: boolean;
  /**
   * Whether a read batch may pull without any lock, taking the locks of what it wrote only at its
   * commit (with the check of commitBatch). Default: `accountLocks`. SQLite's shared layout: yes
   * (WAL readers never wait for the writer), though its locked batches are all wide.
   */
  readonly readsWithoutLock?: boolean;
  /** After a failure: gives up the transaction and the connection; the next `open` starts afresh. */
  abandon(): void;
  /**
   * Whether the connection broke between batches since last asked (the next `open` connects
   * again). The copy then loads afresh, as after `abandon`: a database that restarted may have
   * lost its last commits (`synchronous_commit = off`, a failover) and will hand out their change
   * numbers again, which a copy that had pulled them would skip.
   */
  connectionBroke?(): boolean;
  /** A read batch that wrote nothing is done (a backend whose read batch holds a read transaction ends it). */
  endRead?(): void;
  /** An append-only feed of every process (the journal). */
  /** `origin`: this process's number (a process does not hear its own clears back). */
  feed<T>(name: string, capacity: number, origin: number, onError: (error: Error) => void): SharedFeed<T> & { close(): void };
  /**
   * The processes whose database session is open now (PostgreSQL: their named connections); a
   * process that was killed is not among them, one that is only slow is. Absent: not known (the
   * heartbeat alone decides, SQLite's shared layout).
   */
  liveProcesses?(): Promise<ReadonlySet<number>>;
  /** Releases the connection. */
  close(): Promise<void>;
}

/** What a commit did: its change number, and the time it spent in sections every process takes in turn. */
export interface CommitResult {
  change: number | undefined;
  /** From taking the next change number (the head row) to the COMMIT having finished, by the database's clock. */
  headMs?: number;
  /** A wide batch: from holding the wide lock exclusively to the COMMIT having finished, by the database's clock. */
  wideMs?: number;
}

interface Batch {
  lock: BatchLock;
  /** `wide`, `read`, `process:<n>` or `account:<id>`: members of one key share a batch. */
  key: string;
  /** Members that have not settled yet. */
  pending: Set<object>;
  /** Still taking members (until it is open and one turn of the event loop has passed). */
  admitting: boolean;
  opened: Promise<void>;
  done: Promise<void>;
  finish(error?: Error): void;
  committing: boolean;
  /** The head its pull saw. */
  head: number;
  /** When it asked for its lock (performance.now()). */
  askedAt: number;
  /** When it had its lock and its pull (performance.now()). */
  openedAt: number;
  /** What its members asked to run once it commits (Store.afterCommit); dropped if it does not. */
  committed: (() => void)[];
  /** Accounts its members said they use (read ahead by its pull when not in memory). */
  accounts: Set<string>;
  /** A read batch: its members by account (each counts once in its account's rate-limit window). */
  reads: Map<string, number>;
  /** The windows its pull counted its members in ahead (value key → the window after the count). */
  counted?: Map<string, CountedWindow>;
  /** Its pull has been asked for: members joining now get no account read ahead. */
  pulled: boolean;
  /** Members that joined it so far (whether a turn of the event loop brought any: `gathered`). */
  joined: number;
  /** Holds what its pull read in memory until the batch ends (a bounded working set). */
  unit?: CacheUnit;
}

/** What a bounded working set holds and did (tests and diagnostics). */
export interface WorkingSetStats {
  /** Account scopes in memory, least recently used first. */
  accounts: string[];
  /** Accounts read on a miss (not ahead by a pull). */
  misses: number;
  evictions: number;
}

/** A shared store, with what its process alone can tell. */
export type SharedStore = Store & { load(): Promise<void>; lockStats(): LockStats; workingSet(): WorkingSetStats | undefined };

export function createSharedStore(backend: SharedBackend, processNumber: number, options: SharedStoreOptions = {}): SharedStore {
  const memberTimeoutMs = options.memberTimeoutMs ?? 2000;
  const dirty = createDirtyWrites(() => {
    // A write outside any batch (a delivery's outcome arriving from the network) is pushed by a batch soon.
    if (!batches.current && !batches.closed) scheduleBackgroundBatch();
  });
  const capacity = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const stamps: LoadStamps = new Map();
  const absent = new Set<string>();
  const cache = backend.stored && createAccountCache(backend.stored, capacity, dirty, stamps, absent, () => copy.listing);
  const memory: MemoryStore = createStore(dirty.watcher, cache);
  const issued = backend.issuedNumbers && offloadedIssuedNumbers(backend.issuedNumbers, (error) => options.onError?.(error));
  const copy: SharedCopy = { backend, dirty, memory, cache, issued, stamps, absent, readAhead: [], parts: new Map(), pulledParts: new Map(), lastSeen: 0, own: [], reloadNeeded: false, stats: emptyLockStats() };
  keepSharedParts(copy);
  const now = options.now ?? Date.now;
  const vacuum = createVacuum();
  memory.parts.register(vacuum.part);
  /** In a batch (the heartbeat's, the first load's): how far this process has pulled, and what may be vacuumed. */
  const beat = (at: number) => {
    const range = vacuum.beat(processNumber, copy.lastSeen, at);
    if (range) copy.vacuum = copy.vacuum ? { after: copy.vacuum.after, upTo: range.upTo } : range;
  };
  const batches = createBatches(copy, memberTimeoutMs);
  const { enter, settle, run } = batches;

  let backgroundScheduled = false;
  function scheduleBackgroundBatch(): void {
    if (backgroundScheduled) return;
    backgroundScheduled = true;
    setImmediate(() => {
      backgroundScheduled = false;
      run(() => {}).catch((error: Error) => options.onError?.(error));
    });
  }

  /** Accounts whose reads lately had to run again under the lock (another process writes them): their reads lock until then (wall ms). */
  const contended = new Map<string, number>();
  copy.onReadConflict = (accounts) => {
    for (const account of accounts) contended.set(account, now() + CONTENDED_MS);
  };
  const readable = (account: string) => {
    const until = contended.get(account);
    if (until === undefined) return true;
    if (until > now()) return false;
    contended.delete(account);
    return true;
  };
  const readsWithoutLock = backend.readsWithoutLock ?? backend.accountLocks;
  const lockOf = (lock: UnitLock): BatchLock => {
    if (!lock || lock.wide) return WIDE;
    if (lock.read && readsWithoutLock && readable(lock.account)) return READ;
    return backend.accountLocks ? { kind: 'account', account: lock.account } : WIDE;
  };
  const transaction = <T>(work: (unit?: UnitHandle) => T | PromiseLike<T>, _kind?: unknown, lock?: UnitLock) => unitInBatch({ enter, settle, onError: options.onError }, work, lockOf(lock), lock?.account);
  const feeds: { close(): void }[] = [];
  // The heartbeat and the claims of a stopped process's work: not wide (a wide batch every second per process would stop every account's).
  const ownLock: BatchLock = backend.accountLocks ? { kind: 'process', process: processNumber } : WIDE;
  const ownWork = (work: () => void): Promise<void> => unitInBatch({ enter, settle }, work, ownLock);
  const process = sharedProcess(processNumber, () => memory.system, ownWork, { now, onBeat: beat, live: backend.liveProcesses && (() => backend.liveProcesses!()) });

  const store: SharedStore = Object.assign(workingSetOf(memory), {
    durable: true,
    // Requests commit through their batch (settle); work outside one gets a batch of its own.
    commit() {
      if (!dirty.empty || changedParts(copy.parts).length) scheduleBackgroundBatch();
    },
    touch() {
      if (!batches.current) scheduleBackgroundBatch();
    },
    // An empty batch: the lock, a change number and the pull, as every request's.
    probe: () => run(() => {}).then(
      () => undefined,
      (error: Error) => error.message,
    ),
    close() {
      if (batches.closed) return;
      batches.close();
      for (const feed of feeds) feed.close();
      const last = batches.previousDone;
      void last.then(() => backend.close()).catch(() => {});
    },
    transaction,
    // In a batch: when it commits, never if it does not (a read run again, a refused commit).
    afterCommit(callback: () => void) {
      const batch = batches.running;
      if (batch && !batch.committing) batch.committed.push(callback);
      else callback();
    },
    // Units say what they lock wherever a read may go without a lock (an account's lock is the wide one on SQLite).
    locksAccounts: backend.accountLocks || readsWithoutLock,
    batchStats: () => batchStatsOf(copy.stats, processNumber),
    /**
     * Loads what the database holds (an empty batch); rejects with the database's own error. A
     * bounded working set reads ahead the accounts changed most recently, as many as it keeps.
     */
    load: async () => {
      if (backend.stored) [copy.readAhead] = await Promise.all([backend.stored.recentAccounts(capacity), backend.stored.ready()]);
      return run(() => beat(now()));
    },
    // Whether unit-lock.ts may look at an account without reading it (an account not in memory is not read for a guess).
    accountInMemory: cache && ((accountId: string) => cache.peek(`${ACCOUNT_SCOPE}${accountId}`)),
    process,
    // Each window is a row of the system scope: every process counts in the same windows.
    counters: <V>(name: string, isValue: (value: unknown) => value is V) => sharedCounters(copy, () => batches.running, name, isValue),
    countReadsAhead: backend.countsAhead ? (windows: ReadWindows) => void (copy.readWindows = windows) : undefined,
    feed<T>(name: string, capacity: number): SharedFeed<T> {
      const feed = backend.feed<T>(name, capacity, processNumber, (error) => options.onError?.(error));
      feeds.push(feed);
      return Object.assign(feed, { origin: processNumber, sharers: () => vacuum.live(now()) });
    },
    lockStats: () => structuredClone(copy.stats),
    workingSet: () => cache && { accounts: cache.loadedKeys(), misses: cache.stats.loads, evictions: cache.stats.evictions },
  } satisfies Omit<SharedStore, keyof WorkingSet>);
  return store;
}

/** This process's copy of the shared state: the working set, its writes, its parts, and how far it has pulled. */
interface SharedCopy {
  backend: SharedBackend;
  dirty: DirtyWrites;
  memory: MemoryStore;
  parts: Map<string, SavedPart>;
  /** Part values pulled before the part was registered. */
  pulledParts: Map<string, string>;
  /** The head this copy has applied every commit up to. */
  lastSeen: number;
  /** Numbers of this process's own commits after `lastSeen` (other processes committed in between): the next pull skips their rows. */
  own: number[];
  /** The copy may differ from the database (a commit failed half-way): the next batch loads everything again. */
  reloadNeeded: boolean;
  /** What this batch's commit vacuums. */
  vacuum?: VacuumRange;
  stats: LockStats;
  /** A read batch's commit was refused: the accounts it wrote (their reads lock for a while). */
  onReadConflict?: (accounts: string[]) => void;
  /** The bounded working set's account scopes (absent: every scope is in memory). */
  cache?: ScopeCache;
  /** The issued carrier numbers kept in the database (absent: in memory). */
  issued?: OffloadedIssuedNumbers;
  /** Heads of the scopes read on a miss (shared-scopes.ts). */
  stamps: LoadStamps;
  /** Accounts the running batch's pull asked for and found nothing stored: not asked again until the batch ends. */
  absent: Set<string>;
  /** Account scopes the next pull reads whole (at start: the most recently changed; after a reload: those that were in memory). */
  readAhead: string[];
  /** The accounts as the last pull from scratch read them, until the next pull. */
  listing?: AccountListing;
  /** Where reads count (Store.countReadsAhead): set when the backend can count them in a read's pull. */
  readWindows?: ReadWindows;
}

/**
 * The account scopes of a bounded working set (scope-cache.ts): at most `capacity` in memory
 * once committed, the others read from the database on a miss. Other scopes are always in memory.
 */
function createAccountCache(reads: StoredScopeReads, capacity: number, dirty: DirtyWrites, stamps: LoadStamps, absent: Set<string>, listing: () => AccountListing | undefined): ScopeCache {
  const cache = createScopeCache({
    capacity,
    resident: (key) => !key.startsWith(ACCOUNT_SCOPE),
    busy: (key) => dirty.replaced.has(key) || dirty.items.has(key) || dirty.values.has(key),
  });
  const source = sharedScopeSource(reads, dirty, stamps);
  cache.attach({
    ...source,
    load: (key) => (absent.has(key) || listing()?.keys.has(key) === false ? undefined : source.load(key)),
    isStored: (key) => !absent.has(key) && (listing()?.keys.has(key) ?? source.isStored(key)),
    storedKeys: () => listing()?.keys ?? source.storedKeys(),
    accountValues: (name) => {
      const known = listing()?.values;
      return known ? (known.get(name) ?? []) : source.accountValues(name);
    },
  });
  return cache;
}

const WIDE: BatchLock = { kind: 'wide' };
const READ: BatchLock = { kind: 'read' };
/** How long an account's reads take its lock after one of them had to run again (another process is writing it). */
const CONTENDED_MS = 1000;
const keyOf = (lock: BatchLock) =>
  lock.kind === 'wide' ? 'wide' : lock.kind === 'read' ? 'read' : lock.kind === 'account' ? `account:${lock.account}` : `process:${lock.process}`;

/**
 * Whether a row is inside what `lock` holds: everything for the wide lock; for an account, its
 * scope and the rate-limit window of its own credential (`rate:principal:account:<id>`, counted
 * only by requests of that account's tokens, which all lock the account).
 */
export function insideLock(lock: BatchLock, scope: string, valueKey?: string): boolean {
  if (lock.kind === 'wide') return true;
  // A read holds nothing: what it writes is locked and checked at its commit (commitBatch).
  if (lock.kind === 'read') return false;
  if (lock.kind === 'process') return scope === SYSTEM_SCOPE && valueKey === heartbeatKey(lock.process);
  if (scope === `account:${lock.account}`) return true;
  return scope === SYSTEM_SCOPE && valueKey === `rate:principal:account:${lock.account}`;
}

/**
 * Counters of a shared store under account locks: a unit of one account may sweep (delete) only
 * the windows its lock holds; another account's ended window stays until a unit holding it (or
 * a wide one) sweeps it — a limiter treats an ended window as absent, so no answer changes. A
 * count a read batch's pull made ahead (the limiter setting the window it counted, within its
 * count) is set in memory only: the database has it already.
 */
function keptToLock<V>(counters: CounterMap<V>, rules: { mayDelete(key: string): boolean; countedAhead(key: string, value: V): boolean; muted<T>(work: () => T): T }): CounterMap<V> {
  return {
    get: (key) => counters.get(key),
    set: (key, value) => (rules.countedAhead(key, value) ? rules.muted(() => counters.set(key, value)) : counters.set(key, value)),
    delete: (key) => (rules.mayDelete(key) ? counters.delete(key) : false),
    clear: () => counters.clear(),
    get size() {
      return counters.size;
    },
    entries: () => counters.entries(),
  };
}

/** Counters under `name` kept as system values (keptToLock: what the running batch may delete, what its pull counted ahead). */
function sharedCounters<V>(copy: SharedCopy, running: () => Batch | undefined, name: string, isValue: (value: unknown) => value is V): CounterMap<V> {
  return keptToLock(valuesUnderPrefix(() => copy.memory.system.values, `${name}:`, isValue), {
    mayDelete: (key) => insideLock(running()?.lock ?? WIDE, SYSTEM_SCOPE, `${name}:${key}`),
    // A count the running read batch's pull already made (and wrote) is no write of the batch.
    countedAhead: (key, value) => withinCount(running()?.counted?.get(`${name}:${key}`), value),
    muted: copy.dirty.muted,
  });
}

/** Whether `value` is the window `counted` (same start) at no more than its count. */
function withinCount(counted: CountedWindow | undefined, value: unknown): boolean {
  if (!counted || typeof value !== 'object' || value === null) return false;
  const window = value as Partial<CountedWindow>;
  return window.startedAt === counted.startedAt && typeof window.count === 'number' && window.count <= counted.count;
}

function keepSharedParts(copy: SharedCopy): void {
  const { memory, parts, pulledParts } = copy;
  // The durable parts every process shares (state-registry.ts: `sharing: 'shared'`); a part of
  // each process (its random stream, so ids never collide across processes) is neither saved nor pulled.
  memory.parts.keep((part) => {
    if (!sharedValue(part)) return;
    const pulled = pulledParts.get(part.name);
    pulledParts.delete(part.name);
    if (pulled !== undefined) part.restore!(JSON.parse(pulled));
    parts.set(part.name, { part, saved: pulled });
  });
}

function dropConnection(copy: SharedCopy): void {
  copy.backend.abandon();
  // Another process may have committed anything meanwhile, and our last commit may or may not have landed.
  copy.reloadNeeded = true;
}

/** Keeps the keys of the stored accounts up to date with rows committed (pulled, or this process's own). */
function storedAccounts(keys: Set<string>, rows: { scopes: { scope: string }[]; collections: { scope: string }[]; values: { scope: string; value: string | null }[] }): void {
  for (const { scope } of rows.scopes) if (scope.startsWith(ACCOUNT_SCOPE)) keys.delete(scope);
  for (const { scope } of rows.collections) if (scope.startsWith(ACCOUNT_SCOPE)) keys.add(scope);
  for (const { scope, value } of rows.values) if (value !== null && scope.startsWith(ACCOUNT_SCOPE)) keys.add(scope);
}

/**
 * Opens the batch (its lock) and pulls what other processes committed. A read batch's pull counts
 * its members ahead in their accounts' windows where the backend can (`ahead`); a pull run again
 * from scratch (missed vacuum) keeps the count the first one made (`alreadyCounted`), counting nothing twice.
 */
async function openBatch(copy: SharedCopy, batch: Batch, alreadyCounted?: { ahead: CountsAhead; counted: CountedAhead }): Promise<void> {
  const { dirty, memory, cache } = copy;
  if (copy.backend.connectionBroke?.()) copy.reloadNeeded = true;
  if (copy.reloadNeeded) {
    copy.lastSeen = 0;
    copy.own = [];
    dirty.clear();
    if (cache) {
      // The accounts in memory are read again by this pull; the others when they are next used.
      copy.readAhead = [...new Set([...copy.readAhead, ...cache.loadedKeys()])];
      cache.forget();
      copy.stamps.clear();
    } else {
      dirty.muted(() => {
        for (const [key] of [...memory.scopeEntries()]) memory.dropScope(key);
      });
    }
    for (const entry of copy.parts.values()) entry.saved = undefined;
  }
  batch.askedAt = performance.now();
  batch.pulled = true;
  // The values listed are as of the last pull: this one may change them.
  if (copy.listing) copy.listing = { keys: copy.listing.keys };
  const load = cache ? [...new Set([...copy.readAhead, ...[...batch.accounts].map((account) => `${ACCOUNT_SCOPE}${account}`)])].filter((key) => !cache.peek(key)) : [];
  copy.readAhead = [];
  const fresh = copy.lastSeen === 0;
  const ahead = alreadyCounted ? undefined : countsAheadOf(copy, batch);
  const opened = await copy.backend.open(copy.lastSeen, batch.lock, copy.own, cache && { load, accountRows: !fresh }, ahead);
  const { head, rows, loaded, listing } = opened;
  const counting = alreadyCounted ?? (ahead && opened.counted && { ahead, counted: opened.counted });
  if (missedVacuum(rows, copy.lastSeen)) {
    // Taken for stopped, this process missed rows vacuumed meanwhile: it loads everything again.
    copy.backend.abandon();
    copy.reloadNeeded = true;
    copy.readAhead = load;
    return openBatch(copy, batch, counting);
  }
  copy.stats.batches[batch.lock.kind]++;
  batch.openedAt = performance.now();
  // A read waits for no lock: its pull is counted apart.
  if (batch.lock.kind === 'read') copy.stats.readPullMs += batch.openedAt - batch.askedAt;
  else copy.stats.openMs += batch.openedAt - batch.askedAt;
  batch.head = head;
  if (cache) {
    // The batch is the unit of the working set: what anything uses while it runs (its pull, its
    // members, through their awaits) stays in memory until it ends (releaseHeld). One batch runs
    // at a time, so whatever runs now is its work — or a member a batch before it left behind,
    // which pauses eviction until it settles (createBatches).
    batch.unit ??= cache.begin();
    cache.hold(batch.unit);
    applyPulled(copy, rows, head, load, loaded, fresh);
  } else applyPulled(copy, rows, head);
  copy.issued?.keep(memory, dirty, fresh);
  copy.reloadNeeded = false;
  if (cache && fresh) copy.listing = listing ?? { keys: new Set(), values: new Map() };
  else if (copy.listing) storedAccounts(copy.listing.keys, rows);
  // Every commit numbered up to the head is applied now (ours were skipped: we have them).
  copy.lastSeen = Math.max(copy.lastSeen, head);
  copy.own = copy.own.filter((change) => change > copy.lastSeen);
  if (counting) applyCountedAhead(copy, batch, counting.ahead, counting.counted);
}

/** What a read batch counts ahead (`CountsAhead`): each account's members, when the backend can and requests are counted. */
function countsAheadOf(copy: SharedCopy, batch: Batch): CountsAhead | undefined {
  const windows = copy.readWindows;
  if (batch.lock.kind !== 'read' || !windows || !batch.reads.size) return undefined;
  const windowMs = windows.windowMs();
  const now = windows.now();
  if (windowMs === undefined || !(windowMs > 0 && Number.isFinite(windowMs)) || !Number.isFinite(now)) return undefined;
  // One order for every process (that of the read commits' locks): no two wait for each other in a cycle.
  const accounts = [...batch.reads.keys()].sort();
  return { now, windowMs, windows: accounts.map((account) => ({ account, key: `${ACCOUNT_WINDOW}${account}`, count: batch.reads.get(account)! })) };
}

/**
 * A read batch's pull counted its members ahead: each window goes into memory as it stood before
 * their counts (the limiter then sets it, count by count, to what the database holds — writing
 * nothing, see keptToLock), and the batch remembers what was counted. The count's change number
 * is this process's own: seen, or skipped by the next pull.
 */
function applyCountedAhead(copy: SharedCopy, batch: Batch, ahead: CountsAhead, counted: CountedAhead): void {
  const requests = new Map(ahead.windows.map((window) => [window.key, window.count]));
  batch.counted = new Map();
  copy.dirty.muted(() => {
    for (const [key, json] of counted.windows) {
      const window = JSON.parse(json) as CountedWindow;
      batch.counted!.set(key, window);
      copy.memory.system.values.set(key, { startedAt: window.startedAt, count: window.count - (requests.get(key) ?? 0) });
    }
  });
  copy.stats.sequencedCommits++;
  copy.stats.countedAhead++;
  copy.stats.headMs += counted.headMs ?? 0;
  if (counted.change <= copy.lastSeen) return;
  if (counted.change === copy.lastSeen + 1) {
    // Nobody committed between the pull and the count: the batch has seen everything up to it.
    copy.lastSeen = counted.change;
    batch.head = counted.change;
  } else copy.own.push(counted.change);
}

/**
 * Puts what other processes committed into the working set; none of it is a write of ours. With
 * a bounded working set: the scopes the pull read whole (`load`, found in `loaded`) go in as
 * read; rows of other accounts apply only to those in memory, unless one was read on a miss at
 * or after this pull's head (it has them, or newer).
 */
function applyPulled(copy: SharedCopy, rows: PulledRows, head = 0, load: string[] = [], loaded?: LoadedScopes, fresh = false): void {
  const { dirty, memory, parts, pulledParts, cache, stamps, absent } = copy;
  /** Account scopes this pull applies rows to, decided when each is first met (before a replacement drops it). */
  const present = new Map<string, boolean>();
  const presentNow = (scope: string) => {
    let found = present.get(scope);
    if (found === undefined) {
      const stamp = stamps.get(scope);
      found = Boolean(cache!.peek(scope)) && !(stamp !== undefined && stamp >= head);
      if (found) stamps.delete(scope);
      present.set(scope, found);
    }
    return found;
  };
  const install = (scope: string) => {
    const created = new Scope(dirty.watcher.scope(scope));
    cache!.set(scope, created);
    return created;
  };
  const into = (scope: string): Scope | undefined => {
    if (!cache || !scope.startsWith(ACCOUNT_SCOPE)) return memory.scopeAt(scope);
    if (!presentNow(scope)) return undefined;
    return cache.peek(scope) ?? install(scope);
  };
  dirty.muted(() => {
    if (cache) {
      absent.clear();
      for (const key of load) {
        // Read on a miss meanwhile (by a unit left behind by its batch): kept as it is, the rows below decide.
        if (cache.peek(key)) continue;
        const read = loaded?.get(key);
        // Read at this pull's head: its rows below are already in it.
        present.set(key, false);
        stamps.delete(key);
        if (read) cache.set(key, scopeOfRows(key, read, dirty));
        else absent.add(key);
      }
      // A pull from scratch read no other account's rows: one read on a miss meanwhile, before its head, goes.
      if (fresh) for (const key of cache.loadedKeys()) if (!load.includes(key) && !((stamps.get(key) ?? -1) >= head)) cache.evict(key);
    }
    for (const { scope } of rows.scopes) {
      if (!cache) memory.dropScope(scope);
      // Its rows below are the whole scope (all were written after the replacement, which is after our last pull).
      else if (!scope.startsWith(ACCOUNT_SCOPE) || presentNow(scope)) cache.evict(scope);
    }
    for (const row of rows.items) {
      into(row.scope)?.collection<Entity>(row.collection).applyRemote(Number(row.seq), row.id, row.body === null ? undefined : JSON.parse(row.body));
    }
    for (const row of rows.collections) into(row.scope)?.collection<Entity>(row.collection).advanceSequence(Number(row.next_seq));
    for (const row of rows.values) {
      const values = into(row.scope)?.values;
      if (!values) continue;
      if (row.value === null) values.delete(row.key);
      else values.set(row.key, JSON.parse(row.value));
    }
  });
  // A scope read on a miss before this head is at it now (or gone from memory): its mark ends.
  for (const [key, stamp] of stamps) if (stamp < head || !cache?.peek(key)) stamps.delete(key);
  // Parts last and not muted: a clock set forward fires the timers now due, and what they
  // write (a tracker's next scan) is this batch's write.
  for (const { name, value } of rows.parts) {
    const entry = parts.get(name);
    if (!entry) {
      pulledParts.set(name, value);
      continue;
    }
    entry.saved = value;
    entry.part.restore!(JSON.parse(value));
  }
}


/** The rows an account (or process) batch writes outside its lock, to be checked at its commit (none for a wide batch). */
function outsideLock(batch: Batch, rows: DirtyRows, parts: PartRow[]): VerifySet | undefined {
  const { lock } = batch;
  if (lock.kind === 'wide') return undefined;
  const verify: VerifySet = {
    after: batch.head,
    items: rows.items.filter(([scope]) => !insideLock(lock, scope)).map(([scope, collection, seq]) => [scope, collection, seq]),
    collections: rows.collections.filter(([scope]) => !insideLock(lock, scope)).map(([scope, collection]) => [scope, collection]),
    values: rows.values.filter(([scope, key]) => !insideLock(lock, scope, key)).map(([scope, key]) => [scope, key]),
    parts: parts.map(([name]) => name),
    scopes: rows.replaced.filter((scope) => !insideLock(lock, scope)),
  };
  const any = verify.items.length + verify.collections.length + verify.values.length + verify.parts.length + verify.scopes.length;
  return any ? verify : undefined;
}

/**
 * A read batch that wrote (a tracker catching up, a rate-limit window, a timer its pull fired):
 * the accounts whose rows it wrote, to lock at its commit. Every other row it wrote is checked
 * one by one, as an account batch's rows outside its account are.
 */
function accountsWritten(rows: DirtyRows): string[] {
  const accounts = new Set<string>();
  const add = (scope: string, valueKey?: string) => {
    if (scope.startsWith(ACCOUNT_SCOPE)) accounts.add(scope.slice(ACCOUNT_SCOPE.length));
    else if (scope === SYSTEM_SCOPE && valueKey?.startsWith(ACCOUNT_WINDOW)) accounts.add(valueKey.slice(ACCOUNT_WINDOW.length));
  };
  for (const [scope] of rows.items) add(scope);
  for (const [scope] of rows.collections) add(scope);
  for (const [scope, key] of rows.values) add(scope, key);
  for (const scope of rows.replaced) add(scope);
  // One order for every process: two read commits never wait for each other in a cycle.
  return [...accounts].sort();
}

const ACCOUNT_SCOPE = 'account:';
const ACCOUNT_WINDOW = 'rate:principal:account:';

/**
 * What a read batch's commit checks: that nothing of the accounts it wrote changed since its pull
 * (then the batch did what it would have done holding their locks from the start), and that no
 * other row it wrote did.
 */
function readVerify(batch: Batch, rows: DirtyRows, parts: PartRow[], accounts: string[]): VerifySet {
  const held = accounts.map((account): BatchLock => ({ kind: 'account', account }));
  const inside = (scope: string, key?: string) => held.some((lock) => insideLock(lock, scope, key));
  // A window the pull counted ahead, under the account's lock, and the batch did not write is
  // no decision made on a stale row: it is not checked (its own count would fail the check).
  const written = new Set(rows.values.filter(([scope]) => scope === SYSTEM_SCOPE).map(([, key]) => key));
  const checkedWindows = accounts.map((account) => `${ACCOUNT_WINDOW}${account}`).filter((key) => !batch.counted?.has(key) || written.has(key));
  return {
    after: batch.head,
    items: rows.items.filter(([scope]) => !inside(scope)).map(([scope, collection, seq]) => [scope, collection, seq]),
    collections: rows.collections.filter(([scope]) => !inside(scope)).map(([scope, collection]) => [scope, collection]),
    values: [...rows.values.filter(([scope, key]) => !inside(scope, key)).map(([scope, key]): [string, string] => [scope, key]), ...checkedWindows.map((key): [string, string] => [SYSTEM_SCOPE, key])],
    parts: parts.map(([name]) => name),
    scopes: [...rows.replaced.filter((scope) => !inside(scope)), ...accounts.map((account) => `${ACCOUNT_SCOPE}${account}`)],
  };
}

/**
 * Writes what the batch changed (its rows and its changed parts) and commits. A read batch that
 * wrote nothing has nothing to end (it holds no lock, its pull was a statement of its own); one
 * that wrote commits in one round trip that takes the locks of the accounts it wrote and checks
 * that none of their rows changed since its pull — if one did, nothing is written, the working
 * set reloads, and its members run again under their locks (ReadMustLockError).
 */
async function commitBatch(copy: SharedCopy, batch: Batch): Promise<void> {
  const { dirty, memory, parts, stats } = copy;
  const read = batch.lock.kind === 'read';
  const touchedParts = changedParts(parts);
  if (read && dirty.empty && !touchedParts.length) return copy.backend.endRead?.();
  const rows = dirtyRows(dirty, memory);
  const startedAt = performance.now();
  const accounts = read ? accountsWritten(rows) : [];
  const verify = read ? readVerify(batch, rows, touchedParts, accounts) : outsideLock(batch, rows, touchedParts);
  // A read commit leaves a pending vacuum to a batch that holds its lock from the start.
  const vacuum = read ? undefined : copy.vacuum;
  if (!read) copy.vacuum = undefined;
  const result = await copy.backend.commit({ ...rows, parts: touchedParts, verify, vacuum, lock: read ? { accounts } : undefined }).catch((error: Error) => {
    if (error.message !== OUTSIDE_LOCK_CONFLICT) throw error;
    if (!read) {
      stats.conflicts++;
      throw error;
    }
    stats.readRetries++;
    copy.onReadConflict?.(accounts);
    throw new ReadMustLockError();
  });
  const { change } = result;
  if (change !== undefined) {
    stats.sequencedCommits++;
    stats.sequencedCommitMs += performance.now() - startedAt;
    // A wide batch's turn at the head is inside its time holding everything.
    if (batch.lock.kind !== 'wide') stats.headMs += result.headMs ?? 0;
  }
  const end = performance.now();
  if (read) stats.readCommits++;
  else stats.heldMs += end - batch.openedAt;
  if (batch.lock.kind === 'wide') {
    stats.wideMs += end - batch.askedAt;
    // By the database's clock when it can tell; else (SQLite) the whole batch held, as this process saw it.
    stats.wideHeldMs += result.wideMs ?? end - batch.openedAt;
  }
  dirty.clear();
  copy.issued?.keep(memory, dirty);
  for (const [name, json] of touchedParts) parts.get(name)!.saved = json;
  if (copy.listing) storedAccounts(copy.listing.keys, { scopes: rows.replaced.map((scope) => ({ scope })), collections: rows.collections.map(([scope]) => ({ scope })), values: rows.values.map(([scope, , value]) => ({ scope, value })) });
  if (change === undefined) return;
  // Nobody committed between our pull and our commit: we have everything up to it. Otherwise the
  // commits in between are pulled next time, and ours skipped.
  if (change === copy.lastSeen + 1) copy.lastSeen = change;
  else copy.own.push(change);
}

/** The most turns of the event loop a batch waits for requests to join it before it opens (measured: no gain past two). */
const MOST_GATHERING_TURNS = 4;

/**
 * Resolves after a turn of the event loop in which no member joined `batch` (at most `most`
 * turns): what had already arrived on other connections is read and joins it first. Opened in
 * the callback that ended the batch before it, a batch left those requests to the batch after:
 * four processes × twelve connections carried ~5 GETs a batch, now ~9, with ~40 % less database
 * CPU per GET (docs/scaling.md). Idle, that is one turn (microseconds).
 */
function gathered(batch: Batch, most = MOST_GATHERING_TURNS): Promise<void> {
  return new Promise((resolve) => {
    let turns = 0;
    let seen = batch.joined;
    const check = () => {
      turns++;
      if (batch.joined === seen || turns >= most) return resolve();
      seen = batch.joined;
      setImmediate(check);
    };
    setImmediate(check);
  });
}

/** A member joins `batch`: the account it names (read ahead; a read counts in its window), and one more joined. */
function admit(batch: Batch, member: object, lock: BatchLock, account: string | undefined): void {
  if (account !== undefined) batch.accounts.add(account);
  if (account !== undefined && lock.kind === 'read') batch.reads.set(account, (batch.reads.get(account) ?? 0) + 1);
  batch.pending.add(member);
  batch.joined++;
}

/** A batch admitting members, before it is opened. */
function unopenedBatch(lock: BatchLock): Batch {
  let finish!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  // Members wait on `done`; a batch nobody waits on must not be an unhandled rejection.
  done.catch(() => {});
  return { lock, key: keyOf(lock), pending: new Set(), admitting: true, opened: Promise.resolve(), done, finish, committing: false, head: 0, askedAt: 0, openedAt: 0, committed: [], accounts: new Set(), reads: new Map(), pulled: false, joined: 0 };
}

/** A batch committed: what its members asked to run then runs, and they are told. */
function committed(batch: Batch): void {
  runCommitted(batch.committed.splice(0));
  batch.finish();
}

/** A batch's commit failed: what its members asked to run on commit is dropped, and they are told. */
function notCommitted(copy: SharedCopy, batch: Batch, error: Error): void {
  batch.committed = [];
  // A commit the check refused wrote nothing, and the backend ended its transaction: the
  // connection stays.
  const refused = error.message === OUTSIDE_LOCK_CONFLICT || error instanceof ReadMustLockError;
  if (!refused) {
    // What this batch wrote may or may not be in the database: ask it again next time.
    dropConnection(copy);
  } else if (batch.lock.kind !== 'process') {
    // It ran on rows another process has changed since: the copy loads again.
    copy.reloadNeeded = true;
  }
  // (Refused, a process's own batch — its heartbeat, its claims — lost a race: two heartbeats
  // writing the vacuum part. Its writes stay pending for the next batch, whose pull brings the
  // winner's rows first, instead of reloading the whole copy; the takeover puts back the claims
  // it had made, process-takeover.ts.)
  batch.finish(error);
}

/** Runs what a committed batch's members asked for; one that throws does not stop the others. */
function runCommitted(callbacks: (() => void)[]): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      // what runs after a commit records in memory only (the inspector's events); nothing to undo
    }
  }
}

function stopAdmitting(admitting: Map<string, Batch>, batch: Batch): void {
  batch.admitting = false;
  if (admitting.get(batch.key) === batch) admitting.delete(batch.key);
}

/** Runs `work` (writing nothing that can fail) in a wide batch: background commits, loads, probes. */
async function runInBatch(batches: { enter(member: object): Promise<void>; settle(member: object): Promise<void> }, work: () => void): Promise<void> {
  const member = {};
  await batches.enter(member);
  try {
    work();
  } finally {
    await batches.settle(member);
  }
}

/** The batch no longer holds what its pull read; after a commit the working set trims back to its capacity. */
function releaseHeld(copy: SharedCopy, batch: Batch, committed = false): void {
  const { cache } = copy;
  if (!cache) return;
  if (batch.unit) cache.end(batch.unit);
  cache.hold(undefined);
  batch.unit = undefined;
  copy.absent.clear();
  if (committed) cache.committed();
}

/** A batch that could not open (its connection or pull failed): nothing ran, every member is told. */
function notOpened(copy: SharedCopy, batch: Batch, error: Error): void {
  batch.committed = [];
  releaseHeld(copy, batch);
  dropConnection(copy);
  batch.finish(error);
}

/**
 * Whether a unit may still join a batch that is admitting. Before its pull is asked for, always.
 * After: a read batch holds no lock, so another process may since have committed and
 * acknowledged a write its snapshot does not have — a read arriving now (perhaps of that very
 * write) waits for the next batch; a locked batch's lock keeps such writes out until it commits.
 * And a batch whose pull is under way reads no more accounts ahead: a unit of an account not in
 * memory waits for the next batch, whose pull reads it, rather than read it on a miss.
 */
function mayJoin(copy: SharedCopy, batch: Batch, lock: BatchLock, account: string | undefined): boolean {
  if (!batch.pulled) return true;
  if (lock.kind === 'read') return false;
  return account === undefined || batch.accounts.has(account) || !copy.cache || copy.cache.peek(`${ACCOUNT_SCOPE}${account}`) !== undefined;
}

/**
 * The batch machinery: members enter the batch of their lock that is admitting (or a new one,
 * opened after the one before it), and the batch commits once it stopped admitting and every
 * member settled. One batch of this process is open at a time; batches of several locks may be
 * admitting (waiting for their turn) at once.
 */
function createBatches(copy: SharedCopy, memberTimeoutMs: number) {
  const admitting = new Map<string, Batch>();
  let running: Batch | undefined;
  let previousDone: Promise<void> = Promise.resolve();
  let closed = false;
  const members = new Map<object, Batch>();
  /** Members whose batch committed without them (too slow): their writes need a batch of their own; until they settle, eviction is paused (the function resumes it). */
  const expired = new WeakMap<object, () => void>();

  function newBatch(lock: BatchLock): Batch {
    const batch = unopenedBatch(lock);
    admitting.set(batch.key, batch);
    const after = previousDone;
    previousDone = batch.done.catch(() => {}).then(() => {
      if (running === batch) running = undefined;
    });
    // Not in the callback that ended the batch before: requests already waiting join it first.
    batch.opened = after.then(() => gathered(batch)).then(() => {
      if (closed) throw new Error('the store is closed');
      running = batch;
      return openBatch(copy, batch);
    });
    batch.opened.then(
      () =>
        setImmediate(() => {
          stopAdmitting(admitting, batch);
          maybeCommit(batch);
        }),
      (error: Error) => {
        stopAdmitting(admitting, batch);
        for (const member of batch.pending) members.delete(member);
        notOpened(copy, batch, error);
      },
    );
    return batch;
  }

  function maybeCommit(batch: Batch): void {
    if (batch.admitting || batch.committing || batch.pending.size) return;
    batch.committing = true;
    commitBatch(copy, batch).then(
      () => {
        releaseHeld(copy, batch, true);
        committed(batch);
      },
      (error: Error) => {
        releaseHeld(copy, batch);
        notCommitted(copy, batch, error);
      },
    );
  }

  function enter(member: object, lock: BatchLock = WIDE, account?: string): Promise<void> {
    if (closed) return Promise.reject(new Error('the store is closed'));
    let batch = admitting.get(keyOf(lock));
    if (batch && !mayJoin(copy, batch, lock, account)) {
      stopAdmitting(admitting, batch);
      batch = undefined;
    }
    batch ??= newBatch(lock);
    admit(batch, member, lock, account);
    members.set(member, batch);
    copy.stats.members++;
    // A member that never settles (a handler waiting on a slow carrier) must not hold every process.
    // Its writes after that go with a later batch (settle finds it no longer a member).
    const timer = setTimeout(() => {
      if (!batch.pending.delete(member)) return;
      members.delete(member);
      expired.set(member, copy.cache?.pause() ?? (() => {}));
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
      const resumeEviction = expired.get(member);
      if (!resumeEviction) return Promise.resolve();
      expired.delete(member);
      return run(() => {}).finally(resumeEviction);
    }
    batch.pending.delete(member);
    maybeCommit(batch);
    return batch.done;
  }

  const run = (work: () => void) => runInBatch({ enter, settle }, work);

  return {
    enter,
    settle,
    run,
    /** A batch admitting or open: a write made now goes with it. */
    get current() {
      return running ?? admitting.values().next().value;
    },
    /** The batch open now (its work is running), if any. */
    get running() {
      return running;
    },
    get closed() {
      return closed;
    },
    /** Settled when the last batch has (the connection may close then). */
    get previousDone() {
      return previousDone;
    },
    close(): void {
      closed = true;
    },
  };
}

/**
 * The unit of work of a shared store: joins this process's next batch of its lock (the work
 * starts from what every process committed), and ends when `work` has settled; resolves once the
 * batch committed. Requests and background work alike: nobody holds a batch for long (a member
 * that does not settle within memberTimeoutMs is left behind, and its writes go with a later batch).
 * A unit that waits (`UnitHandle.waitOutside`: a scenario's latency) leaves its batch for the
 * wait — the batch commits what it wrote so far without waiting for it — and goes on in a later
 * batch of its lock: a delayed request holds no other request of the process (or, wide, of any
 * process) back.
 */
function unitInBatch<T>(
  batches: { enter(member: object, lock: BatchLock, account?: string): Promise<void>; settle(member: object): Promise<void>; onError?: (error: Error) => void },
  work: (unit?: UnitHandle) => T | PromiseLike<T>,
  lock: BatchLock,
  account?: string,
): Promise<T> {
  let member = {};
  let ended = false;
  /** The commit of what the unit wrote before a wait, when it failed: the unit fails with it. */
  let failure: Error | undefined;
  const unreachable = (error: Error) => {
    void batches.settle(member).catch(() => {});
    throw new StoreUnavailableError(`the shared database cannot be reached: ${error.message}`);
  };
  const unconfirmed = (error: Error) => {
    if (error instanceof ReadMustLockError) throw error;
    if (error.message.includes(OUTSIDE_LOCK_CONFLICT)) throw new StoreUnavailableError(OUTSIDE_LOCK_CONFLICT);
    throw new StoreUnavailableError(error instanceof StoreUnavailableError ? error.reason : error.message, 'the write was not confirmed and may not have been saved');
  };
  // What fails around a wait fails the unit (`end`): the wait rejects, and whatever the work
  // answers then is dropped with its held answer.
  const unit: UnitHandle = {
    async waitOutside(ms) {
      const leaving = member;
      member = {};
      const committed = batches.settle(leaving).catch((error: Error) => {
        failure = error;
        throw error;
      });
      await Promise.all([committed, wait(ms)]);
      await batches.enter(member, lock, account).catch((error: Error) => {
        failure = new StoreUnavailableError(`the shared database cannot be reached: ${error.message}`);
        throw failure;
      });
      // Its client left meanwhile (the unit ended, nothing will settle it): what the work does
      // right after the wait — a booking's commit once the carrier answered, synchronous — still
      // runs in a batch, which it leaves on the next turn, as it would have in a store that waits
      // in place. (A scenario's delayed request checks its socket and stops there.)
      if (ended) {
        const late = member;
        // Nobody is left to answer: a commit that fails is reported where the store's background failures go.
        setImmediate(() => void batches.settle(late).catch((error: Error) => batches.onError?.(new Error(`what a request did after its wait, once its client had left, was not committed: ${error.message}`))));
      }
    },
  };
  // The unit's last batch; a commit before a wait that failed fails the unit (a read that wrote
  // runs again under its lock; otherwise 503), whatever the work made of it.
  const end = () => {
    ended = true;
    return batches.settle(member).then(() => {
      if (failure) throw failure;
    });
  };
  return batches.enter(member, lock, account).then(
    () =>
      new Promise<T>((resolve) => resolve(work(unit))).then(
        (value) => end().then(() => value, unconfirmed),
        (error: unknown) => end().then(() => Promise.reject(error), (endError: Error) => (failure ? unconfirmed(endError) : Promise.reject(error))),
      ),
    unreachable,
  );
}

/** This process among those sharing the store: its number, its own random stream, the work it owns. */
function sharedProcess(processNumber: number, system: () => Scope, transaction: (work: () => void) => Promise<void>, heartbeat: { now: () => number; onBeat: (at: number) => void; live?: () => Promise<ReadonlySet<number>> }): StoreProcess {
  return {
    number: processNumber,
    // Far-apart points of one 2^32 cycle: two processes started with one seed never hand out the
    // same ids (sequences and tracking numbers are drawn from shared state).
    seed: (seed) => hashString(`${seed}:process:${processNumber}`),
    owns: (owner) => owner === processNumber,
    adoptAbandoned: (watch) => watchAbandonedWork({ me: processNumber, system, transaction, ...heartbeat }, watch),
  };
}
