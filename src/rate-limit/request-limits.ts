import type { Clock } from '../clock/clock.js';
import type { StateRegistry } from '../store/state-registry.js';
import type { ReadWindows } from '../store/store.js';
import { createLoginLockout, type LoginLockout, type LoginLockoutConfig } from './login-lockout.js';
import { createRateLimiter, UNLIMITED, type RateLimitConfig, type RateLimiter, type WindowStore } from './rate-limiter.js';

/** Keys of callers without a verified credential: their (normalised) socket address. */
export const ADDRESS_KEY_PREFIX = 'ip:';

/** Windows held for verified principals (accounts, companies, affiliates, client ids). */
export const MAX_PRINCIPAL_KEYS = 100_000;
/** Windows held for client addresses (unverified callers). */
export const MAX_ADDRESS_KEYS = 10_000;

export interface RequestLimitsOptions {
  clock: Clock;
  /** Requests per window per verified credential. */
  principal: RateLimitConfig;
  /** Requests per window per client address for unverified callers. Default: {@link addressLimitOf}. */
  address?: RateLimitConfig;
  /** Wrong client secrets per (client id, address) before the pair is locked. Default 10 per 15 min. */
  lockout?: LoginLockoutConfig;
  maxPrincipalKeys?: number;
  maxAddressKeys?: number;
  /** Where the windows are kept (a shared store's values); default: Maps of this process. */
  windows?: { principals: WindowStore; addresses: WindowStore; lockout: WindowStore };
  /** The instance's state registry: the windows and the login locks register in it. */
  parts?: StateRegistry;
}

/** The two limiters behind the one the pipeline sees. */
export interface RequestLimits extends RateLimiter {
  readonly principals: RateLimiter;
  readonly addresses: RateLimiter;
  readonly lockout: LoginLockout;
}

/**
 * The address window when none is set: a tenth of the credential's limit (at least 1), same
 * window length. Small enough that a flood of garbage tokens from one address is cut off
 * early, large enough for a client that fumbles its token a few times.
 *
 * @example addressLimitOf({ limit: 6000, windowMs: 60_000 }) // { limit: 600, windowMs: 60000 }
 */
export function addressLimitOf(principal: RateLimitConfig): RateLimitConfig {
  return { limit: Math.max(1, Math.ceil(principal.limit / 10)), windowMs: principal.windowMs };
}

/**
 * One RateLimiter over two bounded maps (plus the login lockout, reset with them): keys of verified principals count in the principal
 * window, `ip:` keys (callers without a verified credential) in the smaller address window. A
 * forged token naming an account therefore never touches that account's window.
 *
 * @example
 * const limits = createRequestLimits({ clock, principal: { limit: 6000, windowMs: 60_000 } });
 * limits.consume('ip:203.0.113.7').limit // 600
 */
export function createRequestLimits(options: RequestLimitsOptions): RequestLimits {
  const principals = createRateLimiter({ clock: options.clock, ...options.principal, maxKeys: options.maxPrincipalKeys ?? MAX_PRINCIPAL_KEYS, windows: options.windows?.principals });
  const addresses = createRateLimiter({
    clock: options.clock,
    ...(options.address ?? addressLimitOf(options.principal)),
    maxKeys: options.maxAddressKeys ?? MAX_ADDRESS_KEYS,
    windows: options.windows?.addresses,
  });
  const lockout = createLoginLockout({ clock: options.clock, ...(options.lockout ?? { failures: 10, windowMs: 15 * 60_000 }), windows: options.windows?.lockout });
  const of = (key: string) => (key.startsWith(ADDRESS_KEY_PREFIX) ? addresses : principals);
  // Transient (a restart starts with fresh windows); with a shared store every process counts in
  // the same windows (kept in its values: windows-in-values.ts). A full reset clears them all.
  options.parts?.register({
    name: 'rate-limit-windows',
    description: 'request windows per verified credential and per client address',
    durable: false,
    storage: 'value',
    sharing: 'shared',
    reset: 'whole',
    snapshot: () => ({ principals: principals.windows(), addresses: addresses.windows() }),
    clear() {
      principals.reset();
      addresses.reset();
    },
  });
  options.parts?.register({
    name: 'login-lockout',
    description: 'wrong client secrets per (client id, address), locking the pair after too many',
    durable: false,
    storage: 'value',
    sharing: 'shared',
    reset: 'whole',
    snapshot: () => lockout.windows(),
    clear: () => lockout.reset(),
  });
  return {
    principals,
    addresses,
    lockout,
    consume(key) {
      const limiter = of(key);
      // Each map sweeps its ended windows when used; the other one is swept here, so an address
      // flood that stopped does not linger while only verified callers come.
      (limiter === principals ? addresses : principals).sweep();
      return limiter.consume(key);
    },
    sweep() {
      principals.sweep();
      addresses.sweep();
    },
    peek: (key) => of(key).peek(key),
    forget: (key) => of(key).forget(key),
    /** Sets the principal window; the address window follows it unless it was set on its own. */
    configure(config) {
      principals.configure(config);
      if (!options.address) addresses.configure(addressLimitOf(config));
    },
    get config() {
      return principals.config;
    },
    get size() {
      return principals.size + addresses.size;
    },
    /** Every window, and every login lock (a test's reset must not inherit a lock). */
    reset() {
      principals.reset();
      addresses.reset();
      lockout.reset();
    },
    windows: () => [...principals.windows(), ...addresses.windows()],
  };
}

/**
 * How the windows a read of an account counts in run (Store.countReadsAhead): the principal
 * windows' length and clock (a read counts in its Account token's, callers.ts keys it
 * `account:<id>`). Not counted while the limit is off.
 */
export function accountReadWindows(limits: RequestLimits, clock: Clock): ReadWindows {
  const { config } = limits.principals;
  return {
    windowMs: () => (config.limit >= UNLIMITED ? undefined : config.windowMs),
    now: () => clock.now(),
  };
}
