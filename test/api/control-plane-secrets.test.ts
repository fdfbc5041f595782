import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { loadAdminContract } from '../../src/admin/admin-contract.js';
import { companyToken, createHarness, newAccount, type Harness } from '../support/harness.js';
import { deliveriesOf, startWebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

/**
 * Issue 23: secrets are never readable by a browser page other than the inspector itself.
 * A page allowed with --admin-origin reads the journal, its entries and the state view; it must
 * find no access token, client secret, webhook secret or custom header value in them, in any
 * form or place (headers, bodies, query strings), and the collection that holds the secrets is
 * refused to it — while the user's own tools (a terminal, a test: no Origin) and the mock's own
 * inspector (same origin) keep what they had.
 */
const APP = 'http://localhost:3000';
/** What a browser adds to a fetch() of a page on http://localhost:3000 to the mock on 127.0.0.1. */
const PAGE = { Origin: APP, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' };
const WEBHOOK_SECRET = 'whsec_3b1f0c5e9d2a47c8';
const HEADER_VALUE = 'key-9f2d7c1a0b';
const CARRIER_PASSWORD = 's3cr3t-carrier-password';
const admin = loadAdminContract().gate;

/** The problem the contract declares for this answer (403 control-plane-refused, CORS header for the allowed page). */
function refusedToPage(res: { status: number; headers: Record<string, string>; body: any }, path: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toBe('https://shipmock.dev/problems/control-plane-refused');
  expect(res.headers['access-control-allow-origin']).toBe(APP);
  const match = admin.routes.match('GET', path);
  if (match.kind !== 'operation') throw new Error(`GET ${path} is not in admin.yaml`);
  expect(admin.validators.forOperation(match.operation.operationId).response(403, 'application/problem+json', res.body)).toEqual([]);
}

/** A mock that has seen every kind of credential: tokens issued, sent in each form, a signed channel with custom headers, carrier credentials. */
async function mockWithSecrets(): Promise<{ h: Harness; accountId: string; secrets: string[]; channelId: string }> {
  const h = createHarness({ adminOrigins: [APP] });
  const account = await newAccount(h);
  const token = account.auth.slice('Bearer '.length);
  const companyAuth = await companyToken(h);
  const clientSecret = h.credentials.clientSecret;
  const channel = await h.http
    .post('/v1/event-channels')
    .set('Authorization', account.auth)
    .send({ name: 'Bookings', topics: ['SHIPMENT_BOOKING'], webhook: { url: `http://127.0.0.1:9/hook?token=${HEADER_VALUE}x`, secret: WEBHOOK_SECRET, headers: { 'X-Api-Key': HEADER_VALUE, 'X-Tenant': `${HEADER_VALUE}-t` } } });
  expect(channel.status).toBe(201);
  const carrier = await h.http
    .post('/v1/carrier-definitions')
    .set('Authorization', account.auth)
    .send({ carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL', group: 'main', settings: [{ key: 'username', value: 'api-user-4711' }, { key: 'password', value: CARRIER_PASSWORD }] });
  expect(carrier.status).toBe(201);
  // The token after a word: the journal took everything before the first space for a scheme.
  expect((await h.http.get('/v1/addresses').set('Authorization', `${token} Bearer`)).status).toBe(401);
  // Tokens where no client should put them, but some do: query string, custom header, a body.
  expect((await h.http.get(`/v1/addresses?access_token=${token}`).set('Authorization', account.auth)).status).toBe(400);
  expect((await h.http.get('/v1/addresses').set('Authorization', account.auth).set('X-Auth-Token', token)).status).toBe(200);
  expect((await h.http.post('/v1/addresses').set('Authorization', account.auth).send({ name: 'x', clientSecret, accessToken: token })).status).toBe(400);
  // Client credentials in a form body (refused as a media type, still journaled).
  await h.http.post(`/v1/companies/${h.companyId}/tokens`).set('Authorization', h.basic).type('form').send({ client_secret: clientSecret });
  return { h, accountId: account.accountId, channelId: channel.body.id, secrets: [token, companyAuth.slice('Bearer '.length), clientSecret, WEBHOOK_SECRET, HEADER_VALUE, CARRIER_PASSWORD, h.basic.slice('Basic '.length)] };
}

/** The first batch of the live journal stream (server-sent events), read over a socket of its own. */
async function firstStreamBatch(h: Harness, headers: Record<string, string>): Promise<string> {
  const server = createServer(h.app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const abort = new AbortController();
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/__admin/journal/stream`, { headers, signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!/event: entries\ndata: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('access_token=eyJhbG…');
    return text;
  } finally {
    abort.abort();
    server.closeAllConnections();
    server.close();
  }
}

function expectNoSecret(text: string, secrets: string[], where: string): void {
  for (const secret of secrets) {
    const at = text.indexOf(secret);
    expect(at, `${where} holds ${secret.slice(0, 12)}…: ${text.slice(Math.max(0, at - 300), at + 40)}`).toBe(-1);
  }
}

describe('an --admin-origin page reading the control plane', () => {
  it('finds no token, client secret, webhook secret or custom header value in the journal, its entries or its stream', async () => {
    const { h, secrets } = await mockWithSecrets();
    const list = await h.http.get('/__admin/journal?limit=1000').set(PAGE);
    expect(list.status).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBe(APP);
    expectNoSecret(list.text, secrets, 'GET /__admin/journal');
    expect(list.body.items.some((e: { query?: string }) => e.query?.startsWith('access_token=eyJhbG…'))).toBe(true);
    let exchanges = 0;
    for (const { seq } of list.body.items) {
      const one = await h.http.get(`/__admin/journal/${seq}`).set(PAGE);
      expect(one.status).toBe(200);
      expectNoSecret(one.text, secrets, `GET /__admin/journal/${seq}`);
      if (one.body.exchange) exchanges++;
    }
    expectNoSecret(await firstStreamBatch(h, PAGE), secrets, 'GET /__admin/journal/stream');
    // Every request above kept its exchange (a person's pace), so every form was looked at.
    expect(exchanges).toBe(list.body.items.length);
    // The token endpoint's answer is there, shortened, and the refused <token> Bearer shows no more than six characters.
    const issued = list.body.items.find((e: { operationId?: string; status?: number }) => e.operationId === 'issueAccountToken' && e.status === 200);
    const issuedExchange = (await h.http.get(`/__admin/journal/${issued.seq}`).set(PAGE)).body.exchange;
    expect(JSON.parse(issuedExchange.response.body).accessToken).toMatch(/^.{6}…$/);
    const reversed = list.body.items.find((e: { status?: number; operationId?: string }) => e.status === 401 && e.operationId === 'listAddresses');
    expect((await h.http.get(`/__admin/journal/${reversed.seq}`).set(PAGE)).body.exchange.request.headers.authorization).toMatch(/^.{6}…$/);
  });

  it('is refused the collection of channel secrets (403), gets other collections with their credentials shortened, and no state export', async () => {
    const { h, accountId, channelId, secrets } = await mockWithSecrets();
    const collection = `/__admin/state/accounts/${accountId}/collections/event-channel-secrets`;
    refusedToPage(await h.http.get(collection).set(PAGE), collection);
    refusedToPage(await h.http.get(`${collection}/${channelId}`).set(PAGE), `${collection}/${channelId}`);
    refusedToPage(await h.http.get('/__admin/state').set(PAGE), '/__admin/state');
    for (const name of ['carrier-definitions', 'event-channels']) {
      const res = await h.http.get(`/__admin/state/accounts/${accountId}/collections/${name}`).set(PAGE);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(1);
      expectNoSecret(res.text, secrets, name);
      const item = await h.http.get(`/__admin/state/accounts/${accountId}/collections/${name}/${res.body.items[0].id}`).set(PAGE);
      expect(item.status).toBe(200);
      expectNoSecret(item.text, secrets, `${name} item`);
    }
    const carrier = (await h.http.get(`/__admin/state/accounts/${accountId}/collections/carrier-definitions`).set(PAGE)).body.items[0];
    expect(carrier.settings).toEqual([{ key: 'username', value: 'api-user-4711' }, { key: 'password', value: 's3cr3…' }]);
    const events = await h.http.get(`/__admin/events?account_id=${accountId}`).set(PAGE);
    expect(events.status).toBe(200);
    expectNoSecret(events.text, secrets, 'GET /__admin/events');
  });

  it('leaves the user’s own tools (no Origin) and the mock’s own inspector (same origin) the secret collection, as before', async () => {
    const { h, accountId, channelId } = await mockWithSecrets();
    const collection = `/__admin/state/accounts/${accountId}/collections/event-channel-secrets`;
    const terminal = await h.http.get(collection);
    expect(terminal.status).toBe(200);
    expect(terminal.body.items).toEqual([{ id: channelId, secret: WEBHOOK_SECRET, headers: { 'X-Api-Key': HEADER_VALUE, 'X-Tenant': `${HEADER_VALUE}-t` } }]);
    const inspector = await h.http.get(`${collection}/${channelId}`).set({ Host: '127.0.0.1:4010', Origin: 'http://127.0.0.1:4010', 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors' });
    expect(inspector.status).toBe(200);
    expect(inspector.body.secret).toBe(WEBHOOK_SECRET);
    const carriers = await h.http.get(`/__admin/state/accounts/${accountId}/collections/carrier-definitions`);
    expect(carriers.body.items[0].settings[1].value).toBe(CARRIER_PASSWORD);
    // The journal is shortened for everyone: it is the record of traffic, not a store of credentials.
    expect((await h.http.get('/__admin/journal?limit=1000')).text).not.toContain(WEBHOOK_SECRET);
  });
  it('sees delivery attempts with the channel’s header values and URL token shortened, and event payloads without carrier passwords', async () => {
    const h = createHarness({ adminOrigins: [APP] });
    const receiver = await startWebhookReceiver();
    try {
      const account = await newAccount(h);
      const channel = await h.http
        .post('/v1/event-channels')
        .set('Authorization', account.auth)
        .send({ name: 'Carriers', topics: ['CARRIER_DEFINITION'], webhook: { url: `${receiver.url}?token=${HEADER_VALUE}x`, secret: WEBHOOK_SECRET, headers: { 'X-Api-Key': HEADER_VALUE, 'X-Tenant': `${HEADER_VALUE}-t` } } });
      expect(channel.status).toBe(201);
      const carrier = await h.http
        .post('/v1/carrier-definitions')
        .set('Authorization', account.auth)
        .send({ carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL', group: 'main', settings: [{ key: 'password', value: CARRIER_PASSWORD }] });
      expect(carrier.status).toBe(201);
      const [hit] = await receiver.waitFor(() => true);
      expect(hit.headers['x-api-key']).toBe(HEADER_VALUE);
      await waitUntil(() => deliveriesOf(h, channel.body.id)[0]?.status === 'DELIVERED');
      const secrets = [HEADER_VALUE, WEBHOOK_SECRET, CARRIER_PASSWORD];
      const list = await h.http.get('/__admin/deliveries').set(PAGE);
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(1);
      expectNoSecret(list.text, secrets, 'GET /__admin/deliveries');
      const one = await h.http.get(`/__admin/deliveries/${list.body.items[0].id}`).set(PAGE);
      expect(one.status).toBe(200);
      expectNoSecret(one.text, secrets, 'GET /__admin/deliveries/{id}');
      expect(one.body.attempts[0].requestHeaders['X-Api-Key']).toBe('key…');
      expect(one.body.attempts[0].url).toBe(`${receiver.url}?token=key…`);
      expect(one.body.event.payload.settings).toEqual([{ key: 'password', value: 's3cr3…' }]);
      // The user's own tools still get the event as it was published (the receiver got it so too).
      expect((await h.http.get(`/__admin/deliveries/${list.body.items[0].id}`)).body.event.payload.settings[0].value).toBe(CARRIER_PASSWORD);
    } finally {
      await receiver.close();
    }
  });
});
