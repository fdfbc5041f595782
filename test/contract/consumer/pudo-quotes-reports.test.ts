import { describe, expect, it } from 'vitest';
import {
  EX, M, accountAuth, companyAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, stateId, uuid,
} from './support/pact.js';

const pact = createPact();
const json = { 'Content-Type': jsonContentType };
const time = M.regex(/^[0-2][0-9]:[0-5][0-9]$/, '09:00');
const usage = [
  { operation: 'CONSUME', topic: 'PARCEL', tokens: M.integer(1) },
  { operation: 'QUERY', topic: 'PUDO_POINT', tokens: M.integer(1) },
];

describe('PUDO points', () => {
  it('queries the PUDO points near an address', async () => {
    await pact
      .addInteraction()
      .given('an address exists', { countryCode: 'DE' })
      .uponReceiving('a query for PUDO points near an address')
      .withRequest('POST', '/v1/pudo-points/queries', (b) =>
        b.headers({ ...accountAuth, ...jsonRequest }).jsonBody({ addressId: stateId('addressId', EX.addressId), limit: 5 }),
      )
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          queryId: uuid(EX.missingId),
          items: M.eachLike({
            id: uuid(EX.pudoPointId),
            carrierId: uuid(EX.carrierId),
            name: M.string('Paketshop Hauptstrasse'),
            type: M.regex(/^(PARCEL_SHOP|LOCKER|POST_OFFICE)$/, 'PARCEL_SHOP'),
            address: { street: M.string('Hauptstrasse 7'), city: M.string('Berlin'), postalCode: M.string('10115'), countryCode: 'DE' },
            latitude: M.number(52.53),
            longitude: M.number(13.38),
            openingHours: M.eachLike({ dayOfWeek: M.regex(/^(MON|TUES|WEDNES|THURS|FRI|SATUR|SUN)DAY$/, 'MONDAY'), opensAt: time, closesAt: time }),
            distanceMeters: M.integer(120),
          }),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/pudo-points/queries', { body: { addressId: EX.addressId, limit: 5 } });
        expect(data?.items[0].address.countryCode).toBe('DE');
      });
  });
});

describe('shipping quotes', () => {
  it('gets quotes for a route covered by delivery options', async () => {
    await pact
      .addInteraction()
      .given('delivery options cover a route', { routeFrom: 'DE', routeTo: 'DE' })
      .uponReceiving('a request for shipping quotes')
      .withRequest('POST', '/v1/shipping-quotes', (b) =>
        b.headers({ ...accountAuth, ...jsonRequest }).jsonBody({
          senderAddressId: stateId('senderAddressId', EX.addressId),
          receiverAddressId: stateId('receiverAddressId', EX.receiverAddressId),
          parcels: [{ weight: 2, weightUnit: 'KG' }],
        }),
      )
      .willRespondWith(201, (b) =>
        b.headers(json).jsonBody({
          purchaseId: uuid(EX.purchaseId),
          status: 'VALID',
          createdAt: isoDateTime(),
          expiresAt: isoDateTime('2026-01-16T13:30:00.000Z'),
          quotes: M.eachLike({
            id: uuid(EX.missingId),
            deliveryOptionId: uuid(EX.missingId),
            serviceDefinitionId: uuid(EX.serviceDefinitionId),
            carrierId: uuid(EX.carrierId),
            serviceId: uuid(EX.serviceId),
            name: M.string('Standard'),
            price: { amount: M.number(4.9), currency: M.regex(/^[A-Z]{3}$/, 'EUR') },
            expiresAt: isoDateTime('2026-01-16T13:30:00.000Z'),
          }),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v1/shipping-quotes', {
          body: { senderAddressId: EX.addressId, receiverAddressId: EX.receiverAddressId, parcels: [{ weight: 2, weightUnit: 'KG' }] },
        });
        expect(data?.status).toBe('VALID');
        expect(data?.quotes?.[0].price.currency).toBe('EUR');
      });
  });
});

describe('usage reports', () => {
  it('reads the usage of an account', async () => {
    await pact
      .addInteraction()
      .given('an account has used billable operations', { parcels: 1, pudoQueries: 1 })
      .uponReceiving('a request for the usage report of an account')
      .withRequest('GET', '/v1/reports', (b) => b.headers(accountAuth))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          periodFrom: isoDateTime('2026-01-01T00:00:00.000Z'),
          periodTo: isoDateTime('2026-02-01T00:00:00.000Z'),
          level: 'ACCOUNT',
          companyId: uuid(EX.companyId),
          accountId: uuid(EX.accountId),
          usage,
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/reports');
        expect(data?.usage.map((line) => line.operation)).toEqual(['CONSUME', 'QUERY']);
      });
  });

  it('reads the usage of the company per account', async () => {
    await pact
      .addInteraction()
      .given('an account has used billable operations', { parcels: 1, pudoQueries: 1 })
      .uponReceiving('a request for the usage report of the company')
      .withRequest('GET', '/v1/reports', (b) => b.headers(companyAuth))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          periodFrom: isoDateTime('2026-01-01T00:00:00.000Z'),
          periodTo: isoDateTime('2026-02-01T00:00:00.000Z'),
          level: 'COMPANY',
          companyId: uuid(EX.companyId),
          usage: [
            { operation: 'CONSUME', topic: 'PARCEL', tokens: M.integer(1) },
            { operation: 'QUERY', topic: 'PUDO_POINT', tokens: M.integer(1) },
          ],
          accounts: M.eachLike({ accountId: uuid(EX.accountId), usage }),
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).company.GET('/v1/reports');
        expect(data?.level).toBe('COMPANY');
      });
  });
});
