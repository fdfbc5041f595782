import { BUILT_IN_CREDENTIALS_PATH, createCredentialRegistry, readCredentialsFile, type CredentialRegistry } from '../auth/credentials.js';
import { createTokenService, type TokenService } from '../auth/tokens.js';
import { createCarrierInterceptors, type CarrierInterceptors } from '../carriers/interceptors.js';
import { loadCatalogue } from '../catalogue/load-catalogue.js';
import type { Catalogue } from '../catalogue/model.js';
import { createClock, type Clock } from '../clock/clock.js';
import { resolveOptions, type MockOptions, type ResolvedOptions } from '../config/options.js';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import type { Contract } from '../contract/load-contract.js';
import { createValidators, type ContractValidators } from '../contract/validators.js';
import { createRouteMatcher, type RouteMatcher } from '../contract/route-matcher.js';
import { createChannelSource } from '../events/channel-source.js';
import { createEventBus, type EventBus } from '../events/event-bus.js';
import { createWebhookDispatcher, type WebhookDispatcher } from '../events/webhook-dispatcher.js';
import { resolveWebhookOptions } from '../events/webhook-options.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { createRandom, type Random } from '../random/random.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limiter.js';
import { createStore, type Store } from '../store/store.js';
import { createJournal, type Journal } from '../journal/journal.js';
import { scenarioCarrierInterceptor } from '../scenarios/carrier-faults.js';
import { withScenarioWebhookFaults } from '../scenarios/webhook-faults.js';
import { createWebhookTransport } from '../events/webhook-post.js';
import { createScenarioEngine, type ScenarioEngine } from '../scenarios/engine.js';
import { createScenarioLoader } from '../scenarios/scenario-file.js';
import { createTokenRevocations, withRevocations, type TokenRevocations } from '../scenarios/token-revocations.js';

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
  /** Webhook delivery of bus events to Event Channels, and its delivery log. */
  webhooks: WebhookDispatcher;
  /** The carrier catalogue (fixtures/catalogue.json), loaded once, immutable. */
  catalogue: Catalogue;
  /** Fault injection on PRODUCTION calls to the simulated carriers (src/carriers/interceptors.ts). */
  carrierInterceptors: CarrierInterceptors;
  /** QA control plane (README, section qa): active scenarios, the request journal, forced token expiry. */
  scenarios: ScenarioEngine;
  journal: Journal;
  tokenRevocations: TokenRevocations;
  /** Stops background work (webhook deliveries, clock timers); the instance is unusable after. */
  dispose(): void;
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
  const store = createStore();
  const tokenRevocations = createTokenRevocations(clock);
  const scenarios = createScenarioEngine({ clock, random, loader: createScenarioLoader() });
  for (const entry of input.scenarios ?? []) {
    const { scenario, ...scope } = typeof entry === 'string' ? { scenario: entry } : entry;
    scenarios.activate(scenario, { ...scope, source: 'start' });
  }
  const carrierInterceptors = createCarrierInterceptors();
  // Scenario carrier effects (fail / reject / slow) act on PRODUCTION calls only, like every interceptor.
  carrierInterceptors.add(scenarioCarrierInterceptor(scenarios));
  const events = createEventBus({ clock, random, onListenerError: (error) => log.error({ err: error }, 'event listener failed') });
  const webhookOptions = resolveWebhookOptions(input.webhooks);
  const webhooks = createWebhookDispatcher({
    clock,
    random,
    events,
    channels: createChannelSource(store),
    logger: log,
    options: webhookOptions,
    // Scenario webhook effects (failing receiver, timeouts, lost acknowledgements) per attempt.
    transport: withScenarioWebhookFaults(createWebhookTransport({ timeoutMs: webhookOptions.timeoutMs, maxSockets: webhookOptions.maxSockets }), scenarios),
  });
  return {
    options,
    contract,
    validators: createValidators(contract, schemas),
    routes: createRouteMatcher(contract.operations),
    clock,
    random,
    store,
    events,
    tokens: withRevocations(createTokenService({ secret: input.tokenSecret, now: clock.now }), tokenRevocations),
    credentials,
    rateLimiter: createRateLimiter({ clock, ...options.rateLimit }),
    logger: log,
    webhooks,
    catalogue: loadCatalogue(),
    carrierInterceptors,
    scenarios,
    journal: createJournal({ capacity: input.journalSize }),
    tokenRevocations,
    dispose() {
      webhooks.dispose();
      clock.dispose();
    },
  };
}
