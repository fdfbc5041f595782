import { BUILT_IN_CREDENTIALS_PATH, createCredentialRegistry, readCredentialsFile, type CompanyCredentials, type CredentialRegistry } from '../auth/credentials.js';
import { createTokenService, type TokenService } from '../auth/tokens.js';
import { createCarrierInterceptors, type CarrierInterceptors } from '../carriers/interceptors.js';
import { loadCatalogue } from '../carrier-catalogue/load-catalogue.js';
import type { Catalogue } from '../carrier-catalogue/model.js';
import { createClock, type Clock } from '../clock/clock.js';
import { resolveOptions, type MockOptions, type ResolvedOptions } from '../config/options.js';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import type { Contract } from '../contract/load-contract.js';
import { createValidators, type ContractValidators } from '../contract/validators.js';
import { createRouteMatcher, type RouteMatcher } from '../contract/route-matcher.js';
import { createChannelSource } from '../resources/event-channels/subscribed-channels.js';
import { createEventBus, type EventBus } from '../events/event-bus.js';
import type { Delivery } from '../events/delivery-log.js';
import { createWebhookDispatcher, type WebhookDispatcher } from '../events/webhook-dispatcher.js';
import { resolveWebhookOptions } from '../events/webhook-options.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { createRandom, type Random } from '../random/random.js';
import { createCallerIdentifier, type CallerIdentifier } from '../rate-limit/callers.js';
import type { LoginLockout } from '../rate-limit/login-lockout.js';
import { createRequestLimits, type RequestLimits } from '../rate-limit/request-limits.js';
import { isWindow } from '../rate-limit/windows-in-values.js';
import { createStore, type Store } from '../store/store.js';
import { createSharedJournal } from '../journal/shared-journal.js';
import { DEFAULT_JOURNAL_CAPACITY, type Journal } from '../journal/journal.js';
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
  /** Request windows: per verified credential, and per client address for everyone else. */
  rateLimiter: RequestLimits;
  /** Wrong client secrets per (client id, address), locking the pair after too many. */
  loginLockout: LoginLockout;
  /** Who a request counts against (verifies the token or client credentials). */
  callers: CallerIdentifier;
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

/** The collection of `store.system` that holds the webhook deliveries (queue, retries, dead letters). */
const WEBHOOK_DELIVERIES = 'webhook-deliveries';

/** What the composition root may hand in instead of building it (startMock: a durable store). */
export interface RuntimeDeps {
  /** The store; default an in-memory one. A durable store gets the state parts registered. */
  store?: Store;
}

export function createRuntime(input: MockOptions = {}, logger?: Logger, deps: RuntimeDeps = {}): MockRuntime {
  const options = resolveOptions(input);
  const log = logger ?? createLogger({ level: options.logLevel, format: options.logFormat });
  const { contract, schemas } = loadCompiledContract(input.contract);
  // A timer that throws (tracker progression, account expiry, webhook retry) is logged and
  // counted on GET /__admin/clock instead of crashing the process.
  const store = deps.store ?? createStore();
  const clock = createClock({
    ...input.clock,
    onTimerError: (error) => log.error({ err: error }, 'clock timer failed'),
    // A timer that falls due (a tracker step, a webhook retry, an account's expiry) is a unit of
    // work of its own: its writes start from current state and are committed like a request's.
    runDue: (fire) => void store.transaction(fire, 'background').catch((error: Error) => log.error({ err: error }, 'clock timer could not run: the store is unavailable')),
  });
  // A durable store commits soon after any draw, so an id handed out by background work (a
  // delivery id) is saved before it can be seen, even when no request follows. Processes
  // sharing a store each draw from a stream of their own (the store derives its seed).
  const random = createRandom(store.process.seed(options.seed), store.durable ? { onDraw: store.touch } : {});
  const credentials = createCredentialRegistry(input.credentials ?? readCredentialsFile(BUILT_IN_CREDENTIALS_PATH));
  const company = credentials.defaultCompany;
  if (input.companyId) company.companyId = input.companyId;
  if (input.clientId) company.clientId = input.clientId;
  if (input.clientSecret) company.clientSecret = input.clientSecret;
  const tokenRevocations = createTokenRevocations(clock);
  const scenarios = createScenarioEngine({ clock, random, loader: createScenarioLoader() });
  const rateLimiter = createRequestLimits({
    clock,
    principal: options.rateLimit,
    address: options.addressRateLimit,
    lockout: options.loginLockout,
    // Where the windows live is the store's: Maps of this process, or rows every process counts in.
    windows: {
      principals: store.counters('rate:principal', isWindow),
      addresses: store.counters('rate:address', isWindow),
      lockout: store.counters('rate:lockout', isWindow),
    },
  });
  registerStateParts(store, { random, clock, scenarios, tokenRevocations, credentials });
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
    // The queue, waiting retries and dead letters are store state: durable with --data.
    records: () => store.system.collection<Delivery>(WEBHOOK_DELIVERIES),
    // Scenario webhook effects (failing receiver, timeouts, lost acknowledgements) per attempt.
    transport: withScenarioWebhookFaults(createWebhookTransport({ timeoutMs: webhookOptions.timeoutMs, maxSockets: webhookOptions.maxSockets }), scenarios),
    // Attempt outcomes are units of work; which process sends a delivery is the store's to say.
    transaction: store.transaction,
    process: store.process,
  });
  const tokens = withRevocations(createTokenService({ secret: input.tokenSecret, now: clock.now }), tokenRevocations);
  const loginLockout = rateLimiter.lockout;
  return {
    options,
    contract,
    validators: createValidators(contract, schemas),
    routes: createRouteMatcher(contract.operations),
    clock,
    random,
    store,
    events,
    tokens,
    credentials,
    rateLimiter,
    loginLockout,
    callers: createCallerIdentifier({ tokens, credentials, lockout: loginLockout, limiter: rateLimiter }),
    logger: log,
    webhooks,
    catalogue: loadCatalogue(),
    carrierInterceptors,
    scenarios,
    // The journal shows the traffic of every process on the store's feed (shared-journal.ts).
    journal: createSharedJournal({ capacity: input.journalSize, feed: store.feed('journal', input.journalSize ?? DEFAULT_JOURNAL_CAPACITY) }),
    tokenRevocations,
    dispose() {
      webhooks.dispose();
      clock.dispose();
      store.close();
    },
  };
}

/**
 * The state beside the collections that a durable store saves with each commit (and gives back
 * here, at start): random positions (ids never repeat), the clock, active scenarios with their
 * counters, forced token expiries, companies added at run time. Registered before the start
 * scenarios are activated, so --scenario flags apply on top of the saved ones.
 */
function registerStateParts(
  store: Store,
  parts: { random: Random; clock: Clock; scenarios: ScenarioEngine; tokenRevocations: TokenRevocations; credentials: CredentialRegistry },
): void {
  if (!store.durable) return;
  const { random, clock, scenarios, tokenRevocations, credentials } = parts;
  store.part('random', { snapshot: () => random.state(), restore: (saved) => random.restoreState(saved as ReturnType<Random['state']>) });
  store.part('clock', { snapshot: () => clock.snapshot(), restore: (saved) => clock.restore(saved as ReturnType<Clock['snapshot']>) });
  store.part('scenarios', { snapshot: () => scenarios.snapshot(), restore: (saved) => scenarios.restore(saved as ReturnType<ScenarioEngine['snapshot']>) });
  store.part('token-revocations', {
    snapshot: () => tokenRevocations.snapshot(),
    restore: (saved) => tokenRevocations.restore(saved as ReturnType<TokenRevocations['snapshot']>),
  });
  store.part('companies', { snapshot: () => credentials.companies, restore: (saved) => credentials.restoreCompanies(saved as CompanyCredentials[]) });
}
