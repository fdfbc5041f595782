import type { MockRuntime } from '../runtime/runtime.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { ScenarioSnapshot } from '../scenarios/engine.js';
import type { TokenRevocationsSnapshot } from '../scenarios/token-revocations.js';
import type { StateRegistry } from '../store/state-registry.js';
import type { CollectionSnapshot, Entity } from '../store/collection.js';
import type { StoreSnapshot } from '../store/store.js';

/**
 * A mock instance's whole state as JSON: what GET /__admin/state answers, PUT /__admin/state
 * and --state-file restore. Restoring it gives back the same resources with the same ids, the
 * same virtual time, the same companies, active scenarios (with their counters) and forced
 * token expiries, and continues the seeded id stream, so ids created afterwards never repeat.
 *
 * The fields are written by the exported parts of the state registry (store/state-registry.ts),
 * each its own; the parts never exported (the journal, webhook deliveries, rate-limit windows,
 * the carrier call log, …: README, State) start empty after an import.
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
  const head: Pick<MockState, 'format' | 'version' | 'exportedAt' | 'seed'> = { format: 'shipmock-state', version: 1, exportedAt: runtime.clock.nowIso(), seed: runtime.options.seed };
  const fields = runtime.store.parts.all().map((part) => part.exported?.write() ?? {});
  return Object.assign(head, ...fields) as MockState;
}

/**
 * Replaces the instance's state with `state`. All or nothing: if any part is refused, the state
 * from before the call is put back and the error is thrown.
 */
export function importState(runtime: MockRuntime, state: MockState): void {
  if (state?.format !== 'shipmock-state' || state.version !== 1) throw new Error('not a shipmock state (format shipmock-state, version 1)');
  const { parts } = runtime.store;
  const fields: Record<string, unknown> = { ...state };
  for (const part of parts.all()) part.exported?.check?.(fields);
  const before = exportState(runtime);
  try {
    apply(parts, fields);
  } catch (error) {
    apply(parts, { ...before });
    throw error;
  } finally {
    // The way back is no longer needed: a durable store's stored scopes it did not read (the
    // view's transaction and connection) are given up now, not when it is garbage collected.
    before.store.release?.();
  }
}

/**
 * Every exported part reads its fields; every part never exported that a reset clears starts
 * empty; then the parts read last (the clock, whose due timers see the imported state).
 */
function apply(parts: StateRegistry, state: Record<string, unknown>): void {
  const all = parts.all();
  for (const part of all) if (part.exported && !part.exported.last) part.exported.read(state);
  for (const part of all) if (!part.exported && part.reset !== 'kept') part.clear!();
  for (const part of all) if (part.exported?.last) part.exported.read(state);
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
      let first = true;
      for (const pair of encodedPairs(collection)) {
        out += (first ? '' : ',') + pair;
        first = false;
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

/** A collection's [seq, item] pairs as JSON text, one at a time (a durable store's stored ones stream from its file). */
function* encodedPairs(collection: CollectionSnapshot<Entity>): Generator<string> {
  if (collection.encodedItems) return yield* collection.encodedItems();
  for (const pair of collection.items) yield JSON.stringify(pair);
}
