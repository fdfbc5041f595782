import { beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../src/events/event-bus.js';
import { companyToken, createHarness, newAccount, type TestAccount, suiteAccounts } from '../support/harness.js';
import { captureEvents } from '../support/shipping-fixtures.js';

const SECRET = 'whsec_0123456789abcdef';

function channelBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Booking updates',
    topics: ['SHIPMENT_BOOKING', 'TRACKER'],
    webhook: { url: 'http://127.0.0.1:9/hook', secret: SECRET, headers: { 'X-Api-Key': 'key-1234' } },
    ...overrides,
  };
}

describe('event channels', () => {
  const h = createHarness();
  const published = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'Second account']);

  async function create(account: TestAccount, body: Record<string, unknown> = channelBody()) {
    const res = await h.http.post('/v1/event-channels').set('Authorization', account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('creates a channel and never returns the secret or header values, only whether a secret is set and which headers', async () => {
    const id = await create(a);
    const res = await h.http.get(`/v1/event-channels/${id}`).set('Authorization', a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      name: 'Booking updates',
      topics: ['SHIPMENT_BOOKING', 'TRACKER'],
      webhook: { url: 'http://127.0.0.1:9/hook', headerNames: ['X-Api-Key'], signed: true },
      enabled: true,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(JSON.stringify(res.body)).not.toContain('key-1234');
  });

  it('publishes EVENT_CHANNEL events without the secret', async () => {
    const id = await create(a);
    const event = published.find((e) => e.topic === 'EVENT_CHANNEL' && e.payload.id === id);
    expect(event).toMatchObject({ type: 'CREATED', accountId: a.accountId });
    expect(JSON.stringify(event)).not.toContain(SECRET);
    expect(JSON.stringify(event)).not.toContain('key-1234');
  });

  it('replaces in full: an omitted secret removes signing, an omitted enabled becomes true', async () => {
    const id = await create(a, channelBody({ enabled: false }));
    h.clock.advance(60_000);
    const put = await h.http
      .put(`/v1/event-channels/${id}`)
      .set('Authorization', a.auth)
      .send({ name: 'Renamed', topics: ['ADDRESS'], webhook: { url: 'https://hooks.example.com/x' } });
    expect(put.status).toBe(204);
    const res = await h.http.get(`/v1/event-channels/${id}`).set('Authorization', a.auth);
    expect(res.body).toMatchObject({ name: 'Renamed', topics: ['ADDRESS'], webhook: { url: 'https://hooks.example.com/x', signed: false }, enabled: true });
    expect(res.body.webhook.headers).toBeUndefined();
    expect(res.body.webhook.headerNames).toBeUndefined();
    expect(res.body.updatedAt).not.toBe(res.body.createdAt);
  });

  it('deletes a channel: 204, then 404', async () => {
    const id = await create(a);
    expect((await h.http.delete(`/v1/event-channels/${id}`).set('Authorization', a.auth)).status).toBe(204);
    const res = await h.http.get(`/v1/event-channels/${id}`).set('Authorization', a.auth);
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('https://shipmock.dev/problems/not-found');
  });

  it('filters the list by topic and enabled', async () => {
    const h2 = createHarness();
    const acc = await newAccount(h2);
    const post = (body: Record<string, unknown>) => h2.http.post('/v1/event-channels').set('Authorization', acc.auth).send(body);
    const tracker = (await post(channelBody({ topics: ['TRACKER'] }))).body.id;
    const address = (await post(channelBody({ topics: ['ADDRESS'], enabled: false }))).body.id;
    const list = async (query: string) =>
      (await h2.http.get(`/v1/event-channels${query}`).set('Authorization', acc.auth)).body.items.map((c: { id: string }) => c.id);
    expect(await list('')).toEqual([tracker, address]);
    expect(await list('?topic=ADDRESS')).toEqual([address]);
    expect(await list('?enabled=true')).toEqual([tracker]);
    expect(await list('?topic=TRACKER&enabled=false')).toEqual([]);
    // the alias works as a filter too
    const booking = (await post(channelBody({ topics: ['SHIPMENT_BOOKING'] }))).body.id;
    expect(await list('?topic=SHIPMENT_BOOKING_EVENT')).toEqual([booking]);
    h2.dispose();
  });

  it.each([
    [['SHIPMENT_BOOKING_EVENT'], ['SHIPMENT_BOOKING']],
    [['SHIPMENT_BOOKING_EVENT', 'TRACKER'], ['SHIPMENT_BOOKING', 'TRACKER']],
    [['SHIPMENT_BOOKING', 'SHIPMENT_BOOKING_EVENT'], ['SHIPMENT_BOOKING']],
  ])('stores the alias topic list %j as %j', async (topics, stored) => {
    const id = await create(a, channelBody({ topics }));
    const res = await h.http.get(`/v1/event-channels/${id}`).set('Authorization', a.auth);
    expect(res.body.topics).toEqual(stored);
  });

  it.each([
    ['Content-Type', 'text/plain'],
    ['content-length', '3'],
    ['Host', 'evil.example'],
    ['User-Agent', 'me'],
    ['Shipmock-Signature', 't=1,v1=00'],
    ['shipmock-event-id', 'x'],
  ])('refuses the reserved webhook header %s with 400 naming it', async (name, value) => {
    const before = (await h.http.get('/v1/event-channels?limit=100').set('Authorization', a.auth)).body.items.length;
    const res = await h.http
      .post('/v1/event-channels')
      .set('Authorization', a.auth)
      .send(channelBody({ webhook: { url: 'http://127.0.0.1:9/hook', headers: { [name]: value } } }));
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://shipmock.dev/problems/rule-violation');
    expect(res.body.properties.violations).toEqual([{ field: `body/webhook/headers/${name}`, message: expect.stringContaining(name) }]);
    const after = (await h.http.get('/v1/event-channels?limit=100').set('Authorization', a.auth)).body.items.length;
    expect(after).toBe(before);
  });

  it('refuses a header value with a line break', async () => {
    const res = await h.http
      .post('/v1/event-channels')
      .set('Authorization', a.auth)
      .send(channelBody({ webhook: { url: 'http://127.0.0.1:9/hook', headers: { 'X-Key': 'a\r\nX-Evil: 1' } } }));
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe('body/webhook/headers/X-Key');
  });

  it.each([
    ['an unknown topic', channelBody({ topics: ['BILLING'] }), 'body/topics/0'],
    ['no topics', channelBody({ topics: [] }), 'body/topics'],
    ['a short secret', channelBody({ webhook: { url: 'http://127.0.0.1:9/hook', secret: 'short' } }), 'body/webhook/secret'],
    ['a non-http url', channelBody({ webhook: { url: 'ftp://example.com/x' } }), 'body/webhook/url'],
  ])('rejects %s with 400 validation-error', async (_label, body, field) => {
    const res = await h.http.post('/v1/event-channels').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://shipmock.dev/problems/validation-error');
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
  });

  it('needs an Account token: a Company token gets 403', async () => {
    const res = await h.http.post('/v1/event-channels').set('Authorization', await companyToken(h)).send(channelBody());
    expect(res.status).toBe(403);
  });

  it('isolates accounts: A\'s channel is 404 for B and absent from B\'s list', async () => {
    const id = await create(a);
    const own = await create(b);
    expect((await h.http.get(`/v1/event-channels/${id}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(`/v1/event-channels/${id}`).set('Authorization', b.auth).send(channelBody())).status).toBe(404);
    expect((await h.http.delete(`/v1/event-channels/${id}`).set('Authorization', b.auth)).status).toBe(404);
    const list = await h.http.get('/v1/event-channels?limit=100').set('Authorization', b.auth);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([own]);
    expect((await h.http.get(`/v1/event-channels/${id}`).set('Authorization', a.auth)).status).toBe(200);
  });
});

describe('mock events', () => {
  const h = createHarness();
  let a: TestAccount;
  beforeAll(async () => {
    a = await newAccount(h);
  });

  it('returns the event (201) with an Account token, for any topic, and publishes it', async () => {
    const seen: EventEnvelope[] = [];
    h.events.subscribe((e) => seen.push(e));
    const payload = { shipmentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', code: 'CREATED', createdAt: '2026-01-15T10:00:00.000Z', updatedAt: '2026-01-15T10:00:00.000Z' };
    const res = await h.http.post('/v1/event-channels/events').set('Authorization', a.auth).send({ topic: 'SHIPMENT_BOOKING_EVENT', type: 'CREATED', payload });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      topic: 'SHIPMENT_BOOKING',
      type: 'CREATED',
      accountId: a.accountId,
      companyId: h.companyId,
      createdAt: '2026-01-01T00:00:00.000Z',
      payload,
    });
    expect(seen).toEqual([res.body]);
  });

  it.each([
    ['CARRIER', 201],
    ['SERVICE', 201],
    ['CARRIER_MONITOR', 201],
    ['ACCOUNT', 201],
    ['ADDRESS', 400],
    ['SHIPMENT_BOOKING', 400],
    ['SHIPMENT_BOOKING_EVENT', 400],
    ['PARCEL', 400],
  ])('Company token, topic %s → %i', async (topic, status) => {
    const res = await h.http.post('/v1/event-channels/events').set('Authorization', await companyToken(h)).send({ topic, type: 'UPDATED', payload: { x: 1 } });
    expect(res.status).toBe(status);
    if (status === 201) {
      expect(res.body).toMatchObject({ topic, type: 'UPDATED', companyId: h.companyId, payload: { x: 1 } });
      expect(res.body.accountId).toBeUndefined();
    } else {
      expect(res.body.type).toBe('https://shipmock.dev/problems/topic-not-allowed');
      expect(res.body.properties.violations[0].field).toBe('body/topic');
    }
  });

  it.each([
    ['a lowercase type', { topic: 'ADDRESS', type: 'created', payload: {} }, 'body/type'],
    ['a missing payload', { topic: 'ADDRESS', type: 'CREATED' }, 'body/payload'],
    ['an unknown topic', { topic: 'NOPE', type: 'CREATED', payload: {} }, 'body/topic'],
  ])('rejects %s', async (_label, body, field) => {
    const res = await h.http.post('/v1/event-channels/events').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
  });
});
