import type { Entity } from './collection.js';
import { createDirtyWrites, dirtyRows, type DirtyRows, type DirtyWrites } from './dirty-writes.js';
import { hashString } from '../random/random.js';
import { watchAbandonedWork } from './process-takeover.js';
import { createStore, StoreUnavailableError, workingSetOf, type MemoryStore, type Scope, type SharedFeed, type Store, type StoreProcess, type WorkingSet } from './store.js';
import { sharedValue, type StatePart } from './state-registry.js';
import { valuesUnderPrefix } from './values-under-prefix.js';
import { createVacuum, missedVacuum, type VacuumRange } from './vacuum.js';

/**
 * The engine of a store several processes share (docs/scaling.md): each process keeps the
 * memory store as its working set, as the SQLite store does, so reads cost what they cost in
 * memory. What keeps the copies one mock is the batch: every piece of work that reads or writes
 * state (a request, a timer) runs inside a batch, and a batch is
 *
 *   take the database's one lock and a change number; pull every row changed since this
 *   process last looked; … the work of every request that joined the batch …;
 *   write what they changed; commit (releasing the lock)
 *
 * Batches of all processes therefore run one at a time, each starting from everything the
 * others committed: a write acknowledged anywhere is read by the next request everywhere;
 * sequences, tracking numbers, rate-limit windows and scenario counters are drawn from current
 * state; a tracker step that falls due is recorded by whichever batch sees it first and found
 * done by the others.
 *
 * The database is a `SharedBackend`: PostgreSQL (postgres-store.ts: hosts anywhere) or a SQLite
 * file (sqlite-shared-store.ts: the workers of one host). Rows carry the `change` number of the
 * batch that wrote them (taken under the lock, so numbers follow commit order); a deleted item
 * stays as a row without a body, so other processes learn of it, until every process has pulled
 * past it (then the vacuum deletes it, vacuum.ts).
 */
export interface SharedStoreOptions {
  /** Reports a failed background batch (requests get a 503 instead). */
  onError?: (error: Error) => void;
  /** A member that has not settled after this long no longer holds its batch (default 2 s). */
  memberTimeoutMs?: number;
  /** Wall time of heartbeats and of the vacuum's liveness (default Date.now; tests move it). */
  now?: () => number;
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

/** What one batch writes: its change number, scopes replaced whole, the rows it changed and its state parts. */
export interface WriteSet extends DirtyRows {
  change: number;
  parts: PartRow[];
  /** Body-less rows and scope markers every process has seen, to delete in the same transaction (vacuum.ts). */
  vacuum?: VacuumRange;
}

/** The database under a shared store. */
export interface SharedBackend {
  /** Begins a transaction holding the one lock, takes the next change number and reads every row changed after `since`. */
  open(since: number): Promise<{ change: number; rows: PulledRows }>;
  /** Writes the batch's rows and commits (the lock goes with the commit). */
  commit(writes: WriteSet): Promise<void>;
  /** After a failure: gives up the transaction and the connection; the next `open` starts afresh. */
  abandon(): void;
  /** An append-only feed of every process (the journal). */
  /** `origin`: this process's number (a process does not hear its own clears back). */
  feed<T>(name: string, capacity: number, origin: number, onError: (error: Error) => void): SharedFeed<T> & { close(): void };
  /** Releases the connection. */
  close(): Promise<void>;
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

export function createSharedStore(backend: SharedBackend, processNumber: number, options: SharedStoreOptions = {}): Store & { load(): Promise<void> } {
  const memberTimeoutMs = options.memberTimeoutMs ?? 2000;
  const dirty = createDirtyWrites(() => {
    // A write outside any batch (a delivery's outcome arriving from the network) is pushed by a batch soon.
    if (!batches.current && !batches.closed) scheduleBackgroundBatch();
  });
  const memory: MemoryStore = createStore(dirty.watcher);
  const copy: SharedCopy = { backend, dirty, memory, parts: new Map(), pulledParts: new Map(), lastSeen: 0, reloadNeeded: false };
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

  const transaction = <T>(work: () => T | PromiseLike<T>) => unitInBatch({ enter, settle }, work);
  const feeds: { close(): void }[] = [];
  const process = sharedProcess(processNumber, () => memory.system, transaction, { now, onBeat: beat });

  const store: Store & { load(): Promise<void> } = Object.assign(workingSetOf(memory), {
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
    /** Loads what the database holds (an empty batch); rejects with the database's own error. */
    load: () => run(() => beat(now())),
    process,
    // Each window is a row of the system scope: every process counts in the same windows.
    counters: <V>(name: string, isValue: (value: unknown) => value is V) => valuesUnderPrefix(() => memory.system.values, `${name}:`, isValue),
    feed<T>(name: string, capacity: number): SharedFeed<T> {
      const feed = backend.feed<T>(name, capacity, processNumber, (error) => options.onError?.(error));
      feeds.push(feed);
      return Object.assign(feed, { origin: processNumber });
    },
  } satisfies Omit<Store, keyof WorkingSet> & { load(): Promise<void> });
  return store;
}

/** A shared state part and the JSON last saved or pulled of it. */
interface SharedPart {
  part: StatePart;
  saved?: string;
}

/** This process's copy of the shared state: the working set, its writes, its parts, and how far it has pulled. */
interface SharedCopy {
  backend: SharedBackend;
  dirty: DirtyWrites;
  memory: MemoryStore;
  parts: Map<string, SharedPart>;
  /** Part values pulled before the part was registered. */
  pulledParts: Map<string, string>;
  /** The change number this copy has applied everything up to. */
  lastSeen: number;
  /** The copy may differ from the database (a commit failed half-way): the next batch loads everything again. */
  reloadNeeded: boolean;
  /** What this batch's commit vacuums. */
  vacuum?: VacuumRange;
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

/** Opens the batch (the lock and its change number) and pulls what other processes committed. */
async function openBatch(copy: SharedCopy, batch: Batch): Promise<void> {
  const { dirty, memory } = copy;
  if (copy.reloadNeeded) {
    copy.lastSeen = 0;
    dirty.clear();
    dirty.muted(() => {
      for (const [key] of [...memory.scopeEntries()]) memory.dropScope(key);
    });
    for (const entry of copy.parts.values()) entry.saved = undefined;
  }
  const { change, rows } = await copy.backend.open(copy.lastSeen);
  if (missedVacuum(rows, copy.lastSeen)) {
    // Taken for stopped, this process missed rows vacuumed meanwhile: it loads everything again.
    copy.backend.abandon();
    copy.reloadNeeded = true;
    return openBatch(copy, batch);
  }
  batch.change = change;
  applyPulled(copy, rows);
  copy.reloadNeeded = false;
  // Everything committed before this batch took its number is applied now.
  copy.lastSeen = batch.change - 1;
}

/** Puts what other processes committed into the working set; none of it is a write of ours. */
function applyPulled(copy: SharedCopy, rows: PulledRows): void {
  const { dirty, memory, parts, pulledParts } = copy;
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
    entry.part.restore!(JSON.parse(value));
  }
}

function changedParts(parts: Map<string, SharedPart>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, entry] of parts) {
    const json = JSON.stringify(entry.part.snapshot() ?? null);
    if (json !== entry.saved) out.push([name, json]);
  }
  return out;
}

/** Writes what the batch changed (its rows and its changed parts) and commits. */
async function commitBatch(copy: SharedCopy, batch: Batch): Promise<void> {
  const { dirty, memory, parts } = copy;
  const touchedParts = changedParts(parts);
  const { vacuum } = copy;
  copy.vacuum = undefined;
  await copy.backend.commit({ change: batch.change, ...dirtyRows(dirty, memory), parts: touchedParts, vacuum });
  dirty.clear();
  for (const [name, json] of touchedParts) parts.get(name)!.saved = json;
  copy.lastSeen = batch.change;
}

/** A batch admitting members, before it is opened. */
function unopenedBatch(): Batch {
  let finish!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  // Members wait on `done`; a batch nobody waits on must not be an unhandled rejection.
  done.catch(() => {});
  return { pending: new Set(), admitting: true, opened: Promise.resolve(), done, finish, committing: false, change: 0 };
}

/**
 * The batch machinery: members enter the batch that is admitting (or a new one, opened after the
 * one before it), and the batch commits once it stopped admitting and every member settled.
 */
function createBatches(copy: SharedCopy, memberTimeoutMs: number) {
  let current: Batch | undefined;
  let previousDone: Promise<void> = Promise.resolve();
  let closed = false;
  const members = new Map<object, Batch>();
  /** Members whose batch committed without them (they took too long): their writes need a batch of their own. */
  const expired = new WeakSet<object>();

  function newBatch(): Batch {
    const batch = unopenedBatch();
    const after = previousDone;
    previousDone = batch.done.catch(() => {});
    batch.opened = after.then(() => {
      if (closed) throw new Error('the store is closed');
      return openBatch(copy, batch);
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
        dropConnection(copy);
        copy.reloadNeeded = true;
        batch.finish(error);
      },
    );
    return batch;
  }

  function maybeCommit(batch: Batch): void {
    if (batch.admitting || batch.committing || batch.pending.size) return;
    batch.committing = true;
    if (current === batch) current = undefined;
    commitBatch(copy, batch).then(
      () => batch.finish(),
      (error: Error) => {
        // What this batch wrote may or may not be in the database: ask it again next time.
        dropConnection(copy);
        copy.reloadNeeded = true;
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

  return {
    enter,
    settle,
    run,
    get current() {
      return current;
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
 * The unit of work of a shared store: joins this process's next batch (the work starts from what
 * every process committed), and ends when `work` has settled; resolves once the batch committed.
 * Requests and background work alike: nobody holds a batch for long (a member that does not
 * settle within memberTimeoutMs is left behind, and its writes go with a later batch).
 */
function unitInBatch<T>(batches: { enter(member: object): Promise<void>; settle(member: object): Promise<void> }, work: () => T | PromiseLike<T>): Promise<T> {
  const member = {};
  const unreachable = (error: Error) => {
    void batches.settle(member).catch(() => {});
    throw new StoreUnavailableError(`the shared database cannot be reached: ${error.message}`);
  };
  const unconfirmed = (error: Error) => {
    throw new StoreUnavailableError(error instanceof StoreUnavailableError ? error.reason : error.message, 'the write was not confirmed and may not have been saved');
  };
  return batches.enter(member).then(
    () =>
      new Promise<T>((resolve) => resolve(work())).then(
        (value) => batches.settle(member).then(() => value, unconfirmed),
        (error: unknown) => batches.settle(member).then(() => Promise.reject(error), () => Promise.reject(error)),
      ),
    unreachable,
  );
}

/** This process among those sharing the store: its number, its own random stream, the work it owns. */
function sharedProcess(processNumber: number, system: () => Scope, transaction: (work: () => void) => Promise<void>, heartbeat: { now: () => number; onBeat: (at: number) => void }): StoreProcess {
  return {
    number: processNumber,
    // Far-apart points of one 2^32 cycle: two processes started with one seed never hand out the
    // same ids (sequences and tracking numbers are drawn from shared state).
    seed: (seed) => hashString(`${seed}:process:${processNumber}`),
    owns: (owner) => owner === processNumber,
    adoptAbandoned: (watch) => watchAbandonedWork({ me: processNumber, system, transaction, ...heartbeat }, watch),
  };
}
