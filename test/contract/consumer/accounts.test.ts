import { describe, expect, it } from 'vitest';
import {
  EX, M, companyAuth, consumerClient, createPact, isoDateTime, jsonContentType, jsonRequest, problemBody, problemContentType,
  statePath, uuid,
} from './support/pact.js';

const pact = createPact();

const accountRequest = {
  alias: 'Warehouse Berlin',
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};

const accountResponse = {
  id: uuid(EX.accountId),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
  alias: M.string('Warehouse Berlin'),
  company: M.like(accountRequest.company),
  contact: M.like(accountRequest.contact),
  enabled: M.boolean(true),
  type: M.regex(/^(NORMAL|SHARED)$/, 'NORMAL'),
};

const accountPath = statePath('/v1/accounts/${accountId}', `/v1/accounts/${EX.accountId}`);

describe('accounts (Company token)', () => {
  it('creates an account', async () => {
    await pact
      .addInteraction()
      .given('the company has client credentials')
      .uponReceiving('a request to create an account')
      .withRequest('POST', '/v1/accounts', (b) => b.headers({ ...companyAuth, ...jsonRequest }).jsonBody(accountRequest))
      .willRespondWith(201, (b) => b.headers({ 'Content-Type': jsonContentType }).jsonBody({ id: uuid(EX.accountId) }))
      .executeTest(async (server) => {
        const { data, response } = await consumerClient(server.url).company.POST('/v1/accounts', { body: accountRequest });
        expect(response.status).toBe(201);
        expect(data?.id).toBe(EX.accountId);
      });
  });

  it('lists the accounts of the company', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to list accounts')
      .withRequest('GET', '/v1/accounts', (b) => b.headers(companyAuth).query({ limit: '10' }))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': jsonContentType }).jsonBody({ items: M.eachLike(accountResponse) }))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).company.GET('/v1/accounts', { params: { query: { limit: 10 } } });
        expect(data?.items[0].company.countryCode).toBe('DE');
      });
  });

  it('fetches an account', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to fetch an account')
      .withRequest('GET', accountPath, (b) => b.headers(companyAuth))
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': jsonContentType }).jsonBody(accountResponse))
      .executeTest(async (server) => {
        const { data } = await consumerClient(server.url).company.GET('/v1/accounts/{account-id}', {
          params: { path: { 'account-id': EX.accountId } },
        });
        expect(data?.alias).toBe('Warehouse Berlin');
        expect(data?.enabled).toBe(true);
      });
  });

  it('replaces an account', async () => {
    const replacement = { ...accountRequest, alias: 'Warehouse Hamburg', enabled: false };
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to replace an account')
      .withRequest('PUT', accountPath, (b) => b.headers({ ...companyAuth, ...jsonRequest }).jsonBody(replacement))
      .willRespondWith(204)
      .executeTest(async (server) => {
        const { response } = await consumerClient(server.url).company.PUT('/v1/accounts/{account-id}', {
          params: { path: { 'account-id': EX.accountId } },
          body: replacement,
        });
        expect(response.status).toBe(204);
      });
  });

  it('deletes an account', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request to delete an account')
      .withRequest('DELETE', accountPath, (b) => b.headers(companyAuth))
      .willRespondWith(204)
      .executeTest(async (server) => {
        const { response } = await consumerClient(server.url).company.DELETE('/v1/accounts/{account-id}', {
          params: { path: { 'account-id': EX.accountId } },
        });
        expect(response.status).toBe(204);
      });
  });

  it('gets a 404 problem for an account that does not exist', async () => {
    await pact
      .addInteraction()
      .given('the company has client credentials')
      .uponReceiving('a request to fetch an account that does not exist')
      .withRequest('GET', `/v1/accounts/${EX.missingId}`, (b) => b.headers(companyAuth))
      .willRespondWith(404, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(404)))
      .executeTest(async (server) => {
        const { error, response } = await consumerClient(server.url).company.GET('/v1/accounts/{account-id}', {
          params: { path: { 'account-id': EX.missingId } },
        });
        expect(response.status).toBe(404);
        expect(error?.status).toBe(404);
      });
  });
});
