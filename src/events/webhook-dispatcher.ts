import type { Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import type { Random } from '../random/random.js';
import { runNow, SOLE_PROCESS, type StoreProcess } from '../store/store.js';
import type { ChannelSource, DeliveryTarget } from './channel-source.js';
import { createDeliveryLog, isFinished, type Delivery, type DeliveryLog, type DeliveryPage, type DeliveryRecords, type DeliveryPurge, type DeliveryQuery } from './delivery-log.js';
import { createDeliveryQueues, type DeliveryQueues } from './delivery-queues.js';
import { createAttempts, type Transaction } from './webhook-attempt.js';
import { createHostAllowlist, type HostAllowlist } from './host-allowlist.js';
import { createMockEndpoints, type MockEndpoints } from './mock-endpoints.js';
import type { EventBus, EventEnvelope } from './event-bus.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import { createWebhookTransport, type WebhookTransport } from './webhook-post.js';

export interface WebhookDispatcher {
  /** --webhook-hosts: checked when a channel is created or replaced, and again on every attempt. */
  readonly allowlist: HostAllowlist;
  /** The ports the mock is reached on: a webhook to one of them on this machine is refused (the mock itself). */
  readonly endpoints: MockEndpoints;
  /** The delivery log, newest first (GET /__admin/deliveries). */
  list(query: DeliveryQuery): DeliveryPage;
  get(id: string): Delivery | undefined;
  /**
   * Queues a finished delivery again (a new round of attempts) at the end of its channel's
   * queue. Refused when unknown (not-found), still unfinished or its channel is gone (conflict).
   */
  redeliver(id: string): RedeliverResult;
  /** Drops finished deliveries of one status (e.g. the dead letters) from the log; returns how many. */
  purge(filter: DeliveryPurge): number;
  /** The channel was deleted: queued and waiting deliveries become CANCELLED; one in flight finishes. */
  cancelChannel(channelId: string, reason?: string): void;
  /** Forgets deliveries (and stops their queues) of one account, or of all. */
  reset(accountId?: string): void;
  /** Stops everything: timers cancelled, sockets closed, unfinished deliveries CANCELLED. */
  dispose(): void;
  /**
   * Takes over deliveries whose process stopped (already claimed in the store, `StoreProcess.adoptAbandoned`).
   * An attempt that process had on the wire is recorded as lost, then the delivery is retried
   * here, in its channel's order.
   */
  adopt(deliveries: Delivery[]): void;
}

export interface WebhookDispatcherDeps {
  clock: Clock;
  random: Random;
  events: EventBus;
  channels: ChannelSource;
  logger: Logger;
  options: ResolvedWebhookOptions;
  /** Injected by tests; real HTTP by default. */
  transport?: WebhookTransport;
  /** Where the mock listens (startMock and the middleware note ports); default: none known yet. */
  endpoints?: MockEndpoints;
  /**
   * Where deliveries are kept (the runtime: a collection of `store.system`). What they hold at
   * creation is picked up: queues resume, waiting retries are re-armed. Default: memory only.
   */
  records?: () => DeliveryRecords;
  /**
   * Runs an attempt's record and its outcome as units of work (the runtime: `store.transaction`).
   * Default: at once, in memory.
   */
  transaction?: Transaction;
  /** Which process sends a delivery, and who takes over those of a process that stopped (`store.process`). Default: this one, alone. */
  process?: StoreProcess;
}

/** A read-only log over every delivery in the records (all processes of a shared store), for listing. */
function everyDelivery(records: () => DeliveryRecords) {
  const view = createDeliveryLog({
    capPerChannel: Number.MAX_SAFE_INTEGER,
    capTotal: Number.MAX_SAFE_INTEGER,
    records: () => ({ values: () => records().values(), has: () => true, insert: () => {}, update: () => {}, delete: () => {} }),
  });
  view.load();
  view.detach();
  return view;
}

export type RedeliverResult = { ok: true; delivery: Delivery } | { ok: false; reason: 'not-found' | 'conflict'; message: string };

/**
 * Webhook delivery: every event on the bus becomes one delivery per subscribed, enabled Event
 * Channel, POSTed to its webhook asynchronously and strictly in order per channel (one queue
 * per channel, delivery-queues.ts; one attempt and its outcome, webhook-attempt.ts).
 *
 * Every change of a delivery is written to `records` (a store collection: with --data it commits
 * with the unit of work that made it). A dispatcher created over records that hold deliveries
 * carries on with those of this process (`process.owns`): PENDING ones queue again in their
 * order, a RETRYING one waits for its `nextAttemptAt`, and one that was IN_FLIGHT when the
 * process died is sent again with the same attempt number (its answer was lost; receivers
 * de-duplicate on Shipmock-Delivery-Id). Dead letters stay in the log, redeliverable. Deliveries
 * of processes that stopped are adopted (a store several processes share).
 *
 * @example
 * const dispatcher = createWebhookDispatcher({ clock, random, events, channels, logger, options });
 * dispatcher.list({ status: 'FAILED', limit: 20 });
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { clock, options, logger } = deps;
  const process = deps.process ?? SOLE_PROCESS;
  const transaction: Transaction = deps.transaction ?? runNow;
  // A named stream: its position is saved with the state, so delivery ids never repeat after a restart.
  const ids = deps.random.stream('webhook-deliveries');
  const transport = deps.transport ?? createWebhookTransport({ timeoutMs: options.timeoutMs, maxSockets: options.maxSockets });
  const allowlist = createHostAllowlist(options.allowedHosts.length ? options.allowedHosts : undefined);
  const endpoints = deps.endpoints ?? createMockEndpoints();
  const log = createDeliveryLog({
    capPerChannel: options.logCapPerChannel,
    capTotal: options.logCapTotal,
    deadLetterCap: options.deadLetterCap,
    records: deps.records,
    onDeadLetterEvicted: (delivery) =>
      logger.warn(
        { deliveryId: delivery.id, channelId: delivery.channelId, eventId: delivery.eventId, deadLetterCap: options.deadLetterCap },
        'dead letter dropped: more dead letters than webhooks.deadLetterCap; redeliver or purge them (DELETE /__admin/deliveries?status=FAILED)',
      ),
  });
  let disposed = false;
  const isDisposed = () => disposed;
  const parts = { clock, logger, log, channels: deps.channels, isDisposed };
  const { attempt } = createAttempts({ ...parts, random: deps.random, options, transport, allowlist, endpoints, transaction, queues: () => queues });
  const queues = createDeliveryQueues({ ...parts, attempt });
  const numbering = deliveryNumbering(process.number);

  const unsubscribe = deps.events.subscribe(onEvent);
  // This process works only its own deliveries; the ones of a stopped process are adopted.
  resume(log.load().filter((delivery) => process.owns(delivery.owner)));
  const adopt = adopter({ clock, log, queues, process, isDisposed });
  // Deliveries of processes that stopped are claimed in the store and worked here.
  const stopAdopting = deps.records
    ? process.adoptAbandoned<Delivery>({
        records: deps.records,
        unfinished: (delivery) => !isFinished(delivery.status),
        adopt: (deliveries, stopped) => {
          logger.info({ deliveries: deliveries.length, stoppedProcesses: stopped }, 'webhook deliveries of a stopped process adopted');
          adopt(deliveries);
        },
        onError: (error) => logger.warn({ err: error }, 'heartbeat not written: the store is unavailable'),
      })
    : () => {};

  /** Picks up the deliveries the records held at creation (a durable mock restarted). */
  function resume(saved: Delivery[]): void {
    for (const delivery of saved) numbering.saw(delivery.seq);
    const owed = saved.filter((delivery) => !isFinished(delivery.status));
    // The one that held its channel's queue (in flight or waiting out a backoff) goes first.
    const holding = owed.filter((delivery) => delivery.status !== 'PENDING');
    for (const delivery of [...holding, ...owed.filter((delivery) => delivery.status === 'PENDING')]) queues.enqueue(delivery);
    if (owed.length) logger.info({ deliveries: owed.length, retrying: holding.length }, 'webhook deliveries resumed');
  }

  function onEvent(event: EventEnvelope): void {
    if (disposed) return;
    for (const target of deps.channels.subscribersOf(event)) queues.enqueue(createDelivery(event, target));
    // An account's channels go with the account; stop what was still owed to them. Only channels
    // that are really gone: a mock ACCOUNT/DELETED event must not cancel anything.
    if (event.topic === 'ACCOUNT' && event.type === 'DELETED' && event.accountId) queues.cancelAccount(event.accountId);
  }

  function createDelivery(event: EventEnvelope, target: DeliveryTarget): Delivery {
    const now = clock.nowIso();
    const delivery: Delivery = {
      id: ids.uuid(),
      seq: numbering.next(),
      channelId: target.channelId,
      accountId: target.accountId,
      eventId: event.id,
      topic: event.topic,
      type: event.type,
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
      redeliveries: 0,
      attempts: [],
      event,
      owner: process.number,
    };
    log.add(delivery);
    return delivery;
  }

  function dispose(): void {
    if (disposed) return;
    disposed = true;
    stopAdopting();
    unsubscribe();
    // A shutdown is no cancellation the store should keep: the next start resumes them.
    log.detach();
    queues.shutDown();
    transport.close();
  }

  return {
    allowlist,
    endpoints,
    ...deliveryLogView({ log, records: deps.records, process, queues, channels: deps.channels }),
    adopt,
    cancelChannel(channelId, reason = 'the Event Channel was deleted') {
      const queue = queues.queues.get(channelId);
      if (queue) queues.cancelQueue(queue, reason);
    },
    reset(accountId) {
      const matches = (d: Delivery) => accountId === undefined || d.accountId === accountId;
      for (const queue of [...queues.queues.values()]) {
        const owner = queue.active ?? queue.waiting[0];
        if (owner && !matches(owner)) continue;
        queue.cancelTimer?.();
        queues.queues.delete(queue.channelId);
      }
      log.drop(matches);
    },
    dispose,
  };
}

/**
 * Takes over deliveries whose process stopped (already claimed in the store): an attempt that
 * process had on the wire is recorded as lost, then the delivery is retried here, in its
 * channel's order.
 */
function adopter(parts: { clock: Clock; log: DeliveryLog; queues: DeliveryQueues; process: StoreProcess; isDisposed(): boolean }) {
  const { clock, log, queues, process } = parts;
  return function adopt(deliveries: Delivery[]): void {
    for (const delivery of [...deliveries].sort((a, b) => a.seq - b.seq)) {
      if (parts.isDisposed() || isFinished(delivery.status)) continue;
      delivery.owner = process.number;
      if (delivery.inFlight) {
        const lost = delivery.inFlight;
        delete delivery.inFlight;
        delivery.attempts.push({ attempt: lost.attempt, at: lost.at, url: lost.url, errorCode: 'SENDER_STOPPED', error: 'the process sending this attempt stopped before its answer was recorded; retried by another', latencyMs: 0 });
      }
      // Due now: the retry it was waiting for (or the lost attempt's) is this process's to make.
      if (delivery.status === 'IN_FLIGHT') {
        delivery.nextAttemptAt = clock.nowIso();
        delivery.status = 'RETRYING';
      }
      log.take(delivery);
      queues.enqueue(delivery);
    }
  };
}

/**
 * Sequence numbers of deliveries: processes sharing a store number theirs in ranges of their own
 * (process number × 2^32 on), so cursors stay unambiguous; a store one process owns starts at 0.
 */
function deliveryNumbering(processNumber: number) {
  const base = processNumber * 2 ** 32;
  let seq = 0;
  return {
    next: () => base + ++seq,
    /** A delivery of this range was saved: numbering goes on after it. */
    saw(saved: number): void {
      if (saved >= base && saved < base + 2 ** 32) seq = Math.max(seq, saved - base);
    },
  };
}

/**
 * What the delivery log looks like from the control plane (GET/DELETE /__admin/deliveries,
 * redelivery). The records are the log of every process (a store several processes share);
 * this process's log holds the ones it works, with their eviction counts.
 */
function deliveryLogView(view: { log: DeliveryLog; records?: () => DeliveryRecords; process: StoreProcess; queues: DeliveryQueues; channels: ChannelSource }) {
  const { log, records, process, queues } = view;
  const stored = (id: string) => records?.().values().find((delivery) => delivery.id === id);
  return {
    list(query: DeliveryQuery): DeliveryPage {
      const own = log.query(query);
      if (!records) return own;
      // Listing reads the records (an admin view: a pass over them is fine); evictions are this log's.
      return { ...everyDelivery(records).query(query), evicted: own.evicted, deadLettersEvicted: own.deadLettersEvicted };
    },
    purge: (filter: DeliveryPurge) => log.purge(filter),
    get: (id: string) => log.get(id) ?? stored(id),
    redeliver(id: string): RedeliverResult {
      // A finished delivery another process worked: this one takes it over to send it again.
      const other = log.get(id) ? undefined : stored(id);
      if (other && isFinished(other.status)) {
        other.owner = process.number;
        log.take(other);
      }
      const delivery = log.get(id);
      if (!delivery) return { ok: false, reason: 'not-found', message: `no delivery ${id} in the log` };
      if (!isFinished(delivery.status)) {
        return { ok: false, reason: 'conflict', message: `delivery ${id} is ${delivery.status}; only a finished delivery can be redelivered` };
      }
      if (!view.channels.target(delivery.accountId, delivery.channelId)) {
        return { ok: false, reason: 'conflict', message: `the Event Channel ${delivery.channelId} of delivery ${id} no longer exists` };
      }
      delivery.roundStart = delivery.attempts.length;
      delivery.redeliveries++;
      delete delivery.reason;
      queues.setStatus(delivery, 'PENDING');
      log.requeue(delivery);
      queues.requeue(delivery);
      return { ok: true, delivery };
    },
  };
}
