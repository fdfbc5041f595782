import { setTimeout as realSleep } from 'node:timers/promises';
import { CarrierError } from './carrier-error.js';
import type { CarrierCall, CarrierInterceptor, CarrierOperation } from './interceptors.js';

/**
 * Ready-made interceptors for the usual carrier faults. Each takes an optional `match` to limit
 * it to one carrier, one Carrier Definition, one account or one operation.
 */
export interface CarrierMatch {
  carrierCode?: string;
  carrierId?: string;
  carrierDefinitionId?: string;
  accountId?: string;
  operation?: CarrierOperation;
}

/** Whether a call is one a fault applies to (every given field must match). */
export function matchesCall(match: CarrierMatch, call: CarrierCall): boolean {
  return (
    (match.carrierCode === undefined || match.carrierCode === call.carrierCode) &&
    (match.carrierId === undefined || match.carrierId === call.carrierId) &&
    (match.carrierDefinitionId === undefined || match.carrierDefinitionId === call.carrierDefinitionId) &&
    (match.accountId === undefined || match.accountId === call.accountId) &&
    (match.operation === undefined || match.operation === call.operation)
  );
}

/**
 * Slows matching calls down by `ms` of real time (what an HTTP client's timeout sees), waited as
 * the call waits (CarrierCall.wait: outside the request's unit of work). `sleep` can be replaced,
 * e.g. by one that advances a virtual clock in tests.
 * @example runtime.carrierInterceptors.add(carrierLatency(2000, { carrierCode: 'UPS' }))
 */
export function carrierLatency(ms: number, match: CarrierMatch = {}, sleep?: (ms: number) => Promise<void>): CarrierInterceptor {
  return async (call) => {
    if (matchesCall(match, call)) await (sleep ?? call.wait ?? realSleep)(ms);
  };
}

/** Matching calls fail as if the carrier were down. @example carrierOutage({ carrierCode: 'DPD' }) */
export function carrierOutage(match: CarrierMatch = {}, message?: string): CarrierInterceptor {
  return (call) => {
    if (matchesCall(match, call)) {
      throw new CarrierError('OUTAGE', message ?? `${call.carrierCode} is not reachable (simulated outage)`, { carrierCode: call.carrierCode });
    }
  };
}

/** Matching calls time out. @example carrierTimeout({ carrierCode: 'FEDEX_EXPRESS' }) */
export function carrierTimeout(match: CarrierMatch = {}, message?: string): CarrierInterceptor {
  return (call) => {
    if (matchesCall(match, call)) {
      throw new CarrierError('TIMEOUT', message ?? `${call.carrierCode} did not answer in time (simulated timeout)`, { carrierCode: call.carrierCode });
    }
  };
}

/** The carrier refuses matching calls with a reason. @example carrierRejection('Address not deliverable', { carrierCode: 'GLS' }) */
export function carrierRejection(reason: string, match: CarrierMatch = {}): CarrierInterceptor {
  return (call) => {
    if (matchesCall(match, call)) throw new CarrierError('REJECTED', reason, { carrierCode: call.carrierCode });
  };
}
