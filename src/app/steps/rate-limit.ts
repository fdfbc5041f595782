import { ProblemError } from '../../errors/problem.js';
import { authorizationOf, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { Caller, CallerIdentifier } from '../../rate-limit/callers.js';
import type { LoginLockout } from '../../rate-limit/login-lockout.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';
import { ADDRESS_KEY_PREFIX } from '../../rate-limit/request-limits.js';

export interface RateLimitOptions {
  limiter: RateLimiter;
  callers: CallerIdentifier;
  lockout: LoginLockout;
}

/**
 * Counts the request against its caller's window; the answer reports that window in
 * X-RateLimit-* (response-headers.ts). The caller is a verified credential (the token's
 * signature and expiry, or the client id with its secret, are checked here — cheaply, the token
 * service caches verified signatures), otherwise the client address in its own, smaller window:
 * a forged token naming an account never counts against that account (DESIGN, Bad input). Runs
 * before route match and auth, so 401s and 404s carry the headers too. Wrong client secrets are
 * counted per (client id, address) and lock that pair after too many (429). Preflights are
 * reported, not counted.
 */
export function rateLimit(options: RateLimitOptions) {
  return function rateLimitStep(req: ApiRequest, _res: ApiResponse, next: Next) {
    const caller = callerOf(req, options.callers);
    const request = requestState(req);
    if (request.method === 'OPTIONS') {
      request.rateLimit = request.rateLimitOverride ?? options.limiter.peek(caller.key);
      return next();
    }
    // A scenario's rate limit (src/scenarios) already counted this request in its own window.
    const state = request.rateLimitOverride ?? options.limiter.consume(caller.key);
    const login = caller.login;
    if (login?.outcome === 'refused') options.lockout.failed(login.clientId, login.address);
    if (login?.outcome === 'accepted') options.lockout.succeeded(login.clientId, login.address);
    if (login?.lock) {
      request.rateLimit = login.lock;
      throw new ProblemError('rate-limited', {
        detail: `Too many failed client-credential attempts for this client id from this address; retry after ${login.lock.resetSeconds} s`,
        headers: { 'Retry-After': String(login.lock.resetSeconds) },
      });
    }
    request.rateLimit = state;
    if (!state.limited) return next();
    // RFC 6585 §4: a 429 says how long to wait; Retry-After agrees with X-RateLimit-Reset.
    throw new ProblemError('rate-limited', {
      detail: `Rate limit of ${state.limit} requests per window exceeded; retry after ${state.resetSeconds} s. ${howToRaise(request.rateLimitOverride !== undefined, caller.key, request.scenarioHits)}`,
      headers: { 'Retry-After': String(state.resetSeconds) },
    });
  };
}

/** The part of a 429's detail that tells a load tester which setting made it (README, Rate limits). */
function howToRaise(fromScenario: boolean, key: string, hits: string[] | undefined): string {
  if (fromScenario) return `The limit comes from ${hits?.length ? `the scenario ${hits.join(', ')}` : 'an active scenario'}: deactivate it (DELETE /__admin/scenarios/{name}) to lift it.`;
  if (key.startsWith(ADDRESS_KEY_PREFIX)) return 'Callers without a valid credential are counted per address: send a valid token, or start shipmock with --address-rate-limit N/DUR to change it.';
  return 'Start shipmock with --rate-limit N/DUR (e.g. 100000/60s) or --rate-limit off to change it (startMock({ rateLimit })).';
}

/**
 * The request's caller, identified once and kept on the request state (scenario faults need it
 * before this step runs; the journal records its key).
 */
export function callerOf(req: ApiRequest, callers: CallerIdentifier): Caller {
  const state = requestState(req);
  state.caller ??= callers.identify(authorizationOf(req), req.socket.remoteAddress);
  state.rateLimitKey = state.caller.key;
  return state.caller;
}
