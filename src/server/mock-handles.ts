import type { ControlPlane, CredentialsView, NewCompany } from '../admin/control-plane.js';
import type { MockState } from '../admin/state.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { JournalEntry, JournalFilter } from '../journal/journal.js';
import type { RetryAfterReport } from '../journal/retry-after-report.js';
import type { ActivationView } from '../scenarios/engine.js';
import type { ParameterValues } from '../scenarios/scenario-file.js';

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
}

/** @example const handles = createMockHandles(control); handles.clock.advance('PT4H'); */
export function createMockHandles(control: ControlPlane): MockHandles {
  return {
    reset: (accountId) => control.reset(accountId),
    clock: {
      now: () => control.clock.now().now,
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
  };
}
