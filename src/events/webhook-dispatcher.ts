import type { Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import type { Random } from '../random/random.js';
import type { ChannelSource, DeliveryTarget } from './channel-source.js';
import { createDeliveryLog, isFinished, type Delivery, type DeliveryPage, type DeliveryQuery, type DeliveryStatus } from './delivery-log.js';
import type { EventBus, EventEnvelope } from './event-bus.js';
import { backoffDelay } from './retry-schedule.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import { createWebhookTransport, type WebhookTransport } from './webhook-post.js';
import { signatureHeader } from './webhook-signature.js';

export interface WebhookDispatcher {
  /** The delivery log, newest first (GET /__admin/deliveries). */
  list(query: DeliveryQuery): DeliveryPage;
  get(id: string): Delivery | undefined;
  /**
   * Queues a finished delivery again (a new round of attempts) at the end of its channel's
   * queue. Refused when unknown (not-found), still unfinished or its channel is gone (conflict).
   */
  redeliver(id: string): RedeliverResult;
  /** The channel was deleted: queued and waiting deliveries become CANCELLED; one in flight finishes. */
  cancelChannel(channelId: string, reason?: string): void;
  /** Forgets deliveries (and stops their queues) of one account, or of all. */
  reset(accountId?: string): void;
  /** Stops everything: timers cancelled, sockets closed, unfinished deliveries CANCELLED. */
  dispose(): void;
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
 * @example
 * const dispatcher = createWebhookDispatcher({ clock, random, events, channels, logger, options });
 * dispatcher.list({ status: 'FAILED', limit: 20 });
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { clock, options, logger } = deps;
  const ids = deps.random.derive('webhook-deliveries');
  const transport = deps.transport ?? createWebhookTransport({ timeoutMs: options.timeoutMs, maxSockets: options.maxSockets });
  const log = createDeliveryLog({ capPerChannel: options.logCapPerChannel, capTotal: options.logCapTotal });
  const queues = new Map<string, ChannelQueue>();
  /** Index of the first attempt of a delivery's current round (0, or where a redelivery began). */
  const roundStart = new Map<string, number>();
  let seq = 0;
  let disposed = false;

  const unsubscribe = deps.events.subscribe(onEvent);

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
      seq: ++seq,
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
    attempt(queue, next);
  }

  function setStatus(delivery: Delivery, status: DeliveryStatus): void {
    delivery.status = status;
    delivery.updatedAt = clock.nowIso();
    if (status !== 'RETRYING') delete delivery.nextAttemptAt;
  }

  function finish(queue: ChannelQueue, delivery: Delivery, status: DeliveryStatus, reason?: string): void {
    setStatus(delivery, status);
    if (reason) delivery.reason = reason;
    roundStart.delete(delivery.id);
    if (queue.active === delivery) queue.active = undefined;
    log.enforceCaps(delivery.channelId);
    if (status === 'FAILED') {
      logger.warn({ deliveryId: delivery.id, channelId: delivery.channelId, eventId: delivery.eventId, attempts: delivery.attempts.length }, 'webhook delivery failed (dead letter)');
    }
    queueMicrotask(() => pump(queue));
  }

  function attempt(queue: ChannelQueue, delivery: Delivery): void {
    const target = deps.channels.target(delivery.accountId, delivery.channelId);
    if (!target || queue.deleted) return finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
    const number = delivery.attempts.length + 1;
    const at = clock.now();
    const body = JSON.stringify(delivery.event);
    const headers: Record<string, string> = {
      ...target.headers,
      'Content-Type': 'application/json',
      'Shipmock-Event-Id': delivery.eventId,
      'Shipmock-Delivery-Id': delivery.id,
      'Shipmock-Delivery-Attempt': String(number),
    };
    if (target.secret) headers['Shipmock-Signature'] = signatureHeader(target.secret, Math.floor(at / 1000), body);
    setStatus(delivery, 'IN_FLIGHT');
    void transport.post(target.url, headers, body).then((outcome) => {
      if (disposed || log.get(delivery.id) !== delivery) return;
      delivery.attempts.push({ attempt: number, at: new Date(at).toISOString(), url: target.url, ...outcome });
      const ok = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
      if (ok) return finish(queue, delivery, 'DELIVERED');
      if (queue.deleted) return finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
      const inRound = delivery.attempts.length - (roundStart.get(delivery.id) ?? 0);
      if (inRound >= options.maxAttempts) return finish(queue, delivery, 'FAILED');
      const dueAt = clock.now() + backoffDelay({ seed: deps.random.seed, ...options }, delivery.id, inRound);
      setStatus(delivery, 'RETRYING');
      delivery.nextAttemptAt = new Date(dueAt).toISOString();
      queue.cancelTimer = clock.setTimer(dueAt, () => {
        queue.cancelTimer = undefined;
        attempt(queue, delivery);
      });
    });
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
    list: (query) => log.query(query),
    get: (id) => log.get(id),
    redeliver(id) {
      const delivery = log.get(id);
      if (!delivery) return { ok: false, reason: 'not-found', message: `no delivery ${id} in the log` };
      if (!isFinished(delivery.status)) {
        return { ok: false, reason: 'conflict', message: `delivery ${id} is ${delivery.status}; only a finished delivery can be redelivered` };
      }
      if (!deps.channels.target(delivery.accountId, delivery.channelId)) {
        return { ok: false, reason: 'conflict', message: `the Event Channel ${delivery.channelId} of delivery ${id} no longer exists` };
      }
      roundStart.set(delivery.id, delivery.attempts.length);
      delivery.redeliveries++;
      delete delivery.reason;
      setStatus(delivery, 'PENDING');
      const queue = queueOf(delivery.channelId);
      queue.deleted = false;
      queue.waiting.push(delivery);
      queueMicrotask(() => pump(queue));
      return { ok: true, delivery };
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
      for (const id of [...roundStart.keys()]) if (!log.get(id)) roundStart.delete(id);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      unsubscribe();
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
