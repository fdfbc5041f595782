import type { Clock } from '../clock/clock.js';
import type { StateRegistry } from '../store/state-registry.js';
import { CarrierError, type CarrierErrorKind } from './carrier-error.js';
import type { CarrierCall, CarrierInterceptors } from './interceptors.js';

/**
 * The simulated wire between shipmock and the carriers' systems. Only PRODUCTION connections
 * use it. Each call runs the registered interceptors (fault injection: latency, outages,
 * rejections), then lets the simulated carrier answer, and is kept in a bounded call log that
 * tests and QA can read ("did this booking go to the carrier?").
 */
export interface CarrierCallRecord extends Omit<CarrierCall, 'request'> {
  outcome: 'OK' | CarrierErrorKind;
  message?: string;
}

export interface SimulatedCarrierNetwork {
  /** Sends one call: interceptors first, then `answer` (the simulated carrier's response). */
  call<T>(call: Omit<CarrierCall, 'seq' | 'at'>, answer: () => T): Promise<T>;
  /** The most recent calls, oldest first (at most `historyLimit`). */
  history(): readonly CarrierCallRecord[];
}

/**
 * @example
 * const network = createSimulatedCarrierNetwork({ clock, interceptors });
 * await network.call({ operation: 'BOOK', carrierId, carrierCode, carrierDefinitionId, accountId, request }, () => carrier.book(request, 'PRODUCTION'));
 */
export function createSimulatedCarrierNetwork(deps: { clock: Clock; interceptors: CarrierInterceptors; historyLimit?: number; parts?: StateRegistry }): SimulatedCarrierNetwork {
  const limit = deps.historyLimit ?? 1000;
  const log: CarrierCallRecord[] = [];
  let seq = 0;
  deps.parts?.register({
    name: 'carrier-calls',
    description: 'the carrier call log of PRODUCTION connections',
    durable: false,
    storage: 'value',
    sharing: 'process',
    reset: 'per-account',
    snapshot: () => log.slice(),
    clear(accountId) {
      const kept = accountId === undefined ? [] : log.filter((call) => call.accountId !== accountId);
      log.splice(0, log.length, ...kept);
      // A full reset numbers the calls from 1 again, as a fresh mock does.
      if (accountId === undefined) seq = 0;
    },
  });

  function record(call: CarrierCall, outcome: CarrierCallRecord['outcome'], message?: string) {
    const { request: _request, wait: _wait, ...rest } = call;
    log.push({ ...rest, outcome, ...(message ? { message } : {}) });
    if (log.length > limit) log.splice(0, log.length - limit);
  }

  return {
    async call(input, answer) {
      // A wait that could not go on (the request's client left, its store failed): not the carrier's doing.
      let waitFailure: { error: unknown } | undefined;
      const wait = input.wait && ((ms: number) => input.wait!(ms).catch((error: unknown) => Promise.reject((waitFailure = { error }).error)));
      const call: CarrierCall = { ...input, ...(wait ? { wait } : {}), seq: ++seq, at: deps.clock.nowIso() };
      try {
        for (const interceptor of deps.interceptors.list()) await interceptor(call);
        const result = answer();
        record(call, 'OK');
        return result;
      } catch (error) {
        if (waitFailure && error === waitFailure.error) throw error;
        // Whatever an interceptor throws reaches callers as a CarrierError, so bookings handle one type.
        const failure =
          error instanceof CarrierError
            ? error
            : new CarrierError('OUTAGE', `${call.carrierCode}: ${(error as Error)?.message ?? String(error)}`, { carrierCode: call.carrierCode });
        record(call, failure.kind, failure.message);
        throw failure;
      }
    },
    history: () => log.slice(),
  };
}
