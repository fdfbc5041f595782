import { describe, expect, it } from 'vitest';
import {
  EX, M, accountAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, problemBody, problemContentType,
  statePath, uuid,
} from './support/pact.js';

const pact = createPact();
const json = { 'Content-Type': jsonContentType };

const addressRequest = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const address = {
  id: uuid(EX.addressId),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
  name: M.string('Erika Mustermann'),
  street: M.string('Hauptstrasse 5'),
  city: M.string('Berlin'),
  postalCode: M.string('10115'),
  countryCode: 'DE',
};
const parcelRequest = { weight: 1.5, weightUnit: 'KG' as const, dimensions: { length: 30, width: 20, height: 10, unit: 'CM' as const }, reference: 'ORDER-1001' };

describe('addresses', () => {
  it('creates an address', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to create an address')
      .withRequest('POST', '/v1/addresses', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(addressRequest))
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.addressId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/addresses', { body: addressRequest });
        expect(data?.id).toBe(EX.addressId);
      });
  });

  it('gets a 400 problem naming the missing fields', async () => {
    const incomplete = { name: 'Erika Mustermann', countryCode: 'DE' };
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to create an address without street, city and postal code')
      .withRequest('POST', '/v1/addresses', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(incomplete))
      .willRespondWith(400, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(400, { violations: true })))
      .executeTest(async (server) => {
        const { error, response } = await consumerClient(server.url).account.POST('/v1/addresses', {
          // The typed client refuses this at compile time; a consumer with bad data still sends it.
          body: incomplete as unknown as typeof addressRequest,
        });
        expect(response.status).toBe(400);
        expect(error && 'properties' in error ? error.properties?.violations?.length : 0).toBeGreaterThan(0);
      });
  });

  it('fetches an address', async () => {
    await pact
      .addInteraction()
      .given('an address exists', { countryCode: 'DE' })
      .uponReceiving('a request to fetch an address')
      .withRequest('GET', statePath('/v1/addresses/${addressId}', `/v1/addresses/${EX.addressId}`), (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) => b.headers(json).jsonBody(address))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/addresses/{address-id}', {
          params: { path: { 'address-id': EX.addressId } },
        });
        expect(data?.countryCode).toBe('DE');
      });
  });

  it('lists the addresses of one country', async () => {
    await pact
      .addInteraction()
      .given('an address exists', { countryCode: 'DE' })
      .uponReceiving('a request to list the addresses of a country')
      .withRequest('GET', '/v1/addresses', (b) => b.headers(accountAuth).query({ country_code: 'DE', limit: '10' }))
      .willRespondWith(200, (b) => b.headers(json).jsonBody({ items: M.eachLike(address) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/addresses', { params: { query: { country_code: 'DE', limit: 10 } } });
        expect(data?.items.every((a) => a.countryCode === 'DE')).toBe(true);
      });
  });

  it("gets a 404 problem for another account's address", async () => {
    await pact
      .addInteraction()
      .given('an address exists in another account', { countryCode: 'DE' })
      .uponReceiving("a request to fetch another account's address")
      .withRequest('GET', statePath('/v1/addresses/${otherAddressId}', `/v1/addresses/${EX.receiverAddressId}`), (b) => b.headers(accountAuth))
      .willRespondWith(404, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(404)))
      .executeTest(async (server) => {
        const { response } = await consumerClient(server.url).account.GET('/v1/addresses/{address-id}', {
          params: { path: { 'address-id': EX.receiverAddressId } },
        });
        expect(response.status).toBe(404);
      });
  });
});

describe('parcels', () => {
  it('creates a parcel', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to create a parcel')
      .withRequest('POST', '/v1/parcels', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(parcelRequest))
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.parcelId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/parcels', { body: parcelRequest });
        expect(data?.id).toBe(EX.parcelId);
      });
  });

  it('fetches a parcel', async () => {
    await pact
      .addInteraction()
      .given('a parcel exists', { weight: 1.5 })
      .uponReceiving('a request to fetch a parcel')
      .withRequest('GET', statePath('/v1/parcels/${parcelId}', `/v1/parcels/${EX.parcelId}`), (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          id: uuid(EX.parcelId),
          createdAt: isoDateTime(),
          updatedAt: isoDateTime(),
          weight: M.decimal(1.5),
          weightUnit: 'KG',
          dimensions: M.like(parcelRequest.dimensions),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/parcels/{parcel-id}', { params: { path: { 'parcel-id': EX.parcelId } } });
        expect(data?.weightUnit).toBe('KG');
      });
  });
});
