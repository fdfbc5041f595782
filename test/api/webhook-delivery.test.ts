import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/events/delivery-log.js';
import type { PayloadOf } from '../../src/events/event-bus.js';
import { backoffDelay } from '../../src/events/retry-schedule.js';
import { startMock } from '../../src/server/start-mock.js';
import { companyToken, createHarness, harnessWithAccount, newAccount, type Harness, type TestAccount, harnessInternals } from '../support/harness.js';
import { schemaErrors } from '../support/shipping-fixtures.js';
import {
  deliveriesSettled,
  autoAdvanceClock,
  behaviours,
  closedPortUrl,
  deliveriesOf,
  driveDeliveries,
  startWebhookReceiver,
  waitUntil,
  type ReceivedRequest,
} from '../support/webhook-receiver.js';

const SECRET = 'whsec_0123456789abcdef';
const FINISHED = new Set(['DELIVERED', 'FAILED', 'CANCELLED']);

/** The README's verification snippet, loaded from the README itself so the two cannot drift. */
type Verify = (secret: string, header: string | undefined, rawBody: string, nowSeconds?: number) => boolean;
async function loadReadmeVerifier(): Promise<Verify> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('<!-- section:events -->'), readme.indexOf('<!-- /section:events -->'));
  const block = /```js\n([\s\S]*?verifyShipmockSignature[\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README section events has no verifyShipmockSignature snippet');
  const file = join(mkdtempSync(join(tmpdir(), 'shipmock-readme-')), 'verify.mjs');
  writeFileSync(file, block[1]);
  return (await import(pathToFileURL(file).href)).verifyShipmockSignature as Verify;
}

function addressBody(name: string) {
  return { name, street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
}

describe('webhook delivery', () => {
  let h: Harness;
  let account: TestAccount;
  let verify: Verify;

  beforeAll(async () => {
    verify = await loadReadmeVerifier();
  });
  // Harnesses and receivers made in a test are disposed of when it ends (support/lifetime.ts).
  async function setUp(options: Parameters<typeof createHarness>[0] = {}) {
    ({ h, account } = await harnessWithAccount(options));
  }

  async function channel(url: string, topics: string[] = ['ADDRESS'], extra: Record<string, unknown> = {}, auth = account.auth) {
    const res = await h.http
      .post('/v1/event-channels')
      .set('Authorization', auth)
      .send({ name: 'hooks', topics, webhook: { url, secret: SECRET, headers: { 'X-Api-Key': 'key-1234' } }, ...extra });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function createAddress(name = 'Erika Mustermann') {
    const res = await h.http.post('/v1/addresses').set('Authorization', account.auth).send(addressBody(name));
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const finished = (channelId: string, count: number) => () => {
    const list = deliveriesOf(h, channelId);
    return list.length >= count && list.every((d) => FINISHED.has(d.status));
  };

  const nowSeconds = () => h.clock.epochMs() / 1000;

  it('delivers a state change made through the API, signed, with the contract envelope and headers', async () => {
    await setUp();
    const r = await startWebhookReceiver();
    const channelId = await channel(r.url);
    const addressId = await createAddress();
    const [hit] = await r.waitFor(() => true);

    expect(hit.body).toEqual({
      id: expect.any(String),
      topic: 'ADDRESS',
      type: 'CREATED',
      accountId: account.accountId,
      createdAt: '2026-01-01T00:00:00.000Z',
      payload: (await h.http.get(`/v1/addresses/${addressId}`).set('Authorization', account.auth)).body,
    });
    expect(schemaErrors(h, 'Event', hit.body)).toEqual([]);
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-api-key']).toBe('key-1234');
    expect(hit.headers['shipmock-event-id']).toBe(hit.body.id);
    expect(hit.headers['shipmock-delivery-attempt']).toBe('1');
    expect(hit.headers['shipmock-signature']).toMatch(/^t=1767225600,v1=[0-9a-f]{64}$/);
    expect(verify(SECRET, hit.headers['shipmock-signature'] as string, hit.rawBody, nowSeconds())).toBe(true);
    // a wrong secret, a changed body or a stale timestamp do not verify
    expect(verify('whsec_not-the-right-one', hit.headers['shipmock-signature'] as string, hit.rawBody, nowSeconds())).toBe(false);
    expect(verify(SECRET, hit.headers['shipmock-signature'] as string, hit.rawBody.replace('Erika', 'Erica'), nowSeconds())).toBe(false);
    expect(verify(SECRET, hit.headers['shipmock-signature'] as string, hit.rawBody, nowSeconds() + 301)).toBe(false);

    await waitUntil(finished(channelId, 1));
    const [delivery] = deliveriesOf(h, channelId);
    expect(delivery).toMatchObject({ status: 'DELIVERED', eventId: hit.body.id, topic: 'ADDRESS', type: 'CREATED', accountId: account.accountId });
    expect(hit.headers['shipmock-delivery-id']).toBe(delivery.id);
    // The marker every request a shipmock sends carries (a mock refuses it: no webhook loops).
    expect(hit.headers['shipmock-sender']).toBe('webhook');
    expect(delivery.attempts).toEqual([
      {
        attempt: 1,
        at: '2026-01-01T00:00:00.000Z',
        url: r.url,
        statusCode: 200,
        latencyMs: expect.any(Number),
        // What was sent, as the inspector shows it: the channel's own header values are shortened.
        requestHeaders: {
          'Content-Type': 'application/json',
          'Shipmock-Event-Id': hit.body.id,
          'Shipmock-Delivery-Id': delivery.id,
          'Shipmock-Delivery-Attempt': '1',
          'Shipmock-Signature': hit.headers['shipmock-signature'],
          'Shipmock-Sender': 'webhook',
          'X-Api-Key': 'ke…',
        },
        responseHeaders: expect.objectContaining({ 'content-type': 'text/plain', connection: 'close' }),
      },
    ]);
  });

  it('delivers CREATED, UPDATED and DELETED of one resource in order; DELETED carries the resource', async () => {
    await setUp();
    const r = await startWebhookReceiver();
    await channel(r.url);
    const id = await createAddress();
    await h.http.put(`/v1/addresses/${id}`).set('Authorization', account.auth).send(addressBody('Renamed'));
    await h.http.delete(`/v1/addresses/${id}`).set('Authorization', account.auth);
    const hits = await r.waitFor(() => true, { count: 3 });
    expect(hits.map((x) => x.body.type)).toEqual(['CREATED', 'UPDATED', 'DELETED']);
    expect(hits[2].body.payload).toMatchObject({ id, name: 'Renamed' });
  });

  it('one clock advance past several due retries makes every one of them, in order (README, Time travel)', async () => {
    await setUp({ webhooks: { maxAttempts: 4 } });
    const r = await startWebhookReceiver(behaviours.always(500));
    const channelId = await channel(r.url);
    await createAddress();
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'RETRYING');
    h.clock.advance(86_400_000);
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'FAILED', 5_000, 'the delivery to use up its attempts');
    const [delivery] = deliveriesOf(h, channelId);
    expect(delivery.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(r.received).toHaveLength(4);
  });

  it('retries a receiver that fails N times, with backoff on the mock clock, keeping channel order', async () => {
    await setUp();
    const r = await startWebhookReceiver(behaviours.failTimes(3, 500));
    const channelId = await channel(r.url);
    await createAddress('first');
    await createAddress('second');
    await createAddress('third');

    // Nothing moves past the first failure until the clock does: the retry waits on it.
    await r.waitFor(() => true);
    await waitUntil(() => deliveriesOf(h, channelId)[0].status === 'RETRYING');
    await deliveriesSettled(h);
    expect(r.received).toHaveLength(1);

    await driveDeliveries(h, finished(channelId, 3));
    const names = r.received.map((x) => x.body.payload.name);
    expect(names).toEqual([...Array(4).fill('first'), ...Array(4).fill('second'), ...Array(4).fill('third')]);
    expect(r.received.map((x) => x.attempt)).toEqual([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]);
    for (const hit of r.received) {
      // each attempt signs with its own timestamp; all verify against the mock clock of that moment
      expect(verify(SECRET, hit.headers['shipmock-signature'] as string, hit.rawBody, Number(/t=(\d+)/.exec(hit.headers['shipmock-signature'] as string)![1]))).toBe(true);
    }

    for (const delivery of deliveriesOf(h, channelId)) {
      expect(delivery.status).toBe('DELIVERED');
      expect(delivery.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 200]);
      const times = delivery.attempts.map((a) => Date.parse(a.at));
      for (let n = 1; n < times.length; n++) {
        const wait = times[n] - times[n - 1];
        expect(wait).toBe(backoffDelay({ seed: 1, retryBaseMs: 1000, jitter: 0.2 }, delivery.id, n));
        expect(wait).toBeGreaterThanOrEqual(0.8 * 1000 * 2 ** (n - 1));
        expect(wait).toBeLessThanOrEqual(1.2 * 1000 * 2 ** (n - 1));
      }
    }
  });

  it('times out a slow receiver and retries until it answers in time', async () => {
    await setUp({ webhooks: { timeoutMs: 400 } });
    const r = await startWebhookReceiver(behaviours.slowTimes(2, 2_000));
    const channelId = await channel(r.url);
    await createAddress();
    await driveDeliveries(h, finished(channelId, 1));
    const [delivery] = deliveriesOf(h, channelId);
    expect(delivery.status).toBe('DELIVERED');
    expect(delivery.attempts.map((a) => a.errorCode ?? a.statusCode)).toEqual(['TIMEOUT', 'TIMEOUT', 200]);
    for (const a of delivery.attempts.slice(0, 2)) expect(a.latencyMs).toBeGreaterThanOrEqual(390);
    expect(r.received).toHaveLength(3);
  });

  it('dead-letters a refused connection after 6 attempts, then redelivers on demand to the fixed URL', async () => {
    await setUp();
    const dead = await closedPortUrl();
    const channelId = await channel(dead);
    await createAddress();
    await driveDeliveries(h, finished(channelId, 1));
    const [delivery] = deliveriesOf(h, channelId);
    expect(delivery.status).toBe('FAILED');
    expect(delivery.nextAttemptAt).toBeUndefined();
    expect(delivery.attempts).toHaveLength(6);
    expect(delivery.attempts.every((a) => a.errorCode === 'ECONNREFUSED' && a.url === dead && a.statusCode === undefined)).toBe(true);

    const failed = await h.http.get(`/__admin/deliveries?status=FAILED&channel_id=${channelId}`);
    expect(failed.body.items.map((d: Delivery) => d.id)).toEqual([delivery.id]);
    expect(failed.body.items[0].attemptCount).toBe(6);

    const r = await startWebhookReceiver();
    const put = await h.http
      .put(`/v1/event-channels/${channelId}`)
      .set('Authorization', account.auth)
      .send({ name: 'hooks', topics: ['ADDRESS'], webhook: { url: r.url, secret: SECRET } });
    expect(put.status).toBe(204);
    const redeliver = await h.http.post(`/__admin/deliveries/${delivery.id}/redeliver`).set('X-Shipmock-Admin', '1');
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id: delivery.id, status: 'PENDING', redeliveries: 1 });
    const [hit] = await r.waitFor(() => true);
    expect(hit.headers['shipmock-delivery-attempt']).toBe('7');
    expect(hit.headers['shipmock-event-id']).toBe(delivery.eventId);
    await waitUntil(finished(channelId, 1));
    const after = await h.http.get(`/__admin/deliveries/${delivery.id}`);
    expect(after.body).toMatchObject({ status: 'DELIVERED', attemptCount: 7, redeliveries: 1, event: { id: delivery.eventId, topic: 'ADDRESS' } });
    expect(after.body.attempts[6]).toMatchObject({ attempt: 7, url: r.url, statusCode: 200 });
  });

  it('cancels a delivery waiting for a retry, and the queue behind it, when the channel is deleted', async () => {
    await setUp();
    const r = await startWebhookReceiver(behaviours.always(500));
    const channelId = await channel(r.url);
    await createAddress('first');
    await createAddress('second');
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'RETRYING');
    expect((await h.http.delete(`/v1/event-channels/${channelId}`).set('Authorization', account.auth)).status).toBe(204);
    const [first, second] = deliveriesOf(h, channelId);
    expect(first).toMatchObject({ status: 'CANCELLED', reason: 'the Event Channel was deleted' });
    expect(first.attempts).toHaveLength(1);
    expect(second).toMatchObject({ status: 'CANCELLED', attempts: [] });
    h.clock.advance(3_600_000);
    await deliveriesSettled(h);
    expect(r.received).toHaveLength(1);
    // a cancelled delivery of a deleted channel cannot be redelivered
    expect((await h.http.post(`/__admin/deliveries/${first.id}/redeliver`).set('X-Shipmock-Admin', '1')).status).toBe(409);
  });

  it('cancels what is owed to the channels of a deleted account', async () => {
    await setUp();
    const r = await startWebhookReceiver(behaviours.always(500));
    const channelId = await channel(r.url);
    await createAddress();
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'RETRYING');
    expect((await h.http.delete(`/v1/accounts/${account.accountId}`).set('Authorization', account.companyAuth)).status).toBe(204);
    expect(deliveriesOf(h, channelId)[0]).toMatchObject({ status: 'CANCELLED', reason: 'the Account was deleted' });
    expect(harnessInternals(h).runtime.store.hasAccount(account.accountId)).toBe(false);
  });

  it.each([
    [200, 'DELIVERED'],
    [503, 'CANCELLED'],
  ])('lets an attempt in flight finish when the channel is deleted: receiver answers %i → %s', async (status, outcome) => {
    await setUp();
    const r = await startWebhookReceiver(behaviours.always(status, 800));
    const channelId = await channel(r.url);
    await createAddress();
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'IN_FLIGHT' && r.received.length === 1);
    await h.http.delete(`/v1/event-channels/${channelId}`).set('Authorization', account.auth);
    expect(deliveriesOf(h, channelId)[0].status).toBe('IN_FLIGHT');
    await waitUntil(finished(channelId, 1), 3_000);
    const [delivery] = deliveriesOf(h, channelId);
    expect(delivery.status).toBe(outcome);
    expect(delivery.attempts).toHaveLength(1);
    h.clock.advance(3_600_000);
    await deliveriesSettled(h);
    expect(r.received).toHaveLength(1);
  });

  it('sends only subscribed topics to enabled channels; no secret, no signature', async () => {
    await setUp();
    const r = await startWebhookReceiver();
    const unsigned = await h.http
      .post('/v1/event-channels')
      .set('Authorization', account.auth)
      .send({ name: 'plain', topics: ['ADDRESS'], webhook: { url: r.url } });
    const disabled = await channel(r.url, ['ADDRESS'], { enabled: false });
    const otherTopic = await channel(r.url, ['TRACKER']);
    await createAddress();
    const [hit] = await r.waitFor(() => true);
    await deliveriesSettled(h);
    expect(r.received).toHaveLength(1);
    expect(hit.headers['shipmock-signature']).toBeUndefined();
    expect(hit.headers['shipmock-delivery-id']).toBe(deliveriesOf(h, unsigned.body.id)[0].id);
    expect(deliveriesOf(h, disabled)).toEqual([]);
    expect(deliveriesOf(h, otherTopic)).toEqual([]);
  });

  it('delivers a billing USAGE event published on the bus to a channel subscribed to its topic', async () => {
    await setUp();
    const r = await startWebhookReceiver();
    await channel(r.url, ['PARCEL']);
    const event = h.events.publish({
      topic: 'PARCEL',
      type: 'USAGE',
      accountId: account.accountId,
      payload: { operation: 'CONSUME', topic: 'PARCEL', tokens: 1, reference: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
    });
    const [hit] = await r.waitFor(() => true);
    expect(hit.body).toEqual(event);
    expect(schemaErrors(h, 'UsageEvent', hit.body)).toEqual([]);
    expect(verify(SECRET, hit.headers['shipmock-signature'] as string, hit.rawBody, nowSeconds())).toBe(true);
  });

  it('delivers a mock event like a real one; a Company-token event reaches every account of the company', async () => {
    await setUp();
    const other = await newAccount(h, { alias: 'Second' });
    const r = await startWebhookReceiver();
    const mine = await channel(r.url, ['CARRIER', 'SHIPMENT_BOOKING']);
    const theirs = await channel(r.url, ['CARRIER'], {}, other.auth);
    const unrelated = await channel(r.url, ['SERVICE'], {}, other.auth);

    const booking = await h.http
      .post('/v1/event-channels/events')
      .set('Authorization', account.auth)
      .send({ topic: 'SHIPMENT_BOOKING_EVENT', type: 'CREATED', payload: { shipmentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', code: 'CREATED', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } });
    expect(booking.status).toBe(201);
    const [hit] = await r.waitFor((x) => x.body.topic === 'SHIPMENT_BOOKING');
    expect(hit.body).toEqual(booking.body);

    const company = await h.http
      .post('/v1/event-channels/events')
      .set('Authorization', await companyToken(h))
      .send({ topic: 'CARRIER', type: 'UPDATED', payload: { status: 'DOWN' } });
    expect(company.status).toBe(201);
    const hits = await r.waitFor((x: ReceivedRequest) => x.body.topic === 'CARRIER', { count: 2 });
    expect(hits.map((x) => x.body)).toEqual([company.body, company.body]);
    await waitUntil(() => [mine, theirs].every((c) => deliveriesOf(h, c).some((d) => d.topic === 'CARRIER' && d.status === 'DELIVERED')));
    expect(deliveriesOf(h, theirs)[0].accountId).toBe(other.accountId);
    expect(deliveriesOf(h, unrelated)).toEqual([]);
  });

  it('serves the delivery log over /__admin with filters, newest first, paged', async () => {
    await setUp();
    const r = await startWebhookReceiver();
    const a = await channel(r.url, ['ADDRESS']);
    const b = await channel(r.url, ['ADDRESS', 'EVENT_CHANNEL']);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1_000);
      await createAddress(`n${i}`);
    }
    // b also hears its own EVENT_CHANNEL CREATED: 3 deliveries to a, 4 to b
    await waitUntil(() => finished(a, 3)() && finished(b, 4)());
    expect(r.received).toHaveLength(7);

    const all = await h.http.get('/__admin/deliveries');
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(7);
    const created = all.body.items.map((d: Delivery) => d.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(all.body.items.at(-1)).toMatchObject({ channelId: b, topic: 'EVENT_CHANNEL', type: 'CREATED' });
    expect(all.body.counts).toMatchObject({ DELIVERED: 7, FAILED: 0, PENDING: 0 });
    expect(all.body.items[0].event).toBeUndefined();

    const byChannel = await h.http.get(`/__admin/deliveries?channel_id=${a}&limit=2`);
    expect(byChannel.body.items.map((d: Delivery) => d.channelId)).toEqual([a, a]);
    expect(byChannel.body.items.map((d: Delivery) => d.event)).toEqual([undefined, undefined]);
    const page2 = await h.http.get(`/__admin/deliveries?channel_id=${a}&limit=2&cursor=${byChannel.body.nextCursor}`);
    expect(page2.body.items).toHaveLength(1);
    expect(page2.body.nextCursor).toBeUndefined();
    const names = [...byChannel.body.items, ...page2.body.items].map((d: Delivery) => (h.webhooks.delivery(d.id)!.event.payload as { name?: string }).name);
    expect(names).toEqual(['n2', 'n1', 'n0']);

    expect((await h.http.get(`/__admin/deliveries?account_id=${account.accountId}&topic=ADDRESS&status=DELIVERED`)).body.items).toHaveLength(6);
    expect((await h.http.get(`/__admin/deliveries?account_id=${b}`)).body.items).toEqual([]);
    expect((await h.http.get('/__admin/deliveries?topic=TRACKER')).body.items).toEqual([]);
    expect((await h.http.get('/__admin/deliveries?status=FAILED')).body.items).toEqual([]);

    for (const bad of ['status=LOST', 'limit=0', 'limit=1001', 'cursor=garbage', 'channel=x', 'status=FAILED&status=DELIVERED']) {
      const res = await h.http.get(`/__admin/deliveries?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.headers['content-type'], bad).toMatch(/^application\/problem\+json/);
      expect(res.body.type, bad).toBe('https://shipmock.dev/problems/validation-error');
      expect(res.body.detail, bad).toEqual(expect.any(String));
    }
    expect((await h.http.get('/__admin/deliveries/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11')).status).toBe(404);
    expect((await h.http.post('/__admin/deliveries/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11/redeliver').set('X-Shipmock-Admin', '1')).status).toBe(404);
  });

  it('redelivers a delivered event again (same event id), but not one still pending', async () => {
    await setUp();
    const r = await startWebhookReceiver(behaviours.always(500));
    const channelId = await channel(r.url);
    await createAddress();
    await waitUntil(() => deliveriesOf(h, channelId)[0]?.status === 'RETRYING');
    const [delivery] = deliveriesOf(h, channelId);
    const refused = await h.http.post(`/__admin/deliveries/${delivery.id}/redeliver`).set('X-Shipmock-Admin', '1');
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('https://shipmock.dev/problems/conflict');
    expect(refused.body.detail).toContain('RETRYING');
    r.behaviour = behaviours.succeed();
    await driveDeliveries(h, finished(channelId, 1));
    expect((await h.http.post(`/__admin/deliveries/${delivery.id}/redeliver`).set('X-Shipmock-Admin', '1')).status).toBe(202);
    await waitUntil(() => r.acknowledged().length === 2);
    expect(r.acknowledged().map((x) => x.eventId)).toEqual([delivery.eventId, delivery.eventId]);
  });
});

describe('webhook delivery under load', () => {
  it('accounts for every one of 1,000 events on 5 channels, one receiver failing ~30%', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const steady = await Promise.all([1, 2, 3, 4].map(() => startWebhookReceiver()));
    const flaky = await startWebhookReceiver(behaviours.flaky(0.3, 42));
    const channelIds: string[] = [];
    for (const r of [...steady, flaky]) {
      const res = await h.http
        .post('/v1/event-channels')
        .set('Authorization', account.auth)
        .send({ name: 'load', topics: ['PARCEL'], webhook: { url: r.url, secret: SECRET } });
      channelIds.push(res.body.id);
    }
    const events = Array.from({ length: 1000 }, (_, i) =>
      h.events.publish({ topic: 'PARCEL', type: 'USAGE', accountId: account.accountId, payload: { operation: 'CONSUME', topic: 'PARCEL', tokens: 1, n: i } as unknown as PayloadOf<'PARCEL'> }),
    );
    const started = Date.now();
    const cpu0 = process.cpuUsage();
    // Each retry's backoff is skipped by jumping the clock to its due time the moment it is set.
    const restoreClock = autoAdvanceClock(harnessInternals(h).runtime.clock);
    await waitUntil(
      () => channelIds.every((id) => {
        const page = h.webhooks.deliveries({ channelId: id, limit: 1 });
        return page.counts.DELIVERED + page.counts.FAILED + page.counts.CANCELLED === 1000;
      }),
      // about 3–4 s on an idle 2-core machine; the margin is for a machine busy with other suites
      60_000,
      'all 5,000 deliveries to finish',
      50,
    );
    restoreClock();
    const elapsed = Date.now() - started;
    const cpu = process.cpuUsage(cpu0);

    const eventIds = events.map((e) => e.id);
    for (const [i, id] of channelIds.entries()) {
      const deliveries = deliveriesOf(h, id);
      expect(deliveries.map((d) => d.eventId)).toEqual(eventIds);
      for (const d of deliveries) {
        if (d.status === 'FAILED') expect(d.attempts).toHaveLength(6);
        else expect(d.status).toBe('DELIVERED');
        expect(d.attempts.at(-1)!.statusCode === 200).toBe(d.status === 'DELIVERED');
      }
      const receiver = i < 4 ? steady[i] : flaky;
      // acknowledged deliveries arrive exactly in publish order (FAILED ones are simply absent)
      const delivered = deliveries.filter((d) => d.status === 'DELIVERED').map((d) => d.eventId);
      expect(receiver.acknowledged().map((x) => x.eventId)).toEqual(delivered);
    }
    const flakyDeliveries = deliveriesOf(h, channelIds[4]);
    const retried = flakyDeliveries.filter((d) => d.attempts.length > 1).length;
    expect(retried).toBeGreaterThan(200);
    // the retries really waited on the mock clock: it moved by at least the sum of the backoffs
    expect(h.clock.epochMs() - Date.parse('2026-01-01T00:00:00.000Z')).toBeGreaterThanOrEqual(retried * 800);
    expect(flaky.received.length).toBe(flakyDeliveries.reduce((sum, d) => sum + d.attempts.length, 0));
    console.info(`load: 5,000 deliveries (${flaky.received.length} attempts on the flaky channel, ${retried} retried, ${flakyDeliveries.filter((d) => d.status === 'FAILED').length} failed) in ${elapsed} ms wall, ${Math.round((cpu.user + cpu.system) / 1000)} ms CPU`);

    h.dispose();
    await Promise.all([...steady, flaky].map((r) => r.close()));
  }, 90_000);
});

describe('shutdown', () => {
  it('close() stops retries and leaves no timer or socket of the mock behind', async () => {
    const mock = await startMock({ port: 0, logLevel: 'silent', webhooks: { retryBaseMs: 60_000 } });
    const before = process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;
    const h = { http: (await import('supertest')).default(mock.url) };
    const auth = await (async () => {
      const basic = `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`;
      const company = await h.http.post(`/v1/companies/${mock.credentials.companyId}/tokens`).set('Authorization', basic).send({ grantType: 'client_credentials' });
      const acc = await h.http.post('/v1/accounts').set('Authorization', `Bearer ${company.body.accessToken}`).send({
        company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
        contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
      });
      const token = await h.http.post(`/v1/accounts/${acc.body.id}/tokens`).set('Authorization', basic).send({ grantType: 'client_credentials' });
      return `Bearer ${token.body.accessToken}`;
    })();
    const res = await h.http.post('/v1/event-channels').set('Authorization', auth).send({ name: 'x', topics: ['ADDRESS'], webhook: { url: await closedPortUrl() } });
    await h.http.post('/v1/addresses').set('Authorization', auth).send(addressBody('A'));
    await waitUntil(() => mock.webhooks.deliveries({ channelId: res.body.id, limit: 1 }).items[0]?.status === 'RETRYING');
    await mock.close();
    const [delivery] = mock.webhooks.deliveries({ channelId: res.body.id, limit: 1 }).items;
    expect(delivery).toMatchObject({ status: 'CANCELLED', reason: 'the mock shut down' });
    // The retry's timer goes with the mock (the check waits for it, bounded, instead of sleeping).
    const timers = () => process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;
    await waitUntil(() => timers() <= before, 2_000, 'the mock’s timers to be cleared').catch(() => undefined);
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
