import type { CarrierError } from '../../carriers/index.js';
import { ProblemError } from '../../errors/problem.js';

/**
 * A PRODUCTION carrier that is down or does not answer (CarrierError OUTAGE / TIMEOUT): the
 * booking is not made and nothing is stored, so the same request can simply be sent again.
 * 500, because the spec's status list stops there (contract/DECISIONS.md "Carrier outage").
 * @example throw carrierUnavailable(new CarrierError('OUTAGE', 'DPD is not reachable', { carrierCode: 'DPD' }))
 */
export function carrierUnavailable(error: CarrierError): ProblemError {
  return new ProblemError('carrier-unavailable', {
    detail: `${error.message}; nothing was booked, retry later`,
    properties: { carrierCode: error.carrierCode, kind: error.kind, retryable: true },
  });
}

/**
 * A label that could not be rendered (a QA scenario's `label` effect): the booking is not made
 * and nothing is stored (contract/DECISIONS.md "Label rendering failure").
 * @example throw labelRenderingFailed('printer template missing (scenario label-failure, rule 0)')
 */
export function labelRenderingFailed(reason: string): ProblemError {
  return new ProblemError('label-rendering-failed', {
    detail: `The label could not be rendered: ${reason}; nothing was booked`,
    properties: { retryable: true },
  });
}
