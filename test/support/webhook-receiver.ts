import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/clock/clock.js';
import type { MockHandles } from '../../src/server/mock-handles.js';
import type { Delivery } from '../../src/events/delivery-log.js';
import { releaseWhenDone } from './lifetime.js';

/**
 * A real webhook receiver for tests: an HTTP server on 127.0.0.1 (port 0) that records every
 * request and answers as its behaviour says. Reusable by any family that needs to see its
 * events arrive (e.g. SHIPMENT_BOOKING end to end):
 *
 * @example
 * const receiver = await startWebhookReceiver();
 * // create an Event Channel with webhook.url = receiver.url and a secret, then do something
 * const [hit] = await receiver.waitFor((r) => r.body.topic === 'SHIPMENT_BOOKING');
 * expect(verifyShipmockSignature(secret, hit.headers['shipmock-signature'], hit.rawBody)).toBe(true);
 * await receiver.close();
 */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body (the Event envelope). */
  body: any;
  eventId: string;
  /** Shipmock-Delivery-Attempt as a number. */
  attempt: number;
  /** 0-based count of earlier requests carrying the same Shipmock-Event-Id. */
  nth: number;
  /** What the receiver answered (undefined while it is still holding the request). */
  status?: number;
}

/** How to answer one request: a status, optionally after a real delay. */
export type ReceiverBehaviour = (request: ReceivedRequest) => { status: number; delayMs?: number };

export const behaviours = {
  succeed: (): ReceiverBehaviour => () => ({ status: 200 }),
  /** Fails the first `n` requests of every event with `status`, then acknowledges. */
  failTimes: (n: number, status = 500): ReceiverBehaviour => (r) => ({ status: r.nth < n ? status : 200 }),
  /** Holds the first `n` requests of every event for `delayMs` (past the mock's timeout), then answers at once. */
  slowTimes: (n: number, delayMs: number): ReceiverBehaviour => (r) => ({ status: 200, delayMs: r.nth < n ? delayMs : 0 }),
  always: (status: number, delayMs = 0): ReceiverBehaviour => () => ({ status, delayMs }),
  /** Fails a share of requests, decided by a seeded generator so runs repeat. */
  flaky: (failureRate: number, seed: number): ReceiverBehaviour => {
    let state = seed >>> 0;
    const next = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 4294967296;
    };
    return () => ({ status: next() < failureRate ? 503 : 200 });
  },
};

export interface WebhookReceiver {
  /** e.g. http://127.0.0.1:54321/hook */
  url: string;
  received: ReceivedRequest[];
  behaviour: ReceiverBehaviour;
  /** Requests answered with a 2xx, in arrival order. */
  acknowledged(): ReceivedRequest[];
  /** Waits (polling, bounded) until `predicate` matches `count` requests; returns them. */
  waitFor(predicate: (request: ReceivedRequest) => boolean, options?: { count?: number; timeoutMs?: number }): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records every delivery and answers as `behaviour` says. */
export async function startWebhookReceiver(behaviour: ReceiverBehaviour = behaviours.succeed()): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const seen = new Map<string, number>();
  const holds = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const eventId = String(req.headers['shipmock-event-id'] ?? '');
      const nth = seen.get(eventId) ?? 0;
      seen.set(eventId, nth + 1);
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const request: ReceivedRequest = { headers: req.headers, rawBody, body, eventId, nth, attempt: Number(req.headers['shipmock-delivery-attempt']) };
      received.push(request);
      const answer = receiver.behaviour(request);
      const send = (response: ServerResponse) => {
        request.status = answer.status;
        response.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.status < 300 ? 'ok' : 'nope');
      };
      if (!answer.delayMs) return send(res);
      const hold = setTimeout(() => {
        holds.delete(hold);
        if (!res.destroyed) send(res);
      }, answer.delayMs);
      holds.add(hold);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    behaviour,
    acknowledged: () => received.filter((r) => r.status !== undefined && r.status < 300),
    async waitFor(predicate, options = {}) {
      const count = options.count ?? 1;
      await waitUntil(() => received.filter(predicate).length >= count, options.timeoutMs ?? 5_000, `${count} matching webhook request(s)`);
      return received.filter(predicate);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const hold of holds) clearTimeout(hold);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  // Closed when the test (or file) that started it is done; closing twice is harmless.
  releaseWhenDone(receiver.close);
  return receiver;
}

/** A URL on which nothing listens: a port bound and released again, so connecting is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

/** Polls `condition` every `intervalMs` until it holds; fails with `what` after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 5_000, what = 'condition', intervalMs = 2): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until webhook delivery has nothing left to do without a clock move — on every channel
 * the oldest unfinished delivery (its queue's head) waits out a backoff, or there is none — so
 * the receiver has seen every POST that was coming: the event a test asserting "nothing more
 * arrived" waits for, instead of sleeping.
 */
export async function deliveriesSettled(mock: Pick<MockHandles, 'webhooks'>, timeoutMs = 5_000): Promise<void> {
  const unfinished = () => (['PENDING', 'IN_FLIGHT', 'RETRYING'] as const).flatMap((status) => mock.webhooks.deliveries({ status, limit: 1000 }).items);
  const settled = () => {
    const heads = new Map<string, Delivery>();
    for (const d of unfinished()) {
      const head = heads.get(d.channelId);
      if (!head || d.seq < head.seq) heads.set(d.channelId, d);
    }
    return [...heads.values()].every((d) => d.status === 'RETRYING');
  };
  await waitUntil(settled, timeoutMs, 'webhook deliveries to settle');
}

/**
 * Drives a manual-clock mock through webhook retries: whenever a delivery waits out a backoff,
 * the clock jumps to its due time, until `done()` holds (bounded by real `timeoutMs`).
 */
export async function driveDeliveries(mock: Pick<MockHandles, 'webhooks' | 'clock'>, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms driving webhook deliveries`);
    const due = mock.webhooks
      .deliveries({ status: 'RETRYING', limit: 1000 })
      .items.map((d: Delivery) => Date.parse(d.nextAttemptAt!))
      .reduce((a, b) => Math.min(a, b), Infinity);
    if (Number.isFinite(due)) mock.clock.advance(Math.max(0, due - mock.clock.epochMs()));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Makes a manual clock jump to every timer's due time as soon as the timer is set, so webhook
 * retries run back to back without a polling loop in between (used by the load test).
 * Returns a function that restores the clock.
 */
export function autoAdvanceClock(clock: Clock): () => void {
  const setTimer = clock.setTimer;
  clock.setTimer = (atMs, fn) => {
    const cancel = setTimer(atMs, fn);
    queueMicrotask(() => clock.advance(Math.max(0, atMs - clock.now())));
    return cancel;
  };
  return () => {
    clock.setTimer = setTimer;
  };
}

/** Deliveries of one channel, oldest first. */
export function deliveriesOf(mock: Pick<MockHandles, 'webhooks'>, channelId: string): Delivery[] {
  return mock.webhooks.deliveries({ channelId, limit: 1000 }).items.reverse();
}

/**
 * Receiver-side signature check, as the README (section `events`) shows it, minus the age
 * check: tests run on a manual clock whose `t` is not wall-clock time.
 */
export function verifyShipmockSignature(secret: string, header: string | string[] | undefined, rawBody: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header ?? ''));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}
