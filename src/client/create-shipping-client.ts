import createClient, { type Client } from 'openapi-fetch';
import { withRetryAfter } from './retry-on-429.js';
import type { paths } from './schema.js';
import { createTokenManager, type TokenManager, type TokenScope } from './token-manager.js';

/** The typed openapi-fetch client of the Shipping Platform API (paths from contract/openapi.yaml). */
export type ShippingApi = Client<paths>;

export interface ShippingClientOptions {
  /** Base address of the service, e.g. http://127.0.0.1:4010 or https://api.example.com */
  baseUrl: string;
  /** The company id issued at signup. */
  companyId: string;
  clientId: string;
  clientSecret: string;
  /** The account `client.account` acts for; other accounts via `client.forAccount(id)`. */
  accountId?: string;
  /** Sends one request. Default globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Current time in epoch ms, for token expiry and HTTP-date Retry-After. Default Date.now. */
  now?: () => number;
  /** Waits between 429 retries. Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Renew a token this long before its `expiresAt`. Default 60 s. */
  renewBeforeMs?: number;
  /** Retries of a request answered 429. Default 3. */
  maxRetries?: number;
  /** Longest Retry-After the client waits for; a longer one is returned as the 429. Default 60 s. */
  maxRetryWaitMs?: number;
}

export interface ShippingClient {
  /** Calls with the Company token (accounts, carrier data, company reports, company mock events). */
  company: ShippingApi;
  /** Calls with the Account token of `options.accountId` (throws on use when none was given). */
  account: ShippingApi;
  /** Calls with the Account token of another account of the company. */
  forAccount(accountId: string): ShippingApi;
  /** Calls with Basic client credentials (token endpoints, carrier data, affiliate config). */
  clientCredentials: ShippingApi;
  /** Calls with a fixed bearer token, never renewed (tokens you manage yourself). */
  withToken(accessToken: string): ShippingApi;
  /** The token cache behind `company`, `account` and `forAccount`. */
  tokens: TokenManager;
}

/**
 * A small typed client for the Shipping Platform API on openapi-fetch. Tokens are fetched on
 * first use, cached, renewed before `expiresAt`, and renewed once more when a call is answered
 * 401 (the token was revoked or the server's clock disagrees); 429 answers are retried after
 * Retry-After, a bounded number of times. Every call returns openapi-fetch's
 * `{ data, error, response }` typed from the contract.
 *
 * @example
 * const client = createShippingClient({ baseUrl: mock.url, companyId, clientId, clientSecret });
 * const { data } = await client.company.POST('/v1/accounts', { body: account });
 * const shipping = client.forAccount(data!.id);
 * const { data: page } = await shipping.GET('/v1/addresses', { params: { query: { limit: 10 } } });
 */
export function createShippingClient(options: ShippingClientOptions): ShippingClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const send = withRetryAfter(baseFetch, { maxRetries: options.maxRetries, maxWaitMs: options.maxRetryWaitMs, sleep: options.sleep, now: options.now });
  const tokens = createTokenManager({ ...options, send, now: options.now, renewBeforeMs: options.renewBeforeMs });
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  const withAuthorization = (request: Request, value: string) => {
    const headers = new Headers(request.headers);
    headers.set('Authorization', value);
    return new Request(request, { headers });
  };

  /** Bearer calls for one scope: one renewal and resend when the answer is 401. */
  const bearerFetch = (scope: TokenScope) => async (request: Request) => {
    const first = await send(withAuthorization(request.clone(), `Bearer ${await tokens.token(scope)}`));
    if (first.status !== 401) return first;
    await first.body?.cancel();
    tokens.invalidate(scope);
    return send(withAuthorization(request, `Bearer ${await tokens.token(scope)}`));
  };

  const api = (fetch: (request: Request) => Promise<Response>) => createClient<paths>({ baseUrl, fetch });
  const accounts = new Map<string, ShippingApi>();
  const forAccount = (accountId: string) => {
    let found = accounts.get(accountId);
    if (!found) accounts.set(accountId, (found = api(bearerFetch({ level: 'ACCOUNT', accountId }))));
    return found;
  };
  const noAccount = api(async () => {
    throw new Error('createShippingClient: no accountId was given; use client.forAccount(accountId)');
  });

  return {
    company: api(bearerFetch({ level: 'COMPANY' })),
    get account() {
      return options.accountId ? forAccount(options.accountId) : noAccount;
    },
    forAccount,
    clientCredentials: api((request) => send(withAuthorization(request, tokens.basicAuthorization))),
    withToken: (accessToken) => api((request) => send(withAuthorization(request, `Bearer ${accessToken}`))),
    tokens,
  };
}
