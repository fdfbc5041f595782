import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftPage } from '../../src/journal/drift-log.js';
import { driftLogOf } from '../../src/server/drift-log-of.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { carriers } from '../support/booking-fixtures.js';
import { deviating, storeOf } from '../support/deviating-service.js';
import { startLiveMock } from '../support/live-mock.js';
import { berlin, munich } from '../support/shipping-fixtures.js';
import { DRIFT_COUNT_HEADER, formatDriftSummary, startCompareProxy, type RunningCompare } from '../../src/proxy/compare/compare-proxy.js';

/** The real service's own company: other ids and other client credentials than the mock's. */
const REAL = { companyId: '0b6f1d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f', clientId: 'real-service-client', clientSecret: 'real-service-secret-0123456789' };
const ACCOUNT = {
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A client of the compare proxy: the real service's credentials and ids only. */
function clientOf(base: () => string) {
  return async (method: string, path: string, options: { auth?: string; body?: unknown } = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (options.auth) headers.Authorization = options.auth;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${base()}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };
}

async function drift(mock: RunningMock, query = ''): Promise<{ status: number; body: DriftPage & Record<string, any> }> {
  const res = await fetch(`${mock.url}/__admin/drift${query}`);
  return { status: res.status, body: (await res.json()) as DriftPage & Record<string, any> };
}

/** The spec's workflow: company token, account, account token, definitions, addresses, parcel, booking, fetches by id. */
async function workflow(call: ReturnType<typeof clientOf>) {
  const basic = `Basic ${Buffer.from(`${REAL.clientId}:${REAL.clientSecret}`).toString('base64')}`;
  const grant = { grantType: 'client_credentials' };
  const company = await call('POST', `/v1/companies/${REAL.companyId}/tokens`, { auth: basic, body: grant });
  expect(company.status).toBe(200);
  const companyAuth = `Bearer ${company.body.accessToken}`;
  const account = await call('POST', '/v1/accounts', { auth: companyAuth, body: ACCOUNT });
  expect(account.status).toBe(201);
  const token = await call('POST', `/v1/accounts/${account.body.id}/tokens`, { auth: basic, body: grant });
  expect(token.status).toBe(200);
  const auth = `Bearer ${token.body.accessToken}`;
  const create = async (path: string, body: unknown) => {
    const answer = await call('POST', path, { auth, body });
    expect(answer.status, `POST ${path}: ${JSON.stringify(answer.body)}`).toBe(201);
    return answer.body.id as string;
  };
  const carrierDefinitionId = await create('/v1/carrier-definitions', { carrierId: carriers.dhl, name: 'DHL' });
  const serviceDefinitionId = await create('/v1/service-definitions', { carrierDefinitionId, serviceId: carriers.dhlPaket, name: 'Paket' });
  const shipmentChannelId = await create('/v1/shipment-channels', { name: 'PDF labels', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } });
  const sender = await create('/v1/addresses', berlin);
  const receiver = await create('/v1/addresses', munich);
  const parcel = await create('/v1/parcels', { weight: 2.5, reference: 'P-1' });
  const booking = await create('/v1/shipment-bookings', {
    serviceDefinitionId,
    shipmentChannelId,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: sender },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: receiver },
    ],
    parcelIds: [parcel],
    reference: 'ORDER-1',
  });
  const fetched = await call('GET', `/v1/shipment-bookings/${booking}`, { auth });
  expect(fetched.status).toBe(200);
  expect((await call('GET', `/v1/addresses/${sender}`, { auth })).status).toBe(200);
  expect((await call('GET', `/v1/parcels/${parcel}`, { auth })).status).toBe(200);
  expect((await call('GET', '/v1/addresses?limit=10', { auth })).status).toBe(200);
  expect((await call('GET', `/v1/accounts/${account.body.id}`, { auth: companyAuth })).status).toBe(200);
  // Refusals are behaviour too: an unknown id, a body the contract refuses.
  expect((await call('GET', '/v1/addresses/9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67', { auth })).status).toBe(404);
  expect((await call('POST', '/v1/addresses', { auth, body: { ...berlin, countryCode: 'DEU' } })).status).toBe(400);
  return { auth, companyAuth, accountId: account.body.id as string, sender, booking, accessToken: token.body.accessToken as string };
}

describe('shipmock compare against a second shipmock (another seed, clock, company and credentials)', () => {
  let real: RunningMock;
  let mock: RunningMock;
  let compare: RunningCompare;

  beforeAll(async () => {
    real = await startLiveMock({ seed: 4242, clock: { mode: 'manual', start: '2027-05-06T07:08:09.000Z' }, ...REAL });
    mock = await startLiveMock({ seed: 1 });
    const log = driftLogOf(mock, 500);
    compare = await startCompareProxy({ upstream: real.url, mock: { url: mock.url, credentials: mock.credentials }, drift: log, port: 0 });
  });
  afterAll(async () => {
    await compare?.close();
    await mock?.close();
    await real?.close();
  });

  let flow: Awaited<ReturnType<typeof workflow>>;

  it('flags nothing on a realistic workflow, and the client gets the real service’s answers', async () => {
    const call = clientOf(() => compare.url);
    flow = await workflow(call);
    // The answers came from the real service: its ids, not the mock's.
    expect(storeOf(real).account(flow.accountId).collection('addresses').has(flow.sender)).toBe(true);
    expect(storeOf(mock).hasAccount(flow.accountId)).toBe(false);

    const { status, body } = await drift(mock);
    expect(status).toBe(200);
    const drifted = body.items.filter((r) => r.differences.length);
    expect(drifted, JSON.stringify(drifted, null, 2)).toEqual([]);
    expect(body.summary.compared).toBe(17);
    expect(body.summary.drifted).toBe(0);
    expect(body.summary.byOperation.createShipmentBooking).toEqual({ requests: 1, drifted: 0, fields: {} });
    expect(compare.summary().compared).toBe(17);
    // The mock did the same work under its own ids.
    const mockAccounts = storeOf(mock).accountIds();
    expect(mockAccounts).toHaveLength(1);
    expect(storeOf(mock).account(mockAccounts[0]).collection('shipment-bookings').size).toBe(1);
  });

  it('shows state the real service had before as drift, and never pairs ids by list position', async () => {
    const call = clientOf(() => compare.url);
    // An address the mock never saw created (made on the real service directly).
    const direct = clientOf(() => real.url);
    const before = await direct('POST', '/v1/addresses', { auth: flow.auth, body: { ...munich, name: 'Made elsewhere' } });
    expect(before.status).toBe(201);
    const list = await call('GET', '/v1/addresses?limit=10', { auth: flow.auth });
    expect(list.headers.get(DRIFT_COUNT_HEADER)).toBe('1');
    const listed = (await drift(mock, '?operation_id=listAddresses&drifted=true')).body.items[0];
    expect(listed.differences.map((d) => `${d.field} ${d.issue}`)).toEqual(['$.items[2] missing-in-mock']);
    // Newest first, the extra address stands where the mock's newest stands: still no pair.
    const newestFirst = await call('GET', '/v1/addresses?limit=10&sort=DESC', { auth: flow.auth });
    expect(Number(newestFirst.headers.get(DRIFT_COUNT_HEADER))).toBeGreaterThan(1);
    // The extra upstream address was not paired with a mock address by its position in the list.
    const unknown = await call('GET', `/v1/addresses/${before.body.id}`, { auth: flow.auth });
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get(DRIFT_COUNT_HEADER)).not.toBe('0');
    const refused = (await drift(mock, '?operation_id=getAddress&drifted=true')).body.items[0];
    expect(refused).toMatchObject({ upstreamStatus: 200, mockStatus: 404 });
    // What was created through compare still maps.
    expect((await call('GET', `/v1/addresses/${flow.sender}`, { auth: flow.auth })).headers.get(DRIFT_COUNT_HEADER)).toBe('0');
  });

  it('passes /__admin on the compare port to the mock, uncompared', async () => {
    const before = (await drift(mock)).body.size;
    const through = await fetch(`${compare.url}/__admin/drift?limit=1`);
    expect(through.status).toBe(200);
    expect(((await through.json()) as DriftPage).size).toBe(before);
    // The inspector's own page on the compare port may drive the mock (its Origin is the mock's own).
    const reset = await fetch(`${compare.url}/__admin/clock/advance`, { method: 'POST', headers: { Origin: compare.url, 'Content-Type': 'application/json' }, body: JSON.stringify({ duration: 'PT1M' }) });
    expect(reset.status).toBe(200);
    expect((await fetch(`${compare.url}/__admin/drift`, { headers: { Origin: 'http://evil.test' } })).status).toBe(403);
    expect((await drift(mock)).body.size).toBe(before);
  });

  it('keeps no secret in the drift records', async () => {
    const text = JSON.stringify((await drift(mock, '?limit=1000')).body);
    for (const secret of [REAL.clientSecret, mock.credentials.clientSecret]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
  });
});

describe('shipmock compare against a service that deviates from the contract', () => {
  let behind: RunningMock;
  let real: { server: Server; url: string };
  let mock: RunningMock;
  let compare: RunningCompare;

  beforeAll(async () => {
    behind = await startLiveMock({ seed: 99, clock: { mode: 'manual', start: '2028-02-03T04:05:06.000Z' }, ...REAL });
    real = await deviating(behind);
    mock = await startLiveMock({ seed: 1 });
    const log = driftLogOf(mock, 500);
    compare = await startCompareProxy({ upstream: real.url, mock: { url: mock.url, credentials: mock.credentials }, drift: log, port: 0 });
  });
  afterAll(async () => {
    await compare?.close();
    await mock?.close();
    await new Promise((resolve) => real?.server.close(resolve));
    await behind?.close();
  });

  it('flags exactly the injected differences, nothing volatile', async () => {
    const call = clientOf(() => compare.url);
    // The injected 200 on POST /v1/parcels fails the workflow's own 201 check: create the parcel by hand.
    const basic = `Basic ${Buffer.from(`${REAL.clientId}:${REAL.clientSecret}`).toString('base64')}`;
    const grant = { grantType: 'client_credentials' };
    const companyAuth = `Bearer ${(await call('POST', `/v1/companies/${REAL.companyId}/tokens`, { auth: basic, body: grant })).body.accessToken}`;
    const account = await call('POST', '/v1/accounts', { auth: companyAuth, body: ACCOUNT });
    const auth = `Bearer ${(await call('POST', `/v1/accounts/${account.body.id}/tokens`, { auth: basic, body: grant })).body.accessToken}`;
    const address = await call('POST', '/v1/addresses', { auth, body: berlin });
    expect(address.headers.get(DRIFT_COUNT_HEADER)).toBe('0');
    const fetched = await call('GET', `/v1/addresses/${address.body.id}`, { auth });
    expect(fetched.body.zipCode).toBe(berlin.postalCode);
    expect(fetched.headers.get(DRIFT_COUNT_HEADER)).toBe('2');
    const parcel = await call('POST', '/v1/parcels', { auth, body: { weight: 2.5, reference: 'P-1' } });
    expect(parcel.status).toBe(200);
    await call('GET', `/v1/parcels/${parcel.body.id}`, { auth });
    await call('GET', '/v1/addresses?limit=5', { auth });

    const { body } = await drift(mock, '?drifted=true');
    const found = body.items.flatMap((r) => r.differences.map((d) => `${r.operationId} ${d.kind} ${d.field} ${d.issue} ${d.upstream ?? '-'} ${d.mock ?? '-'}`)).sort();
    expect(found).toEqual([
      'createParcel status status value 200 201',
      `getAddress body $.postalCode missing-upstream - "${berlin.postalCode}"`,
      `getAddress body $.zipCode missing-in-mock "${berlin.postalCode}" -`,
      expect.stringMatching(/^getParcel header header\/x-ratelimit-reset missing-upstream - \d+$/),
    ]);
    // The summary counts what the filter matched: only drifted records here, every record below.
    expect(body.summary).toMatchObject({ compared: 3, drifted: 3 });
    expect((await drift(mock)).body.summary).toMatchObject({ compared: 8, drifted: 3 });
    expect(body.summary.byOperation.getAddress).toEqual({ requests: 1, drifted: 1, fields: { '$.postalCode': 1, '$.zipCode': 1 } });
    expect(body.summary.byField.map((f) => f.field)).toEqual(['$.postalCode', '$.zipCode', 'header/x-ratelimit-reset', 'status']);
    expect(formatDriftSummary(compare.summary())).toContain('8 request(s) compared, 3 with drift from the real service');

    // Filters narrow the items and the summary alike.
    const bodyOnly = (await drift(mock, '?kind=body')).body;
    expect(bodyOnly.items.map((r) => r.operationId)).toEqual(['getAddress']);
    expect((await drift(mock, '?field=status')).body.items.map((r) => r.operationId)).toEqual(['createParcel']);
    expect((await drift(mock, '?operation_id=issueAccountToken')).body.summary).toMatchObject({ compared: 1, drifted: 0 });
    const first = (await drift(mock, '?limit=3')).body;
    expect(first.items).toHaveLength(3);
    const second = (await drift(mock, `?limit=3&cursor=${first.nextCursor}`)).body;
    expect(second.items.map((r) => r.id)).not.toContain(first.items[0].id);
    expect(Number(second.items[0].id.slice(1))).toBeLessThan(Number(first.items[2].id.slice(1)));
  });

  it('answers bad query parameters with a 400 problem naming each, and changes nothing', async () => {
    const before = (await drift(mock)).body.size;
    for (const query of ['?limit=0', '?limit=abc', '?limit=1001', '?kind=cookie', '?drifted=yes', '?method=BREW', '?unknown=1', '?limit=1&limit=2', '?cursor=nonsense', '?operation_id=']) {
      const res = await fetch(`${mock.url}/__admin/drift${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toContain('application/problem+json');
      const problem = (await res.json()) as { type: string; status: number };
      expect(problem.status).toBe(400);
      expect(problem.type).toMatch(/validation-error$/);
    }
    expect((await drift(mock)).body.size).toBe(before);
  });

  it('clears the records alone with DELETE, the mock’s resources staying', async () => {
    const accounts = storeOf(mock).accountIds().length;
    expect((await drift(mock)).body.size).toBeGreaterThan(0);
    expect((await fetch(`${mock.url}/__admin/drift`, { method: 'DELETE' })).status).toBe(204);
    expect((await drift(mock)).body).toMatchObject({ size: 0, capacity: 500, summary: { compared: 0 } });
    expect(storeOf(mock).accountIds()).toHaveLength(accounts);
    // The next compared request is recorded as before.
    const call = clientOf(() => compare.url);
    await call('GET', '/v1/carriers');
    expect((await drift(mock)).body.size).toBe(1);
  });

  it('keeps the records in the store: exported with the state, dropped by a full reset', async () => {
    const state = (await (await fetch(`${mock.url}/__admin/state`)).json()) as { store: { scopes: Record<string, { collections: Record<string, { items: unknown[] }> }> } };
    expect(state.store.scopes.global.collections.drift.items.length).toBe((await drift(mock)).body.size);
    expect((await fetch(`${mock.url}/__admin/reset`, { method: 'POST', headers: { 'X-Shipmock-Admin': '1' } })).status).toBe(204);
    expect((await drift(mock)).body).toMatchObject({ size: 0, items: [], summary: { compared: 0 } });
  });
});
