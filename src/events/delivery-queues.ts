import type { Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import type { ChannelSource } from './channel-source.js';
import { isFinished, type Delivery, type DeliveryLog, type DeliveryStatus } from './delivery-log.js';

/** One channel's FIFO queue: one delivery at a time is worked (`active`), the rest wait. */
export interface ChannelQueue {
  channelId: string;
  waiting: Delivery[];
  active?: Delivery;
  cancelTimer?: () => void;
  deleted: boolean;
}

/** What the queues are built over (the dispatcher's parts). */
export interface QueueDeps {
  clock: Clock;
  logger: Logger;
  channels: ChannelSource;
  log: DeliveryLog;
  isDisposed(): boolean;
  /** Works the delivery at the head of a queue (webhook-attempt.ts); `dueAt` when it was a retry due then. */
  attempt(queue: ChannelQueue, delivery: Delivery, dueAt?: number): void;
}

export type DeliveryQueues = ReturnType<typeof createDeliveryQueues>;

/**
 * The order of webhook deliveries: one FIFO queue per Event Channel, worked one delivery at a
 * time — a delivery that is retrying holds its queue until it is DELIVERED or dead-lettered, so
 * a receiver never sees event n+1 before event n has been acknowledged or given up on. Here are
 * the queues and a delivery's status changes; what one attempt does is webhook-attempt.ts.
 *
 * @example const queues = createDeliveryQueues({ clock, logger, channels, log, isDisposed, attempt }); queues.enqueue(delivery);
 */
export function createDeliveryQueues(deps: QueueDeps) {
  const { clock, logger, log } = deps;
  const queues = new Map<string, ChannelQueue>();

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
    if (deps.isDisposed() || queue.active) return;
    const next = queue.waiting.shift();
    if (!next) {
      if (queue.deleted) queues.delete(queue.channelId);
      return;
    }
    queue.active = next;
    // Only after a restart (or an adoption) does a queue start with a delivery waiting out its backoff.
    if (next.status === 'RETRYING' && next.nextAttemptAt) return waitForRetry(queue, next, Date.parse(next.nextAttemptAt));
    deps.attempt(queue, next);
  }

  function waitForRetry(queue: ChannelQueue, delivery: Delivery, dueAt: number): void {
    queue.cancelTimer = clock.setTimer(dueAt, () => {
      queue.cancelTimer = undefined;
      deps.attempt(queue, delivery, dueAt);
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

  return {
    queues,
    queueOf,
    enqueue,
    waitForRetry,
    setStatus,
    finish,
    cancelQueue,
    /** The account was deleted: the queues of its channels that are really gone stop. */
    cancelAccount(accountId: string): void {
      for (const queue of queues.values()) {
        const owner = queue.active ?? queue.waiting[0];
        if (owner?.accountId === accountId && !deps.channels.target(accountId, queue.channelId)) cancelQueue(queue, 'the Account was deleted');
      }
    },
    /** Shutdown: timers cancelled, what was still owed marked CANCELLED (the log is detached: the store keeps it owed). */
    shutDown(): void {
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
    },
    /** A redelivered delivery goes to the end of its channel's queue (which lives again). */
    requeue(delivery: Delivery): void {
      const queue = queueOf(delivery.channelId);
      queue.deleted = false;
      queue.waiting.push(delivery);
      queueMicrotask(() => pump(queue));
    },
  };
}
