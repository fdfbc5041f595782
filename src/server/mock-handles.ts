import type { ControlPlane, CredentialsView, NewCompany } from '../admin/control-plane.js';
import type { MockState } from '../admin/state.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { TokenClaims, TokenService } from '../auth/tokens.js';
import type { UsageRecord } from '../billing/model.js';
import type { UsageLedger } from '../billing/usage.js';
import type { CarrierCallRecord, CarrierInterceptor, CarrierInterceptors } from '../carriers/index.js';
import type { Delivery, DeliveryPage, DeliveryQuery } from '../events/delivery-log.js';
import type { EventBus, EventEnvelope, EventInput, EventTopic } from '../events/event-bus.js';
import type { WebhookDispatcher } from '../events/webhook-dispatcher.js';
import type { JournalEntry, JournalFilter } from '../journal/journal.js';
import type { RetryAfterReport } from '../journal/retry-after-report.js';
import type { ActivationView } from '../scenarios/engine.js';
import type { ParameterValues } from '../scenarios/scenario-file.js';
import type { RateLimitConfig, RateLimitState, RateLimiter } from '../rate-limit/rate-limiter.js';
import type { Services } from '../resources/index.js';
import type { MockRuntime } from '../runtime/runtime.js';

/** Options of mock.scenarios.activate. */
export interface ScenarioActivation {
  /** Only this account's requests are affected (parallel test files do not disturb each other). */
  accountId?: string;
  /** Values for the scenario's ${parameters}. */
  params?: ParameterValues;
}

/** The control plane as handles on a running mock (same behaviour as /__admin). */
export interface MockHandles {
  /** Empties the mock, or one account (data, journal entries, deliveries, scenarios scoped to it). */
  reset(accountId?: string): void;
  clock: {
    /** Virtual now, ISO 8601. */
    now(): string;
    /** Virtual now in epoch milliseconds. @example const expiresAt = mock.clock.epochMs() + 4 * 3_600_000; */
    epochMs(): number;
    /** 'manual' (moves only when told) or 'real' (follows the wall clock from its start). */
    readonly mode: 'real' | 'manual';
    /** By an ISO 8601 duration ('PT4H') or ms; returns the new now. Due timers fire. */
    advance(duration: string | number): string;
    /** To a date-time (ISO or epoch ms); returns the new now. */
    set(now: string | number): string;
  };
  scenarios: {
    /** A ready scenario's name, a file path, a definition object or YAML text. */
    activate(scenario: string | object, options?: ScenarioActivation): ActivationView;
    deactivate(name: string, accountId?: string): number;
    list(): ActivationView[];
  };
  journal: {
    find(filter?: JournalFilter): JournalEntry[];
    clear(accountId?: string): number;
    /** After every 429 with Retry-After, did the same credential wait that long? */
    retryAfterRespected(filter?: JournalFilter): RetryAfterReport;
    /** Throws (listing each early retry) unless Retry-After was honoured. */
    assertRetryAfterHonoured(filter?: JournalFilter): RetryAfterReport;
  };
  state: {
    export(): MockState;
    import(state: MockState): void;
  };
  companies: {
    list(): CredentialsView;
    add(input?: NewCompany): CompanyCredentials;
  };
  /** The webhook delivery log (GET /__admin/deliveries): every POST to an Event Channel with its attempts. */
  webhooks: {
    /**
     * Deliveries, newest first, a page at a time (`limit` default 100; `cursor` from the last page's nextCursor).
     * @example const failed = mock.webhooks.deliveries({ status: 'FAILED' }).items;
     */
    deliveries(query?: Partial<DeliveryQuery>): DeliveryPage;
    /** @example mock.webhooks.delivery(id)?.attempts.length */
    delivery(id: string): Delivery | undefined;
    /**
     * Queues a finished delivery again (a new round of attempts); throws when it is unknown, still
     * unfinished or its channel is gone. @example mock.webhooks.redeliver(failed[0].id);
     */
    redeliver(id: string): Delivery;
  };
  /** The events the mock publishes (what Event Channels receive as webhooks). */
  events: {
    /**
     * Calls `listener` with every event from now on (synchronously; it must not throw); returns the unsubscribe function.
     * @example const seen: EventEnvelope[] = []; const stop = mock.events.subscribe((e) => seen.push(e));
     */
    subscribe(listener: (event: EventEnvelope) => void): () => void;
    /**
     * Publishes an event as the mock would: delivered to the Event Channels subscribed to its topic.
     * @example mock.events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId, payload: address });
     */
    publish<T extends EventTopic>(input: EventInput<T>): EventEnvelope;
  };
  /** The simulated carriers behind PRODUCTION Carrier Definitions. */
  carriers: {
    /**
     * Injects a fault into production carrier calls (carrierOutage, carrierRejection, carrierLatency,
     * carrierTimeout, or your own); returns the function that removes it.
     * @example const remove = mock.carriers.intercept(carrierOutage({ carrierCode: 'DPD' }));
     */
    intercept(interceptor: CarrierInterceptor): () => void;
    /** Removes every injected fault. */
    clearInterceptors(): void;
    /** Every call to the simulated carrier network, oldest first. @example mock.carriers.calls().filter((c) => c.operation === 'BOOK') */
    calls(): readonly CarrierCallRecord[];
  };
  /** The request windows (X-RateLimit-*, 429). */
  rateLimits: {
    /**
     * The window of one caller without counting a request: `account:<id>`, `company:<id>`,
     * `client:<clientId>` (token requests) or `ip:<address>` (callers without a valid credential).
     * @example mock.rateLimits.peek(`account:${accountId}`).remaining
     */
    peek(key: string): RateLimitState;
    /** Requests per window per verified credential, as --rate-limit. @example mock.rateLimits.configure({ limit: 2, windowMs: 60_000 }); */
    configure(config: RateLimitConfig): void;
  };
  /** Tokens signed as the mock signs them, without the token requests (e.g. one that expires in 1 ms). */
  tokens: {
    /** @example const { token } = mock.tokens.sign({ lvl: 'COMPANY', cid: mock.credentials.companyId, sub: mock.credentials.clientId }, 1); */
    sign(claims: MockTokenClaims, lifetimeMs: number): { token: string; expiresAt: number };
  };
  /** Usage (tokens consumed and refunded) as the reports count it. */
  usage: {
    /** @example mock.usage.records(accountId).map((r) => r.tokens) */
    records(accountId: string): UsageRecord[];
  };
}

/** The claims of a token the mock signs: level, company, account, client id. */
export type MockTokenClaims = Omit<TokenClaims, 'iat' | 'exp' | 'expMs' | 'jti'>;

/** The few parts of one mock instance the handles use besides the control plane. */
export interface HandleParts {
  webhooks: Pick<WebhookDispatcher, 'list' | 'get' | 'redeliver'>;
  events: Pick<EventBus, 'subscribe' | 'publish'>;
  carrierInterceptors: Pick<CarrierInterceptors, 'add' | 'clear'>;
  carrierCalls(): readonly CarrierCallRecord[];
  rateLimiter: Pick<RateLimiter, 'peek' | 'configure'>;
  tokens: Pick<TokenService, 'sign'>;
  usage: Pick<UsageLedger, 'records'>;
}

/** The parts the handles use, taken from one instance's runtime and services (startMock, the middleware). */
export function handlePartsOf(runtime: MockRuntime, services: Pick<Services, 'carriers' | 'usage'>): HandleParts {
  return {
    webhooks: runtime.webhooks,
    events: runtime.events,
    carrierInterceptors: runtime.carrierInterceptors,
    carrierCalls: () => services.carriers.network.history(),
    rateLimiter: runtime.rateLimiter,
    tokens: runtime.tokens,
    usage: services.usage,
  };
}

/** @example const handles = createMockHandles(control, parts); handles.clock.advance('PT4H'); */
export function createMockHandles(control: ControlPlane, parts: HandleParts): MockHandles {
  return {
    reset: (accountId) => control.reset(accountId),
    clock: {
      now: () => control.clock.now().now,
      epochMs: () => control.clock.now().epochMs,
      get mode() {
        return control.clock.now().mode;
      },
      advance: (duration) => control.clock.advance(duration).now,
      set: (now) => control.clock.set(now).now,
    },
    scenarios: {
      activate: (scenario, options) => control.scenarios.activate(scenario, options),
      deactivate: (name, accountId) => control.scenarios.deactivate(name, accountId),
      list: () => control.scenarios.list(),
    },
    journal: {
      find: (filter) => control.journal.find(filter),
      clear: (accountId) => control.journal.clear(accountId),
      retryAfterRespected: (filter) => control.journal.retryAfterReport(filter),
      assertRetryAfterHonoured: (filter) => control.journal.assertRetryAfterHonoured(filter),
    },
    state: {
      export: () => control.state.export(),
      import: (state) => control.state.import(state),
    },
    companies: {
      list: () => control.credentials.list(),
      add: (input) => control.credentials.addCompany(input),
    },
    webhooks: {
      deliveries: (query = {}) => parts.webhooks.list({ limit: 100, ...query }),
      delivery: (id) => parts.webhooks.get(id),
      redeliver(id) {
        const result = parts.webhooks.redeliver(id);
        if (!result.ok) throw new Error(result.message);
        return result.delivery;
      },
    },
    events: {
      subscribe: (listener) => parts.events.subscribe(listener),
      publish: (input) => parts.events.publish(input),
    },
    carriers: {
      intercept: (interceptor) => parts.carrierInterceptors.add(interceptor),
      clearInterceptors: () => parts.carrierInterceptors.clear(),
      calls: () => parts.carrierCalls(),
    },
    rateLimits: {
      peek: (key) => parts.rateLimiter.peek(key),
      configure: (config) => parts.rateLimiter.configure(config),
    },
    tokens: { sign: (claims, lifetimeMs) => parts.tokens.sign(claims, lifetimeMs) },
    usage: { records: (accountId) => parts.usage.records(accountId) },
  };
}
