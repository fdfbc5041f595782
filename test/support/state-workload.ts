import { internalsOf, type RunningMock } from '../../src/server/start-mock.js';
import type { StatePart } from '../../src/store/state-registry.js';
import { carriers } from './booking-fixtures.js';
import { call, liveAccount, type LiveAccount } from './live-mock.js';
import { berlin, munich } from './shipping-fixtures.js';
import { closedPortUrl } from './webhook-receiver.js';

/**
 * A representative workload through real HTTP and the public handles, touching every kind of
 * state a mock keeps (test/api/state-registry.test.ts, test/architecture/unregistered-state.test.ts):
 * an account with resources and a PRODUCTION booking (carrier call log, tracker, events, usage,
 * issued numbers), a webhook channel whose deliveries wait for a retry, a scenario scoped to the
 * account that expires its token (scenario counters, token revocations), a wrong client secret
 * (login lockout), request windows, a company added at run time and an advance of the clock.
 */
export async function stateWorkload(mock: RunningMock, label: string): Promise<LiveAccount> {
  const account = await liveAccount(mock);
  const create = async (path: string, body: unknown) => {
    const answer = await call(mock, 'POST', path, { auth: account.auth, body });
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
    return answer.body.id as string;
  };
  await create('/v1/event-channels', { name: `${label} updates`, topics: ['SHIPMENT_BOOKING', 'TRACKER'], webhook: { url: await closedPortUrl() } });
  const carrierDefinitionId = await create('/v1/carrier-definitions', { carrierId: carriers.dhl, name: `DHL ${label}`, mode: 'PRODUCTION' });
  const serviceDefinitionId = await create('/v1/service-definitions', { carrierDefinitionId, serviceId: carriers.dhlPaket, name: 'Paket' });
  const shipmentChannelId = await create('/v1/shipment-channels', { name: 'ZPL labels', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } });
  const sender = await create('/v1/addresses', berlin);
  const receiver = await create('/v1/addresses', munich);
  const parcel = await create('/v1/parcels', { weight: 2.5, reference: `${label}-1` });
  await create('/v1/shipment-bookings', {
    serviceDefinitionId,
    shipmentChannelId,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: sender },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: receiver },
    ],
    parcelIds: [parcel],
    reference: `ORDER-${label}`,
  });
  // The next request with a Bearer token of this account expires it (a revocation), then renew.
  mock.scenarios.activate('token-expiry-mid-flow', { accountId: account.accountId, params: { after: 0 } });
  const expired = await call(mock, 'GET', '/v1/addresses', { auth: account.auth });
  if (expired.status !== 401) throw new Error(`expected the token to expire, got ${expired.status}`);
  account.auth = await account.renew();
  // A wrong client secret counts towards the login lockout of (client id, address).
  const wrong = `Basic ${Buffer.from(`${mock.credentials.clientId}:not-the-secret`).toString('base64')}`;
  await call(mock, 'POST', `/v1/accounts/${account.accountId}/tokens`, { auth: wrong, body: { grantType: 'client_credentials' } });
  mock.companies.add({ name: `Company ${label}` });
  // Tracker steps fall due, publishing events; the deliveries' first attempts fail (closed port).
  mock.clock.advance('PT2H');
  await waitFor(() => internalsOf(mock).runtime.webhooks.list({ status: 'RETRYING', limit: 10 }).items.length > 0, 'a delivery waiting for its retry');
  return account;
}

/** Polls (real time, generous deadline: the machine may be loaded) until `condition` holds. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every registered part of a mock, by name. */
export function partsOf(mock: RunningMock): Map<string, StatePart> {
  return new Map(internalsOf(mock).runtime.store.parts.all().map((part) => [part.name, part]));
}

/** A part's snapshot as JSON text with sorted keys (what the registry tests compare: the order a copy was rebuilt in is no difference). */
export const jsonOf = (part: StatePart) => canonical(part.snapshot());

export function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
}
