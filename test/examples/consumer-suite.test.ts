/**
 * How a consumer's test suite uses shipmock (README, section qa): one mock per test file on a
 * free port, a reset between tests, scenarios scoped to the test's own account (so test files
 * running in parallel never disturb each other), time travel instead of sleeping, and the
 * journal to check what the client really did.
 *
 * The "client under test" here is shipmock's typed client; any HTTP client works the same way.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createShippingClient, startMock, type RunningMock, type ShippingApi } from '../../src/index.js';

let mock: RunningMock;

beforeAll(async () => {
  mock = await startMock({ port: 0, seed: 1, clock: { mode: 'manual' }, logLevel: 'silent' });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

/** A merchant account and a client acting for it. The client "waits" by moving the mock's clock. */
async function merchant(): Promise<{ accountId: string; api: ShippingApi }> {
  const client = createShippingClient({
    baseUrl: mock.url,
    companyId: mock.credentials.companyId,
    clientId: mock.credentials.clientId,
    clientSecret: mock.credentials.clientSecret,
    now: () => Date.parse(mock.clock.now()),
    sleep: async (ms) => {
      mock.clock.advance(ms);
    },
  });
  const { data, error } = await client.company.POST('/v1/accounts', {
    body: {
      company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
      contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
    },
  });
  if (error || !data) throw new Error(`create account: ${JSON.stringify(error)}`);
  return { accountId: data.id, api: client.forAccount(data.id) };
}

const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

describe('a consumer suite', () => {
  it('backs off for Retry-After when the rate limit bites (checked from the journal)', async () => {
    const { accountId, api } = await merchant();
    mock.scenarios.activate('rate-limit-burst', { accountId, params: { limit: 2, window: 'PT20S' } });
    for (let i = 0; i < 4; i++) {
      const { response } = await api.POST('/v1/addresses', { body: address });
      expect(response.status).toBe(201);
    }
    expect(mock.journal.find({ accountId, status: 429 })).toHaveLength(1);
    mock.journal.assertRetryAfterHonoured({ accountId });
  });

  it('renews its token when it expires in the middle of a flow', async () => {
    const { accountId, api } = await merchant();
    mock.scenarios.activate('token-expiry-mid-flow', { accountId, params: { after: 1 } });
    await api.POST('/v1/addresses', { body: address });
    const { data, response } = await api.GET('/v1/addresses', { params: { query: { limit: 10 } } });
    expect(response.status).toBe(200);
    expect(data?.items).toHaveLength(1);
    const statuses = mock.journal.find({ accountId, path: '/v1/addresses' }).map((e) => e.status);
    expect(statuses).toEqual([201, 401, 200]);
  });

  it('travels in time instead of sleeping: a token is refused after four hours', async () => {
    const { accountId } = await merchant();
    const token = await fetch(`${mock.url}/v1/accounts/${accountId}/tokens`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    }).then((r) => r.json());
    const list = () => fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: `Bearer ${token.accessToken}` } });
    expect((await list()).status).toBe(200);
    mock.clock.advance('PT4H');
    expect((await list()).status).toBe(401);
  });

  it('starts every test from the same state: reset restores the seeded ids', async () => {
    const first = await merchant();
    mock.reset();
    const second = await merchant();
    expect(second.accountId).toBe(first.accountId);
  });

  it('saves a prepared state and restores it later', async () => {
    const { accountId, api } = await merchant();
    await api.POST('/v1/addresses', { body: address });
    const saved = mock.state.export();
    mock.reset();
    mock.state.import(saved);
    const { data } = await api.GET('/v1/addresses', { params: { query: { limit: 10 } } });
    expect(data?.items.map((a) => a.city)).toEqual(['Berlin']);
    expect(mock.scenarios.list()).toEqual([]);
    expect(accountId).toBeTruthy();
  });
});
