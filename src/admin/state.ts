import type { MockRuntime } from '../app/runtime.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { ScenarioSnapshot } from '../scenarios/engine.js';
import type { TokenRevocationsSnapshot } from '../scenarios/token-revocations.js';
import type { StoreSnapshot } from '../store/store.js';

/**
 * A mock instance's whole state as JSON: what GET /__admin/state answers, PUT /__admin/state
 * and --state-file restore. Restoring it gives back the same resources with the same ids, the
 * same virtual time, the same companies, active scenarios (with their counters) and forced
 * token expiries, and continues the seeded id stream, so ids created afterwards never repeat.
 *
 * Not included (transient, documented in the README): the request journal, the webhook
 * delivery log and queued deliveries, rate-limit windows, the carrier call log.
 */
export interface MockState {
  format: 'shipmock-state';
  version: 1;
  /** Virtual time of the export. */
  exportedAt: string;
  seed: number;
  clock: { now: string };
  /** Position of the seeded random stream. */
  random: number;
  companies: CompanyCredentials[];
  store: StoreSnapshot;
  scenarios: ScenarioSnapshot;
  tokenRevocations: TokenRevocationsSnapshot;
}

/** @example const saved = exportState(runtime); importState(other, saved); */
export function exportState(runtime: MockRuntime): MockState {
  return {
    format: 'shipmock-state',
    version: 1,
    exportedAt: runtime.clock.nowIso(),
    seed: runtime.options.seed,
    clock: { now: runtime.clock.nowIso() },
    random: runtime.random.snapshot(),
    companies: runtime.credentials.companies.map((c) => ({ ...c })),
    store: runtime.store.snapshot(),
    scenarios: runtime.scenarios.snapshot(),
    tokenRevocations: runtime.tokenRevocations.snapshot(),
  };
}

/**
 * Replaces the instance's state with `state`. All or nothing: if any part is refused, the state
 * from before the call is put back and the error is thrown.
 */
export function importState(runtime: MockRuntime, state: MockState): void {
  if (state?.format !== 'shipmock-state' || state.version !== 1) throw new Error('not a shipmock state (format shipmock-state, version 1)');
  const now = Date.parse(state.clock?.now);
  if (!Number.isFinite(now)) throw new Error('clock.now is not a date-time');
  const before = exportState(runtime);
  try {
    apply(runtime, state, now);
  } catch (error) {
    apply(runtime, before, Date.parse(before.clock.now));
    throw error;
  }
}

function apply(runtime: MockRuntime, state: MockState, now: number): void {
  runtime.store.restore(state.store);
  runtime.scenarios.restore(state.scenarios);
  runtime.tokenRevocations.restore(state.tokenRevocations);
  for (const company of state.companies ?? []) {
    const known = runtime.credentials.company(company.companyId);
    if (!known && !runtime.credentials.companies.some((c) => c.clientId === company.clientId)) runtime.credentials.addCompany({ ...company });
  }
  runtime.random.restore(state.random);
  runtime.rateLimiter.reset();
  runtime.webhooks.reset();
  runtime.journal.clear();
  runtime.clock.set(now);
}
