import { describe, expect, it } from 'vitest';
import { createClock } from '../clock/clock.js';
import { createLogger } from '../logging/logger.js';
import { createRandom } from '../random/random.js';
import { createStore } from '../store/store.js';
import { createChannelSource, EVENT_CHANNELS, type SubscribedChannel } from '../resources/event-channels/subscribed-channels.js';
import { createEventBus, type EventTopic } from './event-bus.js';
import { createWebhookDispatcher } from './webhook-dispatcher.js';
import { resolveWebhookOptions, type WebhookOptions } from './webhook-options.js';
import type { PostOutcome, WebhookTransport } from './webhook-post.js';

interface Call {
  url: string;
  headers: Record<string, string>;
  body: string;
  answer(outcome: Omit<PostOutcome, 'latencyMs'>): void;
}

/** A transport whose every POST waits until the test answers it. */
function createManualTransport() {
  const calls: Call[] = [];
  let closed = false;
  const transport: WebhookTransport = {
    post: (url, headers, body) =>
      new Promise((resolve) => calls.push({ url, headers, body, answer: (outcome) => resolve({ ...outcome, latencyMs: 1 }) })),
    close: () => {
      closed = true;
    },
  };
  return { transport, calls, isClosed: () => closed };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function setUp(options: WebhookOptions = {}) {
  const clock = createClock({ mode: 'manual' });
  const random = createRandom(1);
  const store = createStore();
  const events = createEventBus({ clock, random });
  const manual = createManualTransport();
  const dispatcher = createWebhookDispatcher({
    clock,
    random,
    events,
    channels: createChannelSource(store),
    logger: createLogger({ level: 'silent', format: 'json' }),
    options: resolveWebhookOptions(options),
    transport: manual.transport,
  });
  const addChannel = (accountId: string, id: string, topics = ['ADDRESS'], enabled = true) =>
    store.account(accountId).collection<SubscribedChannel>(EVENT_CHANNELS).insert({ id, topics, enabled, webhook: { url: `http://hooks.test/${id}` } });
  const publish = (accountId: string, n: number, topic: EventTopic = 'ADDRESS') => events.publishMock({ topic, type: 'CREATED', accountId, payload: { n } });
  return { clock, store, events, dispatcher, addChannel, publish, ...manual };
}

describe('webhook dispatcher', () => {
  it('keeps one delivery in flight per channel and channels independent', async () => {
    const t = setUp();
    t.addChannel('acc', 'ch-1');
    t.addChannel('acc', 'ch-2');
    t.publish('acc', 1);
    t.publish('acc', 2);
    await flush();
    expect(t.calls.map((c) => [c.url, JSON.parse(c.body).payload.n])).toEqual([
      ['http://hooks.test/ch-1', 1],
      ['http://hooks.test/ch-2', 1],
    ]);
    t.calls[0].answer({ statusCode: 204 });
    await flush();
    expect(t.calls.map((c) => [c.url, JSON.parse(c.body).payload.n])).toEqual([
      ['http://hooks.test/ch-1', 1],
      ['http://hooks.test/ch-2', 1],
      ['http://hooks.test/ch-1', 2],
    ]);
  });

  it('holds the queue while retrying and dead-letters after maxAttempts', async () => {
    const t = setUp({ maxAttempts: 3 });
    t.addChannel('acc', 'ch');
    t.publish('acc', 1);
    t.publish('acc', 2);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await flush();
      expect(t.calls).toHaveLength(attempt);
      expect(t.calls[attempt - 1].headers['Shipmock-Delivery-Attempt']).toBe(String(attempt));
      t.calls[attempt - 1].answer({ statusCode: 500 });
      await flush();
      t.clock.advance(60_000);
    }
    await flush();
    const [second, first] = t.dispatcher.list({ limit: 10 }).items;
    expect(first).toMatchObject({ status: 'FAILED' });
    expect(first.attempts).toHaveLength(3);
    expect(second.status).toBe('IN_FLIGHT');
    expect(JSON.parse(t.calls[3].body).payload.n).toBe(2);
  });

  it('does not deliver to disabled channels or other topics', async () => {
    const t = setUp();
    t.addChannel('acc', 'off', ['ADDRESS'], false);
    t.addChannel('acc', 'tracker', ['TRACKER']);
    t.addChannel('other', 'foreign');
    t.publish('acc', 1);
    await flush();
    expect(t.calls).toEqual([]);
    expect(t.dispatcher.list({ limit: 10 }).items).toEqual([]);
  });

  it('fans a company-wide event out to every account of the company', async () => {
    const t = setUp();
    for (const id of ['acc-1', 'acc-2']) t.store.company('co').collection('accounts').insert({ id });
    t.addChannel('acc-1', 'ch-1', ['CARRIER']);
    t.addChannel('acc-2', 'ch-2', ['CARRIER']);
    t.addChannel('acc-3', 'ch-3', ['CARRIER']);
    t.events.publishMock({ topic: 'CARRIER', type: 'UPDATED', companyId: 'co', payload: {} });
    await flush();
    expect(t.calls.map((c) => c.url).sort()).toEqual(['http://hooks.test/ch-1', 'http://hooks.test/ch-2']);
  });

  it('cancels what is owed to a deleted account', async () => {
    const t = setUp();
    t.addChannel('acc', 'ch');
    t.publish('acc', 1);
    t.publish('acc', 2);
    await flush();
    t.calls[0].answer({ errorCode: 'ECONNREFUSED', error: 'refused' });
    await flush();
    t.store.reset('acc');
    t.events.publishMock({ topic: 'ACCOUNT', type: 'DELETED', accountId: 'acc', payload: {} });
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => d.status)).toEqual(['CANCELLED', 'CANCELLED']);
    t.clock.advance(3_600_000);
    await flush();
    expect(t.calls).toHaveLength(1);
  });

  it('a mock ACCOUNT/DELETED event cancels nothing while the channels still exist', async () => {
    const t = setUp();
    t.addChannel('acc', 'ch');
    t.publish('acc', 1);
    await flush();
    t.events.publishMock({ topic: 'ACCOUNT', type: 'DELETED', accountId: 'acc', payload: {} });
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => d.status)).toEqual(['IN_FLIGHT']);
  });

  it('does not bring a deleted account\'s scope back when its events are routed', () => {
    const t = setUp();
    t.addChannel('acc', 'ch');
    t.store.reset('acc');
    t.events.publishMock({ topic: 'ACCOUNT', type: 'DELETED', accountId: 'acc', payload: {} });
    expect(t.store.hasAccount('acc')).toBe(false);
  });

  it('cancels a queued delivery whose channel vanished without a delete (store reset)', async () => {
    const t = setUp();
    t.addChannel('acc', 'ch');
    t.publish('acc', 1);
    t.publish('acc', 2);
    await flush();
    t.store.reset('acc');
    t.calls[0].answer({ statusCode: 200 });
    await flush();
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => d.status)).toEqual(['CANCELLED', 'DELIVERED']);
  });

  it('reset(accountId) forgets that account only', async () => {
    const t = setUp();
    t.addChannel('a', 'ch-a');
    t.addChannel('b', 'ch-b');
    t.publish('a', 1);
    t.publish('b', 1);
    await flush();
    t.dispatcher.reset('a');
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => d.accountId)).toEqual(['b']);
    t.calls[0].answer({ statusCode: 200 });
    await flush();
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => d.accountId)).toEqual(['b']);
  });

  it('dispose cancels unfinished deliveries, closes the transport and ignores later events', async () => {
    const t = setUp();
    t.addChannel('acc', 'ch');
    t.publish('acc', 1);
    t.publish('acc', 2);
    await flush();
    t.dispatcher.dispose();
    expect(t.isClosed()).toBe(true);
    expect(t.dispatcher.list({ limit: 10 }).items.map((d) => [d.status, d.reason])).toEqual([
      ['CANCELLED', 'the mock shut down'],
      ['CANCELLED', 'the mock shut down'],
    ]);
    t.publish('acc', 3);
    t.calls[0].answer({ statusCode: 200 });
    await flush();
    expect(t.dispatcher.list({ limit: 10 }).items).toHaveLength(2);
    expect(t.calls).toHaveLength(1);
  });
});

describe('webhook dispatcher: nothing escapes background work', () => {
  function withTransport(transport: WebhookTransport, options: WebhookOptions = {}) {
    const clock = createClock({ mode: 'manual' });
    const random = createRandom(1);
    const store = createStore();
    const events = createEventBus({ clock, random });
    const dispatcher = createWebhookDispatcher({
      clock,
      random,
      events,
      channels: createChannelSource(store),
      logger: createLogger({ level: 'silent', format: 'json' }),
      options: resolveWebhookOptions({ maxAttempts: 2, ...options }),
      transport,
    });
    const channels = store.account('acc').collection<SubscribedChannel>(EVENT_CHANNELS);
    return { clock, events, dispatcher, channels };
  }

  /** Fails the test on any uncaught exception or unhandled rejection while `run` goes on. */
  async function noUncaught(run: () => Promise<void>): Promise<void> {
    const escaped: unknown[] = [];
    const record = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
    try {
      await run();
      await flush();
    } finally {
      process.off('uncaughtException', record);
      process.off('unhandledRejection', record);
    }
    expect(escaped).toEqual([]);
  }

  it.each([
    ['throws synchronously', () => { throw new TypeError('boom: sync'); }, 'boom: sync'],
    ['rejects', () => Promise.reject(Object.assign(new Error('boom: async'), { code: 'EBOOM' })), 'boom: async'],
  ])('a transport that %s is a failed attempt, retried, then a dead letter', async (_how, post, message) => {
    await noUncaught(async () => {
      const t = withTransport({ post: post as WebhookTransport['post'], close: () => undefined });
      t.channels.insert({ id: 'ch', topics: ['ADDRESS'], enabled: true, webhook: { url: 'http://hooks.test/x' } });
      t.events.publishMock({ topic: 'ADDRESS', type: 'CREATED', accountId: 'acc', payload: {} });
      await flush();
      t.clock.advance(60_000);
      await flush();
      const [delivery] = t.dispatcher.list({ limit: 10 }).items;
      expect(delivery.status).toBe('FAILED');
      expect(delivery.attempts).toHaveLength(2);
      expect(delivery.attempts[0]).toMatchObject({ error: message });
    });
  });

  it.each([
    ['https://', 'INVALID_URL'],
    ['http://127.0.0.1:99999/x', 'INVALID_URL'],
    ['not a url', 'INVALID_URL'],
    ['ftp://files.test/x', 'INVALID_URL'],
  ])('a stored URL %s never reaches the transport: %s attempts, then FAILED', async (url, errorCode) => {
    await noUncaught(async () => {
      const posted: string[] = [];
      const t = withTransport({ post: async (u) => (posted.push(u), { statusCode: 204, latencyMs: 0 }), close: () => undefined });
      t.channels.insert({ id: 'ch', topics: ['ADDRESS'], enabled: true, webhook: { url } });
      t.events.publishMock({ topic: 'ADDRESS', type: 'CREATED', accountId: 'acc', payload: {} });
      await flush();
      t.clock.advance(60_000);
      await flush();
      const [delivery] = t.dispatcher.list({ limit: 10 }).items;
      expect(posted).toEqual([]);
      expect(delivery).toMatchObject({ status: 'FAILED', attempts: [{ errorCode, url }, { errorCode, url }] });
      expect(delivery.attempts[0].error).toContain(JSON.stringify(url));
    });
  });

  it('a header value with CR/LF from old state is an INVALID_HEADER attempt, not a split request', async () => {
    const posted: string[] = [];
    const t = withTransport({ post: async (u) => (posted.push(u), { statusCode: 204, latencyMs: 0 }), close: () => undefined }, { maxAttempts: 1 });
    t.channels.insert({ id: 'ch', topics: ['ADDRESS'], enabled: true, webhook: { url: 'http://hooks.test/x', headers: { 'X-Key': 'a\r\nX-Evil: 1' } } });
    t.events.publishMock({ topic: 'ADDRESS', type: 'CREATED', accountId: 'acc', payload: {} });
    await flush();
    expect(posted).toEqual([]);
    expect(t.dispatcher.list({ limit: 1 }).items[0]).toMatchObject({ status: 'FAILED', attempts: [{ errorCode: 'INVALID_HEADER' }] });
  });

  it('re-checks --webhook-hosts on every attempt; a replaced URL fixes the next retry', async () => {
    const posted: string[] = [];
    const t = withTransport({ post: async (u) => (posted.push(u), { statusCode: 204, latencyMs: 0 }), close: () => undefined }, { allowedHosts: ['*.allowed.test'] });
    t.channels.insert({ id: 'ch', topics: ['ADDRESS'], enabled: true, webhook: { url: 'http://elsewhere.test/x' } });
    t.events.publishMock({ topic: 'ADDRESS', type: 'CREATED', accountId: 'acc', payload: {} });
    await flush();
    const [delivery] = t.dispatcher.list({ limit: 1 }).items;
    expect(delivery).toMatchObject({ status: 'RETRYING', attempts: [{ errorCode: 'HOST_NOT_ALLOWED' }] });
    expect(delivery.attempts[0].error).toContain('elsewhere.test');
    t.channels.update({ id: 'ch', topics: ['ADDRESS'], enabled: true, webhook: { url: 'http://hooks.allowed.test/x' } });
    t.clock.advance(60_000);
    await flush();
    expect(posted).toEqual(['http://hooks.allowed.test/x']);
    expect(delivery.status).toBe('DELIVERED');
  });
});
