import type { EventEnvelope } from './event-bus.js';

/**
 * PENDING: queued behind earlier deliveries of its channel · IN_FLIGHT: an attempt is running ·
 * RETRYING: waiting out a backoff · DELIVERED: a 2xx answer · FAILED: every attempt of the
 * round failed (dead letter; kept until redelivered or purged) · CANCELLED: its channel (or account) was deleted
 * first, or the mock shut down.
 */
export type DeliveryStatus = 'PENDING' | 'IN_FLIGHT' | 'RETRYING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['PENDING', 'IN_FLIGHT', 'RETRYING', 'DELIVERED', 'FAILED', 'CANCELLED'];

const FINISHED: ReadonlySet<DeliveryStatus> = new Set(['DELIVERED', 'FAILED', 'CANCELLED']);

export function isFinished(status: DeliveryStatus): boolean {
  return FINISHED.has(status);
}

/** One POST to the receiver: when (mock clock), where, and what came back. */
export interface DeliveryAttempt {
  /** 1-based and counted over the delivery's whole life (redeliveries continue the count). */
  attempt: number;
  at: string;
  url: string;
  statusCode?: number;
  /** TIMEOUT, ECONNREFUSED, ECONNRESET, … when no HTTP answer came. */
  errorCode?: string;
  error?: string;
  latencyMs: number;
  /** The headers sent; values of the channel's own headers (keys, tokens) shortened to their first characters. */
  requestHeaders?: Record<string, string>;
  /** The receiver's answer headers. */
  responseHeaders?: Record<string, string>;
}

/** One event on its way to one Event Channel. */
export interface Delivery {
  id: string;
  /** Creation order, across the whole mock; cursors of the log are built from it. */
  seq: number;
  channelId: string;
  accountId: string;
  eventId: string;
  topic: string;
  type: string;
  status: DeliveryStatus;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt?: string;
  /** Why it was cancelled, when it was. */
  reason?: string;
  redeliveries: number;
  attempts: DeliveryAttempt[];
  event: EventEnvelope;
  /**
   * Bookkeeping, not shown by the control plane: index in `attempts` where the current round of
   * a redelivered delivery began (its retries count from there). Kept on the delivery so that a
   * durable store restores it with the rest.
   */
  roundStart?: number;
  /**
   * Bookkeeping of a shared store (not shown): the number of the process that sends it. Only the
   * owner works a delivery; when the owner stops, another process adopts it (StoreProcess.adoptAbandoned, src/store/process-takeover.ts).
   */
  owner?: number;
  /** Bookkeeping of a shared store (not shown): the attempt on the wire, recorded before it is sent. */
  inFlight?: { attempt: number; at: string; url: string };
}

/**
 * Where the log keeps its deliveries: a store collection (`store.system`), so that with --data
 * the queue, waiting retries and dead letters survive a restart. The log stays the working set
 * with its indexes; the records are told of every change and read back once, at start. They are
 * kept in queue order: a redelivery moves its delivery to the end, as it does in its queue.
 */
export interface DeliveryRecords {
  has(id: string): boolean;
  insert(delivery: Delivery): unknown;
  update(delivery: Delivery): unknown;
  delete(id: string): unknown;
  values(): Delivery[];
}

export interface DeliveryQuery {
  channelId?: string;
  accountId?: string;
  topic?: string;
  status?: DeliveryStatus;
  limit: number;
  /** From a previous page's nextCursor. */
  cursor?: string;
}

export interface DeliveryPage {
  items: Delivery[];
  nextCursor?: string;
  /** Matching deliveries per status (the status filter itself ignored). */
  counts: Record<DeliveryStatus, number>;
  /** Finished deliveries (not dead letters) dropped so far to respect the caps (across the whole log). */
  evicted: number;
  /** Dead letters (FAILED) dropped so far because there were more than the dead-letter cap. */
  deadLettersEvicted: number;
}

export interface DeliveryLogCaps {
  /** Deliveries other than dead letters kept per channel. */
  capPerChannel: number;
  /** Deliveries other than dead letters kept in all. */
  capTotal: number;
  /** Dead letters (FAILED) kept in all; past it the oldest is dropped. Default: capTotal. */
  deadLetterCap?: number;
  /** Told of each dead letter dropped by the dead-letter cap (the dispatcher logs a warning). */
  onDeadLetterEvicted?: (delivery: Delivery) => void;
  /**
   * The records to keep the deliveries in, asked for on every write (a store reset replaces the
   * collection). Without them the log lives in memory only.
   */
  records?: () => DeliveryRecords;
}

/** Which deliveries a purge drops; `status` must be a finished one. */
export interface DeliveryPurge {
  status: 'DELIVERED' | 'FAILED' | 'CANCELLED';
  channelId?: string;
  accountId?: string;
  topic?: string;
}

/**
 * The log's in-memory indexes: every delivery in `seq` order, by id, by channel, and the dead
 * letters (FAILED, still in the log) with their count per channel.
 */
function createDeliveryIndex() {
  const all: Delivery[] = [];
  const byId = new Map<string, Delivery>();
  const byChannel = new Map<string, Delivery[]>();
  /** Dead letters, and how many of them each channel has: they do not count against the caps. */
  const dead = new Set<Delivery>();
  const deadPerChannel = new Map<string, number>();

  function countDead(delivery: Delivery, delta: 1 | -1): void {
    const n = (deadPerChannel.get(delivery.channelId) ?? 0) + delta;
    if (n > 0) deadPerChannel.set(delivery.channelId, n);
    else deadPerChannel.delete(delivery.channelId);
  }

  function index(delivery: Delivery): void {
    all.push(delivery);
    byId.set(delivery.id, delivery);
    let list = byChannel.get(delivery.channelId);
    if (!list) byChannel.set(delivery.channelId, (list = []));
    list.push(delivery);
  }

  function unindex(delivery: Delivery): void {
    byId.delete(delivery.id);
    if (dead.delete(delivery)) countDead(delivery, -1);
    removeFrom(all, delivery);
    const list = byChannel.get(delivery.channelId);
    if (list) {
      removeFrom(list, delivery);
      if (list.length === 0) byChannel.delete(delivery.channelId);
    }
  }

  /** Keeps the dead letters right after a delivery's status changed. */
  function noteDead(delivery: Delivery): void {
    const isDead = delivery.status === 'FAILED' && byId.get(delivery.id) === delivery;
    if (isDead && !dead.has(delivery)) {
      dead.add(delivery);
      countDead(delivery, 1);
    } else if (!isDead && dead.delete(delivery)) {
      countDead(delivery, -1);
    }
  }

  return { all, byId, byChannel, dead, deadPerChannel, index, unindex, noteDead };
}

const purgeMatches = (filter: DeliveryPurge) => (d: Delivery) =>
  d.status === filter.status &&
  (!filter.channelId || d.channelId === filter.channelId) &&
  (!filter.accountId || d.accountId === filter.accountId) &&
  (!filter.topic || d.topic === filter.topic);

/** One page of `source` (the log or one channel's deliveries), newest first, with the counts per status. */
function pageOf(source: readonly Delivery[], query: DeliveryQuery, evictions: Pick<DeliveryPage, 'evicted' | 'deadLettersEvicted'>): DeliveryPage {
  const before = query.cursor === undefined ? Infinity : decodeCursor(query.cursor);
  const counts = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<DeliveryStatus, number>;
  const items: Delivery[] = [];
  let more = false;
  for (let i = source.length - 1; i >= 0; i--) {
    const d = source[i];
    if ((query.accountId && d.accountId !== query.accountId) || (query.topic && d.topic !== query.topic)) continue;
    counts[d.status]++;
    if ((query.status && d.status !== query.status) || d.seq >= before) continue;
    if (items.length < query.limit) items.push(d);
    else more = true;
  }
  const last = items[items.length - 1];
  return { items, nextCursor: more && last ? encodeCursor(last.seq) : undefined, counts, ...evictions };
}

/**
 * The in-memory delivery log, bounded. Past `capPerChannel` deliveries of a channel or
 * `capTotal` in all, the oldest DELIVERED or CANCELLED one is evicted (counted in `evicted`);
 * unfinished ones are never evicted, so nothing still owed to a receiver disappears.
 * Dead letters (FAILED) are not counted against those caps and are not evicted by them: they
 * stay until redelivered or purged (DELETE /__admin/deliveries?status=FAILED), bounded only by
 * their own `deadLetterCap` (oldest dropped first, reported through onDeadLetterEvicted).
 * Deliveries are plain data (JSON-serialisable), so the log can be persisted as it is.
 *
 * Status changes are made on the delivery objects by the dispatcher, which then calls
 * `noteStatus` so the dead-letter bookkeeping follows.
 *
 * @example
 * const log = createDeliveryLog({ capPerChannel: 1000, capTotal: 10_000, deadLetterCap: 10_000 });
 * log.add(delivery); log.query({ channelId, limit: 50 });
 */
export function createDeliveryLog(caps: DeliveryLogCaps) {
  const deadLetterCap = caps.deadLetterCap ?? caps.capTotal;
  const { all, byId, byChannel, dead, deadPerChannel, index, unindex, noteDead } = createDeliveryIndex();
  let evicted = 0;
  let deadLettersEvicted = 0;
  let detached = false;

  function record(delivery: Delivery): void {
    const records = detached ? undefined : caps.records?.();
    if (!records) return;
    // Upsert: after a store reset the records are new until the dispatcher's reset follows.
    if (records.has(delivery.id)) records.update(delivery);
    else records.insert(delivery);
  }

  function noteStatus(delivery: Delivery): void {
    noteDead(delivery);
    if (byId.get(delivery.id) === delivery) record(delivery);
  }

  function remove(delivery: Delivery): void {
    if (!detached) caps.records?.().delete(delivery.id);
    unindex(delivery);
  }

  const evictable = (d: Delivery) => d.status === 'DELIVERED' || d.status === 'CANCELLED';

  function evictOldestFinished(list: Delivery[]): boolean {
    const oldest = list.find(evictable);
    if (!oldest) return false;
    remove(oldest);
    evicted++;
    return true;
  }

  function evictOldestDeadLetter(): void {
    const oldest = all.find((d) => dead.has(d));
    if (!oldest) return;
    remove(oldest);
    deadLettersEvicted++;
    caps.onDeadLetterEvicted?.(oldest);
  }

  return {
    add(delivery: Delivery): void {
      index(delivery);
      noteStatus(delivery);
      this.enforceCaps(delivery.channelId);
    },
    get: (id: string) => byId.get(id),
    /** Puts a delivery another process worked into the log in place of the copy the log had (an adoption), and records it. */
    take(delivery: Delivery): void {
      const known = byId.get(delivery.id);
      if (known && known !== delivery) unindex(known);
      if (byId.get(delivery.id) !== delivery) index(delivery);
      noteStatus(delivery);
    },
    /** Call after changing a delivery (status, attempts): keeps the dead letters right and records it. */
    noteStatus,
    /** A redelivered delivery queues again at the end: its record moves there too (queue order). */
    requeue(delivery: Delivery): void {
      const records = detached ? undefined : caps.records?.();
      if (!records) return;
      records.delete(delivery.id);
      records.insert(delivery);
    },
    /**
     * Reads the records into the empty log (a durable mock's start) and returns them in queue
     * order; the log itself is ordered by `seq`, as it was.
     */
    load(): Delivery[] {
      const saved = caps.records?.().values() ?? [];
      for (const delivery of [...saved].sort((a, b) => a.seq - b.seq)) {
        index(delivery);
        noteDead(delivery);
      }
      return saved;
    },
    /** Stops writing to the records (shutdown: what is still owed stays owed in the store). */
    detach(): void {
      detached = true;
    },
    /** Evicts oldest finished deliveries while a cap is exceeded; call after a delivery finishes. */
    enforceCaps(channelId: string): void {
      const list = byChannel.get(channelId);
      while (list && list.length - (deadPerChannel.get(channelId) ?? 0) > caps.capPerChannel && evictOldestFinished(list));
      while (all.length - dead.size > caps.capTotal && evictOldestFinished(all));
      while (dead.size > deadLetterCap) evictOldestDeadLetter();
    },
    /** Drops deliveries (not counted as evicted): an account's on reset, or all. */
    drop(predicate: (delivery: Delivery) => boolean): void {
      for (const delivery of all.filter(predicate)) remove(delivery);
    },
    /** Drops the finished deliveries that match (not counted as evicted); returns how many. */
    purge(filter: DeliveryPurge): number {
      const matches = all.filter(purgeMatches(filter));
      for (const delivery of matches) remove(delivery);
      return matches.length;
    },
    size: () => all.length,
    deadLetters: () => dead.size,
    /** Newest first. */
    query: (query: DeliveryQuery): DeliveryPage => pageOf(query.channelId ? byChannel.get(query.channelId) ?? [] : all, query, { evicted, deadLettersEvicted }),
  };
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>;

function removeFrom(list: Delivery[], delivery: Delivery): void {
  const index = list.indexOf(delivery);
  if (index >= 0) list.splice(index, 1);
}

function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ before: seq })).toString('base64url');
}

/** Throws a RangeError on anything that is not one of our cursors. */
export function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof parsed.before === 'number' && Number.isInteger(parsed.before)) return parsed.before;
  } catch {
    // fall through to the RangeError below
  }
  throw new RangeError('not a delivery log cursor');
}
