import type { components } from './schema.js';
import { ShippingApiError, readProblem } from './errors.js';

type AuthorizationResponse = components['schemas']['AuthorizationResponse'];

/** Which token a call needs: the Company token, or the Account token of one account. */
export type TokenScope = { level: 'COMPANY' } | { level: 'ACCOUNT'; accountId: string };

/** A token as the token endpoint reported it (`expiresAt` in epoch ms, spec "Token request and response"). */
export interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

export interface TokenManagerOptions {
  baseUrl: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
  /** Sends one request (already wrapped with Retry-After handling). */
  send: (request: Request) => Promise<Response>;
  /** Current time in epoch ms; tests inject a fake. Default Date.now. */
  now?: () => number;
  /** Renew this long before `expiresAt` so a token never expires in flight. Default 60 s. */
  renewBeforeMs?: number;
}

export interface TokenManager {
  /** A valid access token for the scope: cached, or fetched when missing or about to expire. */
  token(scope: TokenScope): Promise<string>;
  /** Forgets the scope's token (after a 401 the next call fetches a new one). */
  invalidate(scope: TokenScope): void;
  /** Puts a token into the cache, e.g. one obtained elsewhere or a fixed one in tests. */
  seed(scope: TokenScope, token: CachedToken): void;
  /** The `Authorization: Basic …` value of the client credentials. */
  readonly basicAuthorization: string;
}

const keyOf = (scope: TokenScope) => (scope.level === 'COMPANY' ? 'company' : `account:${scope.accountId}`);

/**
 * Fetches, caches and renews Company and Account tokens. Spec, Tokens: "A Company or Account
 * token is valid for 4 hours. After that it is renewed by calling the token endpoint again."
 * Expiry is judged by the `expiresAt` the endpoint returned, against the injectable clock;
 * concurrent callers of one scope share a single token request.
 *
 * @example
 * const tokens = createTokenManager({ baseUrl, companyId, clientId, clientSecret, send: fetch });
 * const bearer = await tokens.token({ level: 'ACCOUNT', accountId });
 */
export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const now = options.now ?? Date.now;
  const renewBeforeMs = options.renewBeforeMs ?? 60_000;
  const cache = new Map<string, CachedToken>();
  const inFlight = new Map<string, Promise<CachedToken>>();
  const basicAuthorization = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function issue(scope: TokenScope): Promise<CachedToken> {
    const path =
      scope.level === 'COMPANY'
        ? `/v1/companies/${encodeURIComponent(options.companyId)}/tokens`
        : `/v1/accounts/${encodeURIComponent(scope.accountId)}/tokens`;
    const response = await options.send(
      new Request(base + path, {
        method: 'POST',
        headers: { Authorization: basicAuthorization, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ grantType: 'client_credentials' }),
      }),
    );
    if (response.status !== 200) {
      throw new ShippingApiError(`token request for ${keyOf(scope)} failed with ${response.status}`, response.status, await readProblem(response));
    }
    const body = (await response.json()) as AuthorizationResponse;
    return { accessToken: body.accessToken, expiresAt: body.expiresAt };
  }

  const fresh = (token: CachedToken | undefined) => token !== undefined && now() < token.expiresAt - renewBeforeMs;

  return {
    async token(scope) {
      const key = keyOf(scope);
      const cached = cache.get(key);
      if (fresh(cached)) return cached!.accessToken;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = issue(scope).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const token = await pending;
      cache.set(key, token);
      return token.accessToken;
    },
    invalidate(scope) {
      cache.delete(keyOf(scope));
    },
    seed(scope, token) {
      cache.set(keyOf(scope), token);
    },
    basicAuthorization,
  };
}
