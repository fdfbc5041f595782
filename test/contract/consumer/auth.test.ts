import { describe, expect, it } from 'vitest';
import { ShippingApiError } from '../../../src/client/errors.js';
import {
  EX, M, NOW, accountAuth, basicAuth, companyAuth, consumerClient, createPact, jsonContentType, jsonRequest,
  problemBody, problemContentType, statePath,
} from './support/pact.js';

const pact = createPact();
const tokenResponse = {
  accessToken: M.string('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJsdmwiOiJDT01QQU5ZIn0.c2lnbmF0dXJl'),
  expiresAt: M.integer(NOW + 4 * 3_600_000),
  tokenType: 'Bearer',
};

describe('tokens and token levels', () => {
  it('gets a Company token with client credentials', async () => {
    await pact
      .addInteraction()
      .given('the company has client credentials')
      .uponReceiving('a request for a Company token')
      .withRequest('POST', statePath('/v1/companies/${companyId}/tokens', `/v1/companies/${EX.companyId}/tokens`), (b) =>
        b.headers({ ...basicAuth, ...jsonRequest }).jsonBody({ grantType: 'client_credentials' }),
      )
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': jsonContentType }).jsonBody(tokenResponse))
      .executeTest(async (server) => {
        const client = consumerClient(server.url);
        client.tokens.invalidate({ level: 'COMPANY' });
        expect(await client.tokens.token({ level: 'COMPANY' })).toMatch(/^eyJ/);
      });
  });

  it('gets an Account token for an account of the company', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request for an Account token')
      .withRequest('POST', statePath('/v1/accounts/${accountId}/tokens', `/v1/accounts/${EX.accountId}/tokens`), (b) =>
        b.headers({ ...basicAuth, ...jsonRequest }).jsonBody({ grantType: 'client_credentials' }),
      )
      .willRespondWith(200, (b) => b.headers({ 'Content-Type': jsonContentType }).jsonBody(tokenResponse))
      .executeTest(async (server) => {
        const client = consumerClient(server.url);
        client.tokens.invalidate({ level: 'ACCOUNT', accountId: EX.accountId });
        expect(await client.tokens.token({ level: 'ACCOUNT', accountId: EX.accountId })).toMatch(/^eyJ/);
      });
  });

  it('reports wrong client credentials as a 401 problem', async () => {
    await pact
      .addInteraction()
      .given('the company has client credentials')
      .uponReceiving('a Company token request with a wrong client secret')
      .withRequest('POST', statePath('/v1/companies/${companyId}/tokens', `/v1/companies/${EX.companyId}/tokens`), (b) =>
        b
          .headers({
            Authorization: M.fromProviderState('Basic ${wrongBasicCredentials}', `Basic ${Buffer.from(`${EX.clientId}:wrong-secret`).toString('base64')}`),
            ...jsonRequest,
          })
          .jsonBody({ grantType: 'client_credentials' }),
      )
      .willRespondWith(401, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(401)))
      .executeTest(async (server) => {
        const client = consumerClient(server.url, { clientSecret: 'wrong-secret' });
        client.tokens.invalidate({ level: 'COMPANY' });
        const failure = await client.tokens.token({ level: 'COMPANY' }).catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(ShippingApiError);
        expect((failure as ShippingApiError).status).toBe(401);
        expect((failure as ShippingApiError).problem?.status).toBe(401);
      });
  });

  it('gets a 401 problem for a token the service did not issue', async () => {
    await pact
      .addInteraction()
      .uponReceiving('a request with a token the service did not issue')
      .withRequest('GET', '/v1/addresses', (b) => b.headers({ Authorization: 'Bearer not-a-token-of-this-service' }))
      .willRespondWith(401, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(401)))
      .executeTest(async (server) => {
        const { error, response } = await consumerClient(server.url).withToken('not-a-token-of-this-service').GET('/v1/addresses');
        expect(response.status).toBe(401);
        expect(error?.status).toBe(401);
      });
  });

  it('gets a 401 problem for an expired Account token', async () => {
    await pact
      .addInteraction()
      .given('the Account token has expired')
      .uponReceiving('a request with an expired Account token')
      .withRequest('GET', '/v1/addresses', (b) => b.headers(accountAuth))
      .willRespondWith(401, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(401)))
      .executeTest(async (server) => {
        const { error, response } = await consumerClient(server.url).withToken(EX.accountToken).GET('/v1/addresses');
        expect(response.status).toBe(401);
        expect(error?.title).toEqual(expect.any(String));
      });
  });

  it('gets a 403 problem when a Company token is used on an account operation', async () => {
    await pact
      .addInteraction()
      .given('an account exists', { alias: 'Warehouse Berlin' })
      .uponReceiving('a request for addresses with a Company token')
      .withRequest('GET', '/v1/addresses', (b) => b.headers(companyAuth))
      .willRespondWith(403, (b) => b.headers({ 'Content-Type': problemContentType }).jsonBody(problemBody(403)))
      .executeTest(async (server) => {
        const { error, response } = await consumerClient(server.url).company.GET('/v1/addresses');
        expect(response.status).toBe(403);
        expect(error?.status).toBe(403);
      });
  });
});
