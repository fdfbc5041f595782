import type { Clock } from '../clock/clock.js';
import type { Logger } from '../logging/logger.js';
import type { Random } from '../random/random.js';
import type { UnitKind } from '../store/store.js';
import { shortenSecret } from '../util/redact.js';
import type { ChannelSource } from './channel-source.js';
import { isFinished, type Delivery, type DeliveryAttempt, type DeliveryLog } from './delivery-log.js';
import type { ChannelQueue, DeliveryQueues } from './delivery-queues.js';
import type { HostAllowlist } from './host-allowlist.js';
import type { MockEndpoints } from './mock-endpoints.js';
import { backoffDelay } from './retry-schedule.js';
import { SENDER_HEADER } from './sender-marker.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import type { PostOutcome, WebhookTransport } from './webhook-post.js';
import { destinationProblem, portOf, webhookTargetProblem, type TargetGuards } from './webhook-target.js';
import { signatureHeader } from './webhook-signature.js';

/** Runs work as a unit of the store (Store.transaction). */
export type Transaction = <T>(work: () => T | PromiseLike<T>, kind?: UnitKind) => Promise<T>;

/** What one attempt needs (the dispatcher's parts). */
export interface AttemptDeps {
  clock: Clock;
  random: Random;
  logger: Logger;
  options: ResolvedWebhookOptions;
  channels: ChannelSource;
  log: DeliveryLog;
  transport: WebhookTransport;
  allowlist: HostAllowlist;
  endpoints: MockEndpoints;
  transaction: Transaction;
  queues: () => DeliveryQueues;
  isDisposed(): boolean;
}

/**
 * One attempt of a webhook delivery: the target checked, the request signed and posted, and its
 * outcome recorded — DELIVERED, a retry after exponential backoff with seeded jitter
 * (retry-schedule.ts) on the mock clock, or FAILED (a dead letter) after the last one.
 *
 * The attempt is recorded (a unit of work) before it goes on the wire: with a shared store, if
 * this process dies then, the process that adopts the delivery records it as lost before it
 * retries. Its outcome is a unit of work of its own.
 *
 * Delivery is background work nobody awaits, so nothing may escape from here: a URL or header
 * that cannot go on the wire (state imported from an older mock, a host not on --webhook-hosts),
 * a transport that throws or rejects — each becomes a failed attempt on the delivery (GET
 * /__admin/deliveries), retried like a receiver's failure, since replacing the channel fixes the
 * next attempt. Only a bug in this bookkeeping itself is left, and that is logged and ends the
 * delivery FAILED with the error as its reason.
 *
 * @example const { attempt } = createAttempts(deps); attempt(queue, delivery);
 */
export function createAttempts(deps: AttemptDeps) {
  const { clock, logger, options, log } = deps;

  /** `dueAt`: when the attempt was due (a retry's nextAttemptAt), which a clock jump may have passed. */
  function attempt(queue: ChannelQueue, delivery: Delivery, dueAt?: number): void {
    try {
      send(queue, delivery, dueAt);
    } catch (error) {
      giveUp(queue, delivery, error);
    }
  }

  function send(queue: ChannelQueue, delivery: Delivery, dueAt?: number): void {
    const queues = deps.queues();
    const target = deps.channels.target(delivery.accountId, delivery.channelId);
    if (!target || queue.deleted) return queues.finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
    const number = delivery.attempts.length + 1;
    const at = clock.now();
    // How late the attempt starts: a clock jump over several retry times makes every retry late
    // by the jump, and the backoff of each is counted as if it had started on time — so they all
    // happen, in order, after one advance (README, Time travel). On a running clock it is ~0.
    const scheduledAt = Math.min(dueAt ?? at, at);
    queues.setStatus(delivery, 'IN_FLIGHT');
    const guards: TargetGuards = { self: deps.endpoints, foreignPage: target.foreignPage };
    const refused = webhookTargetProblem(target.url, target.headers, deps.allowlist, guards);
    const outcomeOf = (outcome: PostOutcome & Pick<DeliveryAttempt, 'requestHeaders'>) => () => settle(queue, delivery, number, at, scheduledAt, target.url, outcome);
    if (refused) {
      logger.warn({ deliveryId: delivery.id, channelId: delivery.channelId, url: target.url, error: refused.error }, 'webhook attempt not sent');
      return recordOutcome(queue, delivery, outcomeOf({ ...refused, latencyMs: 0 }));
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
    const screen = (address: string) => destinationProblem(address, port, guards, deps.allowlist.entries.length > 0);
    if (target.secret) headers['Shipmock-Signature'] = signatureHeader(target.secret, Math.floor(at / 1000), body);
    const post = (): Promise<PostOutcome> => {
      try {
        return deps.transport.post(target.url, headers, body, screen);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    // The attempt is in the store before it is on the wire.
    deps
      .transaction(() => {
        delivery.inFlight = { attempt: number, at: new Date(at).toISOString(), url: target.url };
        log.noteStatus(delivery);
      }, 'background')
      .then(post, (error: Error): PostOutcome => ({ errorCode: 'STORE_UNAVAILABLE', error: `not sent: the attempt could not be recorded in the store (${error.message})`, latencyMs: 0 }))
      .catch((error: unknown): PostOutcome => ({ errorCode: errorCodeOf(error), error: messageOf(error), latencyMs: 0 }))
      .then((outcome) => recordOutcome(queue, delivery, outcomeOf({ ...outcome, requestHeaders: shownHeaders(headers, target.headers) })));
  }

  /** An attempt's outcome is a unit of work; a store that cannot be reached gets it with its next one. */
  function recordOutcome(queue: ChannelQueue, delivery: Delivery, settleIt: () => void): void {
    let ran = false;
    const work = () => {
      ran = true;
      try {
        settleIt();
      } catch (error) {
        giveUp(queue, delivery, error);
      }
    };
    deps.transaction(work, 'background').catch((error: Error) => {
      logger.warn({ err: error, deliveryId: delivery.id }, 'webhook attempt outcome not committed yet: the store is unavailable');
      if (!ran) work();
    });
  }

  function settle(queue: ChannelQueue, delivery: Delivery, number: number, at: number, scheduledAt: number, url: string, outcome: PostOutcome & Pick<DeliveryAttempt, 'requestHeaders'>): void {
    if (deps.isDisposed() || log.get(delivery.id) !== delivery) return;
    const queues = deps.queues();
    delete delivery.inFlight;
    delivery.attempts.push({ attempt: number, at: new Date(at).toISOString(), url, ...outcome });
    const ok = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
    if (ok) return queues.finish(queue, delivery, 'DELIVERED');
    if (queue.deleted) return queues.finish(queue, delivery, 'CANCELLED', 'the Event Channel was deleted');
    const inRound = delivery.attempts.length - (delivery.roundStart ?? 0);
    if (inRound >= options.maxAttempts) return queues.finish(queue, delivery, 'FAILED');
    const lateness = at - scheduledAt;
    const dueAt = clock.now() - lateness + backoffDelay({ seed: deps.random.seed, ...options }, delivery.id, inRound);
    delivery.nextAttemptAt = new Date(dueAt).toISOString();
    queues.setStatus(delivery, 'RETRYING');
    queues.waitForRetry(queue, delivery, dueAt);
  }

  /** The last resort: the delivery ends FAILED (redeliverable) with the error, and the queue moves on. */
  function giveUp(queue: ChannelQueue, delivery: Delivery, error: unknown): void {
    logger.error({ err: error, deliveryId: delivery.id, channelId: delivery.channelId }, 'webhook delivery broke');
    if (deps.isDisposed() || log.get(delivery.id) !== delivery || isFinished(delivery.status)) {
      if (queue.active === delivery) queue.active = undefined;
      return;
    }
    try {
      deps.queues().finish(queue, delivery, 'FAILED', `the mock could not deliver: ${messageOf(error)}`);
    } catch (again) {
      logger.error({ err: again, deliveryId: delivery.id }, 'webhook delivery bookkeeping failed');
      if (queue.active === delivery) queue.active = undefined;
    }
  }

  return { attempt };
}

/** The headers of an attempt as the delivery log shows them: the channel's own header values are the user's secrets. */
function shownHeaders(sent: Record<string, string>, own: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent)) out[name] = own && name in own ? shortenSecret(value) : value;
  return out;
}

function errorCodeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code ? code : 'ERROR';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
