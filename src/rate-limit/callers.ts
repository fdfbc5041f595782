import type { Authorization } from '../auth/authorization.js';
import type { CredentialRegistry } from '../auth/credentials.js';
import type { TokenClaims, TokenService } from '../auth/tokens.js';
import type { LoginLockout } from './login-lockout.js';
import type { RateLimiter, RateLimitState } from './rate-limiter.js';
import { ADDRESS_KEY_PREFIX } from './request-limits.js';

/**
 * Who a request counts against. `key` names a verified principal (`account:…`, `affiliate:…`,
 * `company:…`, `client:…`) only when the credential checked out — a token's signature, expiry
 * and forced expiry, or a known client id with its secret; anything else counts against the
 * caller's address (`ip:…`).
 */
export interface Caller {
  key: string;
  verified: boolean;
  /** The claims of a verified bearer token: the only token facts any step may act on. */
  claims?: TokenClaims;
  /** The verified bearer token itself (a scenario may force it to expire). */
  token?: string;
  /** A Basic client-credentials attempt and what became of it. */
  login?: {
    clientId: string;
    address: string;
    /** accepted / refused: the secret was checked; locked / not-checked: it was not looked at. */
    outcome: 'accepted' | 'refused' | 'locked' | 'not-checked';
    /** The lock's window when `locked`. */
    lock?: RateLimitState;
  };
}

export interface CallerIdentifierOptions {
  tokens: TokenService;
  credentials: CredentialRegistry;
  lockout: LoginLockout;
  /** The request limits: a Basic attempt from an address whose window is used up is not checked. */
  limiter: RateLimiter;
}

export interface CallerIdentifier {
  /** `authorization`: the request's Authorization header, parsed (src/auth/authorization.ts). */
  identify(authorization: Authorization, remoteAddress: string | undefined): Caller;
}

/** `::ffff:203.0.113.7` (an IPv4 client on a dual-stack socket) counts as `203.0.113.7`. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * @example
 * const callers = createCallerIdentifier({ tokens, credentials, lockout, limiter });
 * callers.identify(parseAuthorization('Bearer forged.token.here'), '203.0.113.7').key // 'ip:203.0.113.7'
 */
export function createCallerIdentifier(options: CallerIdentifierOptions): CallerIdentifier {
  return {
    identify(authorization, remoteAddress) {
      const address = normalizeAddress(remoteAddress);
      const anonymous: Caller = { key: `${ADDRESS_KEY_PREFIX}${address}`, verified: false };
      if (authorization.scheme === 'bearer') {
        // The token service remembers verified signatures, so this is a map lookup per call;
        // garbage and forged tokens are never remembered.
        const token = authorization.token;
        const verified = token ? options.tokens.verify(token) : undefined;
        if (!verified?.ok) return anonymous;
        const { claims } = verified;
        if (claims.aid) return { key: `account:${claims.aid}`, verified: true, claims, token };
        if (claims.afid) return { key: `affiliate:${claims.afid}`, verified: true, claims, token };
        if (claims.cid) return { key: `company:${claims.cid}`, verified: true, claims, token };
        return { key: `client:${claims.sub}`, verified: true, claims, token };
      }

      if (authorization.scheme === 'basic' && authorization.credentials) {
        const { clientId, clientSecret } = authorization.credentials;
        // A locked pair is not checked at all: the answer must not tell a right secret from a wrong one.
        const lock = options.lockout.locked(clientId, address);
        if (lock) return { ...anonymous, login: { clientId, address, outcome: 'locked', lock } };
        // Nor is a secret sent from an address that used up its window: the 429 it gets must not
        // differ between a right and a wrong guess.
        if (options.limiter.peek(anonymous.key).remaining === 0) return { ...anonymous, login: { clientId, address, outcome: 'not-checked' } };
        const identity = options.credentials.authenticate(clientId, clientSecret);
        if (!identity) return { ...anonymous, login: { clientId, address, outcome: 'refused' } };
        return { key: `client:${clientId}`, verified: true, login: { clientId, address, outcome: 'accepted' } };
      }
      return anonymous;
    },
  };
}
