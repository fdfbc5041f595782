import type { MockRuntime } from '../runtime/runtime.js';
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
  /** Positions of the named streams (tracking numbers, delivery ids): numbers never repeat after an import. */
  randomStreams?: Record<string, number>;
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
    randomStreams: runtime.random.state().streams,
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
  runtime.credentials.restoreCompanies(state.companies ?? []);
  runtime.random.restoreState({ position: state.random, streams: state.randomStreams ?? {} });
  runtime.rateLimiter.reset();
  runtime.webhooks.reset();
  runtime.journal.clear();
  runtime.clock.set(now);
}

/**
 * The state as JSON text in pieces of about 64 KB, so that a big export (GET /__admin/state)
 * can give other clients a turn between pieces instead of blocking them for the whole export.
 * Joined, the pieces are exactly one JSON document equal to `state`.
 *
 * @example for (const piece of stateJsonChunks(exportState(runtime))) res.write(piece);
 */
export function* stateJsonChunks(state: MockState, pieceSize = 64 * 1024): Generator<string> {
  const { store, ...head } = state;
  let out = `${JSON.stringify(head).slice(0, -1)},"store":{"version":${JSON.stringify(store.version)},"scopes":{`;
  let firstScope = true;
  for (const [key, scope] of Object.entries(store.scopes)) {
    out += `${firstScope ? '' : ','}${JSON.stringify(key)}:{"collections":{`;
    firstScope = false;
    let firstCollection = true;
    for (const [name, collection] of Object.entries(scope.collections)) {
      out += `${firstCollection ? '' : ','}${JSON.stringify(name)}:{"nextSeq":${JSON.stringify(collection.nextSeq)},"items":[`;
      firstCollection = false;
      for (let i = 0; i < collection.items.length; i++) {
        out += (i ? ',' : '') + JSON.stringify(collection.items[i]);
        if (out.length >= pieceSize) {
          yield out;
          out = '';
        }
      }
      out += ']}';
    }
    out += `},"values":${JSON.stringify(scope.values)}}`;
    if (out.length >= pieceSize) {
      yield out;
      out = '';
    }
  }
  yield `${out}}}}`;
}
