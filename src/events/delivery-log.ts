import type { EventEnvelope } from './event-bus.js';

/**
 * PENDING: queued behind earlier deliveries of its channel · IN_FLIGHT: an attempt is running ·
 * RETRYING: waiting out a backoff · DELIVERED: a 2xx answer · FAILED: every attempt of the
 * round failed (dead letter; redeliverable) · CANCELLED: its channel (or account) was deleted
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
  /** Finished deliveries dropped so far to respect the caps (across the whole log). */
  evicted: number;
}

/**
 * The in-memory delivery log, bounded: at most `capPerChannel` deliveries per channel and
 * `capTotal` in all. Past a cap the oldest FINISHED delivery is evicted (counted in `evicted`);
 * unfinished ones are never evicted, so nothing still owed to a receiver disappears.
 *
 * @example
 * const log = createDeliveryLog({ capPerChannel: 1000, capTotal: 10_000 });
 * log.add(delivery); log.query({ channelId, limit: 50 });
 */
export function createDeliveryLog(caps: { capPerChannel: number; capTotal: number }) {
  const all: Delivery[] = [];
  const byId = new Map<string, Delivery>();
  const byChannel = new Map<string, Delivery[]>();
  let evicted = 0;

  function remove(delivery: Delivery): void {
    byId.delete(delivery.id);
    removeFrom(all, delivery);
    const list = byChannel.get(delivery.channelId);
    if (list) {
      removeFrom(list, delivery);
      if (list.length === 0) byChannel.delete(delivery.channelId);
    }
  }

  function evictOldestFinished(list: Delivery[]): boolean {
    const oldest = list.find((d) => isFinished(d.status));
    if (!oldest) return false;
    remove(oldest);
    evicted++;
    return true;
  }

  return {
    add(delivery: Delivery): void {
      all.push(delivery);
      byId.set(delivery.id, delivery);
      let list = byChannel.get(delivery.channelId);
      if (!list) byChannel.set(delivery.channelId, (list = []));
      list.push(delivery);
      this.enforceCaps(delivery.channelId);
    },
    get: (id: string) => byId.get(id),
    /** Evicts oldest finished deliveries while a cap is exceeded; call after a delivery finishes. */
    enforceCaps(channelId: string): void {
      const list = byChannel.get(channelId);
      while (list && list.length > caps.capPerChannel && evictOldestFinished(list));
      while (all.length > caps.capTotal && evictOldestFinished(all));
    },
    /** Drops deliveries (not counted as evicted): an account's on reset, or all. */
    drop(predicate: (delivery: Delivery) => boolean): void {
      for (const delivery of all.filter(predicate)) remove(delivery);
    },
    size: () => all.length,
    /** Newest first. */
    query(query: DeliveryQuery): DeliveryPage {
      const source = query.channelId ? byChannel.get(query.channelId) ?? [] : all;
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
      return { items, nextCursor: more && last ? encodeCursor(last.seq) : undefined, counts, evicted };
    },
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
