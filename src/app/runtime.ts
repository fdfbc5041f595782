import { BUILT_IN_CREDENTIALS_PATH, createCredentialRegistry, readCredentialsFile, type CredentialRegistry } from '../auth/credentials.js';
import { createTokenService, type TokenService } from '../auth/tokens.js';
import { createClock, type Clock } from '../clock/clock.js';
import { resolveOptions, type MockOptions, type ResolvedOptions } from '../config/options.js';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import type { Contract } from '../contract/load-contract.js';
import { createValidators, type ContractValidators } from '../contract/validators.js';
import { createRouteMatcher, type RouteMatcher } from '../contract/route-matcher.js';
import { createEventBus, type EventBus } from '../events/event-bus.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { createRandom, type Random } from '../random/random.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limiter.js';
import { createStore, type Store } from '../store/store.js';

/**
 * Everything one mock instance owns, built once by createRuntime and passed down explicitly.
 * Two runtimes in one process share nothing (DESIGN: no module-level singletons).
 */
export interface MockRuntime {
  options: ResolvedOptions;
  contract: Contract;
  validators: ContractValidators;
  routes: RouteMatcher;
  clock: Clock;
  random: Random;
  store: Store;
  events: EventBus;
  tokens: TokenService;
  credentials: CredentialRegistry;
  rateLimiter: RateLimiter;
  logger: Logger;
}

export function createRuntime(input: MockOptions = {}, logger?: Logger): MockRuntime {
  const options = resolveOptions(input);
  const log = logger ?? createLogger({ level: options.logLevel, format: options.logFormat });
  const { contract, schemas } = loadCompiledContract(input.contract);
  const clock = createClock(input.clock);
  const random = createRandom(options.seed);
  const credentials = createCredentialRegistry(input.credentials ?? readCredentialsFile(BUILT_IN_CREDENTIALS_PATH));
  const company = credentials.defaultCompany;
  if (input.companyId) company.companyId = input.companyId;
  if (input.clientId) company.clientId = input.clientId;
  if (input.clientSecret) company.clientSecret = input.clientSecret;
  return {
    options,
    contract,
    validators: createValidators(contract, schemas),
    routes: createRouteMatcher(contract.operations),
    clock,
    random,
    store: createStore(),
    events: createEventBus({ clock, random, onListenerError: (error) => log.error({ err: error }, 'event listener failed') }),
    tokens: createTokenService({ secret: input.tokenSecret, now: clock.now }),
    credentials,
    rateLimiter: createRateLimiter({ clock, ...options.rateLimit }),
    logger: log,
  };
}
