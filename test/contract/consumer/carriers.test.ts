import { describe, expect, it } from 'vitest';
import {
  EX, M, accountAuth, companyAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, problemContentType,
  stateId, statePath, uuid,
} from './support/pact.js';

const pact = createPact();
const json = { 'Content-Type': jsonContentType };

const carrier = {
  id: uuid(EX.carrierId),
  code: M.regex(/^[A-Z0-9]+(_[A-Z0-9]+)*$/, 'DHL_PARCEL'),
  name: M.string('DHL Parcel'),
  category: M.regex(/^(PARCEL|PUDO|EXPRESS|FREIGHT)$/, 'PARCEL'),
  countries: M.eachLike(M.regex(/^[A-Z]{2}$/, 'DE')),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
};

const service = {
  id: uuid(EX.serviceId),
  carrierId: uuid(EX.carrierId),
  code: M.regex(/^[A-Z0-9]+(_[A-Z0-9]+)*$/, 'DHL_PAKET_INTERNATIONAL'),
  name: M.string('DHL Paket International'),
  routes: M.eachLike({ from: M.regex(/^[A-Z]{2}$/, 'DE'), to: M.regex(/^[A-Z]{2}$/, 'FR'), dutiable: M.boolean(false), domestic: M.boolean(false) }),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
};

const carrierDefinition = (mode: string) => ({
  id: uuid(EX.carrierDefinitionId),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
  carrierId: uuid(EX.carrierId),
  name: M.string('DHL Parcel EU'),
  group: 'EU',
  mode,
});

const route = { route_from: 'DE', route_to: 'FR' };

describe('carrier data with route filters', () => {
  it('lists the carriers serving a route', async () => {
    await pact
      .addInteraction()
      .given('carrier data serves a route', { routeFrom: 'DE', routeTo: 'FR' })
      .uponReceiving('a request to list carriers serving a route')
      .withRequest('GET', '/v1/carriers', (b) => b.headers(companyAuth).query(route))
      .willRespondWith(200, (b) => b.headers(json).jsonBody({ items: M.eachLike(carrier) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).company.GET('/v1/carriers', { params: { query: route } });
        expect(data?.items[0].countries).toContain('DE');
      });
  });

  it('lists the services of a carrier for a route', async () => {
    await pact
      .addInteraction()
      .given('carrier data serves a route', { routeFrom: 'DE', routeTo: 'FR' })
      .uponReceiving('a request to list the services of a carrier for a route')
      .withRequest('GET', statePath('/v1/carriers/${carrierId}/services', `/v1/carriers/${EX.carrierId}/services`), (b) =>
        b.headers(accountAuth).query(route),
      )
      .willRespondWith(200, (b) => b.headers(json).jsonBody({ items: M.eachLike(service) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/carriers/{carrier-id}/services', {
          params: { path: { 'carrier-id': EX.carrierId }, query: route },
        });
        expect(data?.items[0].routes.length).toBeGreaterThan(0);
      });
  });

  it('asks whether a service supports a route', async () => {
    await pact
      .addInteraction()
      .given('carrier data serves a route', { routeFrom: 'DE', routeTo: 'FR' })
      .uponReceiving('a request to check a route of a service')
      .withRequest('GET', statePath('/v1/services/${serviceId}/routes', `/v1/services/${EX.serviceId}/routes`), (b) =>
        b.headers(accountAuth).query(route),
      )
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({
          serviceId: uuid(EX.serviceId),
          routeFrom: 'DE',
          routeTo: 'FR',
          supported: true,
          dutiable: M.boolean(false),
          domestic: false,
        }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/services/{service-id}/routes', {
          params: { path: { 'service-id': EX.serviceId }, query: route },
        });
        expect(data?.supported).toBe(true);
      });
  });
});

describe('carrier definitions v0 (page/size) and v1 (cursor)', () => {
  it('creates a v0 carrier definition', async () => {
    const body = { carrierId: stateId('carrierId', EX.carrierId), name: 'DHL Parcel EU', group: 'EU' };
    await pact
      .addInteraction()
      .given('carrier data serves a route', { routeFrom: 'DE', routeTo: 'FR' })
      .uponReceiving('a request to create a v0 carrier definition')
      .withRequest('POST', '/v0/carrier-definitions', (b) => b.headers({ ...accountAuth, ...jsonRequest }).jsonBody(body))
      .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: uuid(EX.carrierDefinitionId) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.POST('/v0/carrier-definitions', {
          body: { carrierId: EX.carrierId, name: 'DHL Parcel EU', group: 'EU' },
        });
        expect(data?.id).toBe(EX.carrierDefinitionId);
      });
  });

  it('reads a page of v0 carrier definitions', async () => {
    await pact
      .addInteraction()
      .given('carrier definitions exist', { count: 3, group: 'EU' })
      .uponReceiving('a request for the first page of v0 carrier definitions')
      .withRequest('GET', '/v0/carrier-definitions', (b) => b.headers(accountAuth).query({ page: '0', size: '2', group: 'EU' }))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({ currentPage: 0, pageSize: 2, totalPages: 2, items: M.atLeastLike(carrierDefinition('STAGING'), 2, 2) }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v0/carrier-definitions', {
          params: { query: { page: 0, size: 2, group: 'EU' } },
        });
        expect(data?.totalPages).toBe(2);
        expect(data?.items).toHaveLength(2);
      });
  });

  it('gets the v0 404 problem with its errors array', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request for a v0 carrier definition that does not exist')
      .withRequest('GET', `/v0/carrier-definitions/${EX.missingId}`, (b) => b.headers(accountAuth))
      .willRespondWith(404, (b) =>
        b.headers({ 'Content-Type': problemContentType }).jsonBody({
          type: M.string('https://shipmock.dev/problems/not-found'),
          title: M.string('Resource not found'),
          status: 404,
          errors: M.eachLike({ status: '404', title: M.string('Resource not found') }),
        }),
      )
      .executeTest(async (server) => {
        const { error } = await consumerClient(server.url).account.GET('/v0/carrier-definitions/{carrierDefinitionId}', {
          params: { path: { carrierDefinitionId: EX.missingId } },
        });
        expect(error?.status).toBe(404);
        expect(error && 'errors' in error ? error.errors[0].status : undefined).toBe('404');
      });
  });

  it('lists v1 carrier definitions with a cursor', async () => {
    await pact
      .addInteraction()
      .given('carrier definitions exist', { count: 3, group: 'EU' })
      .uponReceiving('a request for the first page of v1 carrier definitions')
      .withRequest('GET', '/v1/carrier-definitions', (b) => b.headers(accountAuth).query({ limit: '2', group: 'EU' }))
      .willRespondWith(200, (b) =>
        b.headers(json).jsonBody({ items: M.atLeastLike(carrierDefinition('STAGING'), 2, 2), nextCursor: M.string('eyJvZmZzZXQiOjJ9') }),
      )
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/carrier-definitions', {
          params: { query: { limit: 2, group: 'EU' } },
        });
        expect(data?.nextCursor).toBeTruthy();
      });
  });

  it('fetches a v1 carrier definition in STAGING mode', async () => {
    await pact
      .addInteraction()
      .given('carrier definitions exist', { count: 1, group: 'EU' })
      .uponReceiving('a request to fetch a v1 carrier definition')
      .withRequest('GET', statePath('/v1/carrier-definitions/${carrierDefinitionId}', `/v1/carrier-definitions/${EX.carrierDefinitionId}`), (b) =>
        b.headers(accountAuth),
      )
      .willRespondWith(200, (b) => b.headers(json).jsonBody(carrierDefinition('STAGING')))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).account.GET('/v1/carrier-definitions/{carrier-definition-id}', {
          params: { path: { 'carrier-definition-id': EX.carrierDefinitionId } },
        });
        expect(data?.mode).toBe('STAGING');
      });
  });
});
