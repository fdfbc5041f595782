import type { Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import type { Random } from '../random/random.js';
import { shortenSecret } from '../util/redact.js';
import type { ChannelSource, DeliveryTarget } from './channel-source.js';
import { createDeliveryLog, isFinished, type Delivery, type DeliveryAttempt, type DeliveryPage, type DeliveryRecords, type DeliveryPurge, type DeliveryQuery, type DeliveryStatus } from './delivery-log.js';
import { createHostAllowlist, type HostAllowlist } from './host-allowlist.js';
import { destinationProblem, portOf, webhookTargetProblem, type TargetGuards } from './webhook-target.js';
import { createMockEndpoints, type MockEndpoints } from './mock-endpoints.js';
import { SENDER_HEADER } from './sender-marker.js';
import type { EventBus, EventEnvelope } from './event-bus.js';
import { backoffDelay } from './retry-schedule.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import { createWebhookTransport, type PostOutcome, type WebhookTransport } from './webhook-post.js';
import { signatureHeader } from './webhook-signature.js';

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
   * Shared store: takes over deliveries whose process stopped (already claimed in the store by
   * delivery-takeover.ts). An attempt that process had on the wire is recorded as lost, then the
   * delivery is retried here, in its channel's order.
   */
  adopt(deliveries: Delivery[]): void;
}

/** What the dispatcher of one of several processes sharing a store needs. */
export interface SharedDelivery {
  /** This process's number: it owns the deliveries it creates. */
  processNumber: number;
  /** Commits what changed (an attempt about to go on the wire) before it goes. */
  record(): Promise<void>;
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
  /** Set when several processes share the store: deliveries are owned, attempts recorded before they are sent. */
  shared?: SharedDelivery;
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

interface ChannelQueue {
  channelId: string;
  waiting: Delivery[];
  active?: Delivery;
  cancelTimer?: () => void;
  deleted: boolean;
}

/**
 * Webhook delivery: every event on the bus becomes one delivery per subscribed, enabled Event
 * Channel, POSTed to its webhook asynchronously and strictly in order per channel. Each channel
 * has a FIFO queue worked by one delivery at a time: a delivery that is retrying holds the
 * queue (later events wait) until it is DELIVERED or dead-lettered as FAILED — so a receiver
 * never sees event n+1 before event n has been acknowledged or given up on.
 *
 * Failures (non-2xx, timeout, connection error) are retried after exponential backoff with
 * seeded jitter (retry-schedule.ts), waiting on the mock clock: real time in `real` mode, and
 * immediately when a test advances the clock.
 *
 * Every change of a delivery is written to `records` (a store collection: with --data it commits
 * with the request that queued it, or on the next turn for background changes). A dispatcher
 * created over records that hold deliveries carries on with them: PENDING ones queue again in
 * their order, a RETRYING one waits for its `nextAttemptAt`, and one that was IN_FLIGHT when the
 * process died is sent again with the same attempt number (its answer was lost; receivers
 * de-duplicate on Shipmock-Delivery-Id). Dead letters stay in the log, redeliverable.
 *
 * @example
 * const dispatcher = createWebhookDispatcher({ clock, random, events, channels, logger, options });
 * dispatcher.list({ status: 'FAILED', limit: 20 });
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { clock, options, logger } = deps;
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
  const queues = new Map<string, ChannelQueue>();
  let seq = 0;
  let disposed = false;

  const unsubscribe = deps.events.subscribe(onEvent);
  const shared = deps.shared;
  // Sequence numbers of processes sharing the store come from ranges of their own (cursors stay unambiguous).
  const seqBase = shared ? shared.processNumber * 2 ** 32 : 0;
  // A process sharing the store works only its own deliveries; the ones of a stopped process are adopted.
  const saved = log.load();
  resume(shared ? saved.filter((delivery) => delivery.owner === shared.processNumber) : saved);

  /** Picks up the deliveries the records held at creation (a durable mock restarted). */
  function resume(saved: Delivery[]): void {
    for (const delivery of saved) if (delivery.seq >= seqBase && delivery.seq < seqBase + 2 ** 32) seq = Math.max(seq, delivery.seq - seqBase);
    const owed = saved.filter((delivery) => !isFinished(delivery.status));
    // The one that held its channel's queue (in flight or waiting out a backoff) goes first.
    const holding = owed.filter((delivery) => delivery.status !== 'PENDING');
    for (const delivery of [...holding, ...owed.filter((delivery) => delivery.status === 'PENDING')]) enqueue(delivery);
    if (owed.length) logger.info({ deliveries: owed.length, retrying: holding.length }, 'webhook deliveries resumed');
  }

  function onEvent(event: EventEnvelope): void {
    if (disposed) return;
    for (const target of deps.channels.subscribersOf(event)) enqueue(createDelivery(event, target));
    // An account's channels go with the account; stop what was still owed to them. Only channels
    // that are really gone: a mock ACCOUNT/DELETED event must not cancel anything.
    if (event.topic === 'ACCOUNT' && event.type === 'DELETED' && event.accountId) cancelAccount(event.accountId);
  }

  function createDelivery(event: EventEnvelope, target: DeliveryTarget): Delivery {
    const now = clock.nowIso();
    const delivery: Delivery = {
      id: ids.uuid(),
      seq: seqBase + ++seq,
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
      ...(shared ? { owner: shared.processNumber } : {}),
    };
    log.add(delivery);
    return delivery;
  }

  function queueOf(channelId: string): ChannelQueue {
    let queue = queues.get(channelId);
    if (!queue) queues.set(channelId, (queue = { channelId, waiting: [], deleted: false }));
    return queue;
  }

  function enqueue(delivery: Delivery): void {
    const queue = queueOf(delivery.channelId);
    queue.waiting.push(delivery);
    // Asynchronous to the request that published the event; also keeps long queues off the stack.
    queueMicrotask(() => pump(queue));
  }

  function pump(queue: ChannelQueue): void {
    if (disposed || queue.active) return;
    const next = queue.waiting.shift();
    if (!next) {
      if (queue.deleted) queues.delete(queue.channelId);
      return;
    }
    queue.active = next;
    // Only after a restart does a queue start with a delivery waiting out its backoff.
    if (next.status === 'RETRYING' && next.nextAttemptAt) return waitForRetry(queue, next, Date.parse(next.nextAttemptAt));
    attempt(queue, next);
  }

  function waitForRetry(queue: ChannelQueue, delivery: Delivery, dueAt: number): void {
    queue.cancelTimer = clock.setTimer(dueAt, () => {
      queue.cancelTimer = undefined;
      attempt(queue, delivery, dueAt);
    }, { kind: 'webhook-retry', subject: delivery.id, accountId: delivery.accountId, detail: `${delivery.type}, attempt ${delivery.attempts.length + 1} on channel ${delivery.channelId}` });
  }

  function setStatus(delivery: Delivery, status: DeliveryStatus): void {
    delivery.status = status;
    delivery.updatedAt = clock.nowIso();
    if (status !== 'RETRYING') delete delivery.nextAttemptAt;
    log.noteStatus(delivery);
  }

  function finish(queue: ChannelQueue, delivery: Delivery, status: DeliveryStatus, reason?: string): void {
    setStatus(delivery, status);
    if (reason) delivery.reason = reason;
    delete delivery.roundStart;
    if (queue.active === delivery) queue.active = undefined;
    log.enforceCaps(delivery.channelId);
    if (status === 'FAILED') {
      const last = delivery.attempts[delivery.attempts.length - 1];
      logger.warn(
        { deliveryId: delivery.id, channelId: delivery.channelId, eventId: delivery.eventId, attempts: delivery.attempts.length, lastError: last?.error },
        'webhook delivery failed (dead letter)',
      );
    }
    queueMicrotask(() => pump(queue));
  }

  /**
   * One attempt. Delivery is background work nobody awaits, so nothing may escape from here: a
   * URL or header that cannot go on the wire (state imported from an older mock, a host not on
   * --webhook-hosts), a transport that throws or rejects — each becomes a failed attempt on the
   * delivery (GET /__admin/deliveries), retried like a receiver's failure, since replacing the
   * channel fixes the next attempt. Only a bug in this bookkeeping itself is left, and that is
   * logged and ends the delivery FAILED with the error as its reason.
   */
  /** `dueAt`: when the attempt was due (a retry's nextAttemptAt), which a clock jump may have passed. */
  function attempt(queue: ChannelQueue, delivery: Delivery, dueAt?: number): void {
    try {
      send(queue, delivery, dueAt);
    } catch (error) {
      giveUp(queue, delivery, error);
    }
  }

  function send(queue: ChannelQueue, delivery: Delivery, dueAt?: number): void {
    const target = deps.channels.target(delivery.accountId, delivery.channelId);
    if (!target || queue.deleted) return finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
    const number = delivery.attempts.length + 1;
    const at = clock.now();
    // How late the attempt starts: a clock jump over several retry times makes every retry late
    // by the jump, and the backoff of each is counted as if it had started on time — so they all
    // happen, in order, after one advance (README, Time travel). On a running clock it is ~0.
    const scheduledAt = Math.min(dueAt ?? at, at);
    setStatus(delivery, 'IN_FLIGHT');
    const guards: TargetGuards = { self: endpoints, foreignPage: target.foreignPage };
    const refused = webhookTargetProblem(target.url, target.headers, allowlist, guards);
    if (refused) {
      logger.warn({ deliveryId: delivery.id, channelId: delivery.channelId, url: target.url, error: refused.error }, 'webhook attempt not sent');
      return settle(queue, delivery, number, at, scheduledAt, target.url, { ...refused, latencyMs: 0 });
    }
    const body = JSON.stringify(delivery.event);
    const headers: Record<string, string> = {
      ...target.headers,
      'Content-Type': 'application/json',
      'Shipmock-Event-Id': delivery.eventId,
      'Shipmock-Delivery-Id': delivery.id,
      'Shipmock-Delivery-Attempt': String(number),
      // The mock recognises its own requests when they come back (through another host too).
      [SENDER_HEADER]: 'webhook',
    };
    // The URL passed the check above; the addresses its host resolves to now are judged as the connection is made.
    const port = portOf(new URL(target.url));
    const screen = (address: string) => destinationProblem(address, port, guards, allowlist.entries.length > 0);
    if (target.secret) headers['Shipmock-Signature'] = signatureHeader(target.secret, Math.floor(at / 1000), body);
    const post = (): Promise<PostOutcome> => {
      try {
        return transport.post(target.url, headers, body, screen);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    let sent: Promise<PostOutcome>;
    if (shared) {
      // The attempt is in the shared store before it is on the wire: if this process dies now,
      // the process that adopts the delivery records it as lost before retrying.
      delivery.inFlight = { attempt: number, at: new Date(at).toISOString(), url: target.url };
      log.noteStatus(delivery);
      sent = shared.record().then(post, (error: Error) => ({ errorCode: 'STORE_UNAVAILABLE', error: `not sent: the attempt could not be recorded in the shared store (${error.message})`, latencyMs: 0 }));
    } else {
      sent = post();
    }
    sent
      .catch((error: unknown): PostOutcome => ({ errorCode: errorCodeOf(error), error: messageOf(error), latencyMs: 0 }))
      .then((outcome) => settle(queue, delivery, number, at, scheduledAt, target.url, { ...outcome, requestHeaders: shownHeaders(headers, target.headers) }))
      .catch((error: unknown) => giveUp(queue, delivery, error));
  }

  /** The headers of an attempt as the delivery log shows them: the channel's own header values are the user's secrets. */
  function shownHeaders(sent: Record<string, string>, own: Record<string, string> | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(sent)) out[name] = own && name in own ? shortenSecret(value) : value;
    return out;
  }

  /** Why a target cannot be posted to at all, checked before anything goes on the wire. */
  function settle(queue: ChannelQueue, delivery: Delivery, number: number, at: number, scheduledAt: number, url: string, outcome: PostOutcome & Pick<DeliveryAttempt, 'requestHeaders'>): void {
    if (disposed || log.get(delivery.id) !== delivery) return;
    delete delivery.inFlight;
    delivery.attempts.push({ attempt: number, at: new Date(at).toISOString(), url, ...outcome });
    const ok = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
    if (ok) return finish(queue, delivery, 'DELIVERED');
    if (queue.deleted) return finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
    const inRound = delivery.attempts.length - (delivery.roundStart ?? 0);
    if (inRound >= options.maxAttempts) return finish(queue, delivery, 'FAILED');
    const lateness = at - scheduledAt;
    const dueAt = clock.now() - lateness + backoffDelay({ seed: deps.random.seed, ...options }, delivery.id, inRound);
    delivery.nextAttemptAt = new Date(dueAt).toISOString();
    setStatus(delivery, 'RETRYING');
    waitForRetry(queue, delivery, dueAt);
  }

  /** The last resort: the delivery ends FAILED (redeliverable) with the error, and the queue moves on. */
  function giveUp(queue: ChannelQueue, delivery: Delivery, error: unknown): void {
    logger.error({ err: error, deliveryId: delivery.id, channelId: delivery.channelId }, 'webhook delivery broke');
    if (disposed || log.get(delivery.id) !== delivery || isFinished(delivery.status)) {
      if (queue.active === delivery) queue.active = undefined;
      return;
    }
    try {
      finish(queue, delivery, 'FAILED', `the mock could not deliver: ${messageOf(error)}`);
    } catch (again) {
      logger.error({ err: again, deliveryId: delivery.id }, 'webhook delivery bookkeeping failed');
      if (queue.active === delivery) queue.active = undefined;
    }
  }

  function cancelQueue(queue: ChannelQueue, reason: string): void {
    queue.deleted = true;
    for (const delivery of queue.waiting.splice(0)) finish(queue, delivery, 'CANCELLED', reason);
    if (queue.cancelTimer && queue.active) {
      queue.cancelTimer();
      queue.cancelTimer = undefined;
      finish(queue, queue.active, 'CANCELLED', reason);
    }
    // An attempt in flight finishes: DELIVERED on a 2xx, else CANCELLED instead of retried.
  }

  function cancelAccount(accountId: string): void {
    for (const queue of queues.values()) {
      const owner = queue.active ?? queue.waiting[0];
      if (owner?.accountId === accountId && !deps.channels.target(accountId, queue.channelId)) cancelQueue(queue, 'the Account was deleted');
    }
  }

  return {
    allowlist,
    endpoints,
    // Shared store: the log of every process's deliveries is the store's; this process's log holds
    // the ones it works. Listing reads the store (an admin view: a pass over the records is fine).
    list: (query) => (shared && deps.records ? everyDelivery(deps.records).query(query) : log.query(query)),
    purge: (filter) => log.purge(filter),
    get: (id) => log.get(id) ?? (shared ? deps.records?.().values().find((delivery) => delivery.id === id) : undefined),
    redeliver(id) {
      // A finished delivery of another process: this one takes it over to send it again.
      if (shared && !log.get(id)) {
        const stored = deps.records?.().values().find((delivery) => delivery.id === id);
        if (stored && isFinished(stored.status)) {
          stored.owner = shared.processNumber;
          log.take(stored);
        }
      }
      const delivery = log.get(id);
      if (!delivery) return { ok: false, reason: 'not-found', message: `no delivery ${id} in the log` };
      if (!isFinished(delivery.status)) {
        return { ok: false, reason: 'conflict', message: `delivery ${id} is ${delivery.status}; only a finished delivery can be redelivered` };
      }
      if (!deps.channels.target(delivery.accountId, delivery.channelId)) {
        return { ok: false, reason: 'conflict', message: `the Event Channel ${delivery.channelId} of delivery ${id} no longer exists` };
      }
      delivery.roundStart = delivery.attempts.length;
      delivery.redeliveries++;
      delete delivery.reason;
      setStatus(delivery, 'PENDING');
      log.requeue(delivery);
      const queue = queueOf(delivery.channelId);
      queue.deleted = false;
      queue.waiting.push(delivery);
      queueMicrotask(() => pump(queue));
      return { ok: true, delivery };
    },
    adopt(deliveries) {
      for (const delivery of [...deliveries].sort((a, b) => a.seq - b.seq)) {
        if (disposed || isFinished(delivery.status)) continue;
        if (shared) delivery.owner = shared.processNumber;
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
        enqueue(delivery);
      }
    },
    cancelChannel(channelId, reason = 'the Event Channel was deleted') {
      const queue = queues.get(channelId);
      if (queue) cancelQueue(queue, reason);
    },
    reset(accountId) {
      const matches = (d: Delivery) => accountId === undefined || d.accountId === accountId;
      for (const queue of [...queues.values()]) {
        const owner = queue.active ?? queue.waiting[0];
        if (owner && !matches(owner)) continue;
        queue.cancelTimer?.();
        queues.delete(queue.channelId);
      }
      log.drop(matches);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      unsubscribe();
      // A shutdown is no cancellation the store should keep: the next start resumes them.
      log.detach();
      for (const queue of queues.values()) {
        queue.cancelTimer?.();
        for (const delivery of [queue.active, ...queue.waiting]) {
          if (delivery && !isFinished(delivery.status)) {
            setStatus(delivery, 'CANCELLED');
            delivery.reason = 'the mock shut down';
          }
        }
      }
      queues.clear();
      transport.close();
    },
  };
}

function errorCodeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code ? code : 'ERROR';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
