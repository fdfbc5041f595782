/**
 * The fault-injection point of the simulated carrier network. Every PRODUCTION call to a
 * simulated carrier passes through the interceptors registered here, in order, before the
 * carrier answers; an interceptor may wait (latency), throw a CarrierError (outage, timeout,
 * rejection) or just look. STAGING calls never reach them (spec: "A Carrier Definition in
 * STAGING mode does not communicate live with carriers").
 *
 * One registry per mock instance (MockRuntime.carrierInterceptors), so scenarios and the
 * control API can add and remove faults while the mock runs.
 */
export type CarrierOperation = 'BOOK' | 'TRACK';

export interface CarrierCall {
  /** Sequence number of the call in this mock instance (1, 2, …). */
  seq: number;
  operation: CarrierOperation;
  carrierId: string;
  carrierCode: string;
  carrierDefinitionId: string;
  accountId: string;
  /** Virtual-clock time the call started. */
  at: string;
  /** The operation's request (CarrierBookingRequest for BOOK, CarrierTrackingRequest for TRACK). */
  request: unknown;
  /**
   * How an interceptor waits real time for this call (a latency), when the call has a request
   * behind it: outside the request's unit of work (a shared store's batch goes on meanwhile,
   * `UnitHandle.waitOutside`). It rejects when the request cannot go on after the wait (its
   * client left, or the store failed around it); the network passes that rejection through as
   * it is, not as the carrier's failure. Absent: wait with a plain timer.
   */
  wait?: (ms: number) => Promise<void>;
}

/** Resolve to let the call through; throw (CarrierError) to fail it; await to slow it down. */
export type CarrierInterceptor = (call: CarrierCall) => void | Promise<void>;

export interface CarrierInterceptors {
  /** Adds an interceptor at the end; returns the function that removes it again. */
  add(interceptor: CarrierInterceptor): () => void;
  /** Removes every interceptor (e.g. when a scenario is unloaded). */
  clear(): void;
  /** The interceptors in order, as a snapshot. */
  list(): readonly CarrierInterceptor[];
}

/**
 * @example
 * const remove = runtime.carrierInterceptors.add(carrierOutage({ carrierCode: 'DPD' }));
 * // … PRODUCTION bookings with DPD now fail with CarrierError('OUTAGE') …
 * remove();
 */
export function createCarrierInterceptors(): CarrierInterceptors {
  let interceptors: CarrierInterceptor[] = [];
  return {
    add(interceptor) {
      interceptors = [...interceptors, interceptor];
      return () => {
        interceptors = interceptors.filter((i) => i !== interceptor);
      };
    },
    clear() {
      interceptors = [];
    },
    list: () => interceptors,
  };
}
