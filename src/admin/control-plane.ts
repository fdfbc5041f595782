import type { MockRuntime } from '../runtime/runtime.js';
import { USAGE_LINES } from '../billing/model.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { TimerFailures } from '../clock/clock.js';
import { parseDuration } from '../clock/duration.js';
import type { JournalEntry, JournalEntryWithExchange, JournalFilter } from '../journal/journal.js';
import { assertHonouredRetryAfter, checkRetryAfter, type RetryAfterReport } from '../journal/retry-after-report.js';
import type { ActivateOptions, ActivationView } from '../scenarios/engine.js';
import { exportState, importState, type MockState } from './state.js';
import { createInspection, type Inspection, type InspectionDeps } from './inspection.js';

export interface ClockView {
  now: string;
  epochMs: number;
  mode: 'real' | 'manual';
  /** Only once a timer's function has thrown (logged; the other timers still fired). */
  timerFailures?: TimerFailures;
}

export interface NewCompany {
  name?: string;
  companyId?: string;
  clientId?: string;
  clientSecret?: string;
}

export interface CredentialsView {
  companies: CompanyCredentials[];
  affiliates: { affiliateId: string; name: string; clientId: string; clientSecret: string }[];
  admins: { clientId: string; clientSecret: string }[];
}

/**
 * The operations of the QA control plane, shared by the HTTP routes under /__admin and the
 * handles `startMock()` returns (mock.reset(), mock.clock.advance(), …), so both behave alike.
 */
export interface ControlPlane {
  /**
   * Without an account: clears every part of the state registry that a reset clears (accounts,
   * resources, journal, webhook deliveries, forced token expiries, rate-limit windows and login
   * locks, API-activated scenarios, inspector events, the carrier call log) and restarts the seeded
   * id stream. With one: that account's share of the per-account parts (its data, journal entries,
   * deliveries, scoped scenarios, events, carrier calls); the Account itself and its tokens stay.
   */
  reset(accountId?: string): void;
  state: {
    export(): MockState;
    import(state: MockState): void;
  };
  clock: {
    now(): ClockView;
    /** By an ISO 8601 duration ('PT4H') or milliseconds. */
    advance(duration: string | number): ClockView;
    /** To an ISO 8601 date-time or epoch ms. */
    set(now: string | number): ClockView;
  };
  scenarios: {
    activate(scenario: string | object, options?: Omit<ActivateOptions, 'source'>): ActivationView;
    deactivate(name: string, accountId?: string): number;
    list(): ActivationView[];
    available(): { name: string; description?: string }[];
  };
  journal: {
    find(filter?: JournalFilter): JournalEntry[];
    /** One entry with its request, answer and violations (the inspector's detail view). */
    get(seq: number): JournalEntryWithExchange | undefined;
    /** Every entry recorded from now on (the inspector's live view); returns the unsubscribe function. */
    subscribe(listener: (entry: JournalEntry) => void): () => void;
    clear(accountId?: string): number;
    /** Did the client wait Retry-After after each 429 (of the entries matching `filter`)? */
    retryAfterReport(filter?: JournalFilter): RetryAfterReport;
    /** Throws unless the client waited Retry-After after each 429 (of the entries matching `filter`). */
    assertRetryAfterHonoured(filter?: JournalFilter): RetryAfterReport;
    readonly capacity: number;
    /** Requests held now. */
    readonly size: number;
  };
  credentials: {
    list(): CredentialsView;
    addCompany(input?: NewCompany): CompanyCredentials;
  };
  /** Read-only views for the inspector (/__admin/ui/): stored objects, documents, due timers, usage. */
  inspect: Inspection;
}

export interface ControlPlaneOptions {
  /**
   * Called after a state import (PUT /__admin/state, --state-file) has put the state in place:
   * re-arms what it has pending, as a start on a --data file does (tracker steps).
   */
  onImported?: () => void;
  /** The services the inspector reads documents and usage from (createApp passes them). */
  inspection?: InspectionDeps;
}

/** A control plane without the API's services (contract-only use) has no documents and no usage. */
const NO_SERVICES: InspectionDeps = {
  documents: {
    data(_accountId, id) {
      throw new RangeError(`no document ${id}: this mock keeps no documents`);
    },
  },
  usage: { records: () => [], totals: () => USAGE_LINES.map((line) => ({ ...line, tokens: 0 })) },
};

/** @example const control = createControlPlane(runtime); control.clock.advance('PT4H'); */
export function createControlPlane(runtime: MockRuntime, options: ControlPlaneOptions = {}): ControlPlane {
  const { clock } = runtime;
  // Companies added at run time get ids from their own stream: adding one does not shift resource ids.
  const companyIds = runtime.random.stream('control-plane-companies');
  const clockView = (): ClockView => {
    const failures = clock.timerFailures();
    return { now: clock.nowIso(), epochMs: clock.now(), mode: clock.mode, ...(failures.count ? { timerFailures: failures } : {}) };
  };
  const everything = (filter: JournalFilter = {}) => runtime.journal.find({ limit: runtime.journal.capacity, ...filter });

  const inspect = createInspection(runtime, options.inspection ?? NO_SERVICES);
  return {
    inspect,
    // Every registered part (store/state-registry.ts): a full reset also restarts the seeded id
    // stream, so every test after a reset sees the same ids whatever ran before it.
    reset: (accountId) => runtime.store.parts.reset(accountId),
    state: {
      export: () => exportState(runtime),
      import(state) {
        importState(runtime, state);
        options.onImported?.();
      },
    },
    clock: {
      now: clockView,
      advance(duration) {
        clock.advance(typeof duration === 'number' ? duration : parseDuration(duration));
        return clockView();
      },
      set(now) {
        const ms = typeof now === 'number' ? now : Date.parse(now);
        if (!Number.isFinite(ms)) throw new RangeError(`not a date-time: ${String(now)}`);
        clock.set(ms);
        return clockView();
      },
    },
    scenarios: {
      activate: (scenario, options = {}) => runtime.scenarios.activate(scenario, { ...options, source: 'api' }),
      deactivate: (name, accountId) => runtime.scenarios.deactivate(name, accountId),
      list: () => runtime.scenarios.list(),
      available: () => runtime.scenarios.available(),
    },
    journal: {
      find: (filter) => runtime.journal.find(filter),
      get: (seq) => runtime.journal.get(seq),
      subscribe: (listener) => runtime.journal.subscribe(listener),
      clear: (accountId) => runtime.journal.clear(accountId),
      retryAfterReport: (filter) => checkRetryAfter(everything(filter)),
      assertRetryAfterHonoured: (filter) => assertHonouredRetryAfter(everything(filter)),
      get capacity() {
        return runtime.journal.capacity;
      },
      get size() {
        return runtime.journal.size;
      },
    },
    credentials: {
      list: () => ({
        companies: runtime.credentials.companies.map((c) => ({ ...c })),
        affiliates: runtime.credentials.affiliates.map((a) => ({ ...a })),
        admins: runtime.credentials.admins.map((a) => ({ ...a })),
      }),
      addCompany(input = {}) {
        const companyId = input.companyId ?? companyIds.uuid();
        if (runtime.credentials.company(companyId)) throw new RangeError(`company ${companyId} exists already`);
        const suffix = companyId.slice(0, 8);
        const company: CompanyCredentials = {
          companyId,
          name: input.name ?? `Test Company ${suffix}`,
          clientId: input.clientId ?? `client-${suffix}`,
          clientSecret: input.clientSecret ?? `secret-${companyIds.uuid().replace(/-/g, '')}`,
        };
        const taken = [...runtime.credentials.companies, ...runtime.credentials.affiliates, ...runtime.credentials.admins].some((c) => c.clientId === company.clientId);
        if (taken) throw new RangeError(`clientId ${company.clientId} is taken`);
        runtime.credentials.addCompany(company);
        return { ...company };
      },
    },
  };
}
