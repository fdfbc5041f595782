import { randomBytes } from 'node:crypto';
import { BUILT_IN_CREDENTIALS_PATH, createCredentialRegistry, readCredentialsFile, type CredentialRegistry } from '../auth/credentials.js';
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
import { accountReadWindows, createRequestLimits, type RequestLimits } from '../rate-limit/request-limits.js';
import { isWindow } from '../rate-limit/windows-in-values.js';
import { createStore, type Store } from '../store/store.js';
import type { StateRegistry } from '../store/state-registry.js';
import { createRecentEvents, type RecentEvents } from '../events/recent-events.js';
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
  /** The newest published events, for the inspector (admin/inspection.ts). */
  recentEvents: RecentEvents;
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
  // Clock and random are foundations below the store: they are registered here, where they are built.
  registerClockAndRandom(store.parts, clock, random);
  const credentials = createCredentialRegistry(input.credentials ?? readCredentialsFile(BUILT_IN_CREDENTIALS_PATH), store.parts);
  const company = credentials.defaultCompany;
  if (input.companyId) company.companyId = input.companyId;
  if (input.clientId) company.clientId = input.clientId;
  if (input.clientSecret) company.clientSecret = input.clientSecret;
  const tokenRevocations = createTokenRevocations(clock, store.parts);
  const scenarios = createScenarioEngine({ clock, random, loader: createScenarioLoader(), parts: store.parts });
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
    parts: store.parts,
  });
  // A shared store counts a read's request in its account's window in the read's own pull (no commit after it).
  store.countReadsAhead?.(accountReadWindows(rateLimiter, clock));
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
  store.parts.register({
    name: 'webhook-deliveries',
    description: 'webhook delivery queue, waiting retries, dead letters and the delivery log (collections of store.system)',
    durable: true,
    storage: 'rows',
    sharing: 'shared',
    reset: 'per-account',
    snapshot: () => store.system.existing<Delivery>(WEBHOOK_DELIVERIES)?.values() ?? [],
    clear: (accountId) => webhooks.reset(accountId),
  });
  const tokenSecret = registerTokenSecret(store.parts, input.tokenSecret);
  const tokens = withRevocations(createTokenService({ secret: tokenSecret, now: clock.now }), tokenRevocations);
  const loginLockout = rateLimiter.lockout;
  // The journal shows the traffic of every process on the store's feed (shared-journal.ts).
  const journal = createSharedJournal({ capacity: input.journalSize, feed: store.feed('journal', input.journalSize ?? DEFAULT_JOURNAL_CAPACITY) });
  store.parts.register({
    name: 'journal',
    description: 'the request journal (with a shared store, every process shows the traffic of all: shared-journal.ts)',
    durable: false,
    storage: 'value',
    sharing: 'shared',
    reset: 'per-account',
    snapshot: () => journal.find({ limit: journal.capacity }),
    clear: (accountId) => void journal.clear(accountId),
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
    journal,
    tokenRevocations,
    recentEvents: createRecentEvents(events, store.parts, store.afterCommit),
    dispose() {
      webhooks.dispose();
      clock.dispose();
      store.close();
    },
  };
}

/**
 * Virtual time and the seeded streams. Both survive a restart of a --data mock (ids never repeat,
 * time runs on); the clock is shared by the processes of a shared store, the random stream is
 * each process's own (their ids never collide).
 */
function registerClockAndRandom(parts: StateRegistry, clock: Clock, random: Random): void {
  parts.register({
    name: 'clock',
    description: 'virtual time (offset from wall time, or the frozen time of a manual clock)',
    durable: true,
    storage: 'value',
    sharing: 'shared',
    // README, State: a reset keeps the clock (time does not run backwards under a test suite).
    reset: 'kept',
    snapshot: () => clock.snapshot(),
    restore: (saved: ReturnType<Clock['snapshot']>) => clock.restore(saved),
    exported: {
      write: () => ({ clock: { now: clock.nowIso() } }),
      check(state) {
        if (!Number.isFinite(exportedNow(state))) throw new Error('clock.now is not a date-time');
      },
      read: (state) => clock.set(exportedNow(state)),
      last: true,
    },
  });
  parts.register({
    name: 'random',
    description: 'positions of the seeded random stream and its named streams (ids never repeat)',
    durable: true,
    storage: 'value',
    sharing: 'process',
    reset: 'whole',
    snapshot: () => random.state(),
    restore: (saved: ReturnType<Random['state']>) => random.restoreState(saved),
    // A full reset restarts the seeded id stream where this mock started it (after a --data
    // restart: the saved position), so every test after a reset sees the same ids.
    clear: () => random.restore(startOfStream),
    exported: {
      write: () => ({ random: random.snapshot(), randomStreams: random.state().streams }),
      read: (state) => random.restoreState({ position: state.random as number, streams: (state.randomStreams as Record<string, number> | undefined) ?? {} }),
    },
  });
  // Taken after the registration: a durable store has given the saved position back by now.
  const startOfStream = random.snapshot();
}

const exportedNow = (state: Record<string, unknown>) => Date.parse((state.clock as { now?: string } | undefined)?.now ?? '');

/**
 * The token signing secret: durable (tokens issued before a restart stay valid), shared (every
 * process signs alike), never exported. --token-secret, when given, wins and replaces the saved one.
 * The same part for every engine: SQLite keeps it with the other parts, a shared store seeds it
 * when the database is created (so processes starting together agree on one), --state-file
 * writes it beside the state (server/state-file.ts).
 */
function registerTokenSecret(parts: StateRegistry, given: string | undefined): () => string {
  let secret = given ?? randomBytes(32).toString('hex');
  parts.register({
    name: 'token-secret',
    description: 'the token signing secret',
    durable: true,
    storage: 'value',
    sharing: 'shared',
    reset: 'kept',
    snapshot: () => secret,
    restore(saved: unknown) {
      if (given === undefined && typeof saved === 'string' && saved) secret = saved;
    },
  });
  return () => secret;
}
