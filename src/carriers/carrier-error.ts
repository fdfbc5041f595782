/**
 * What a simulated carrier answers when it does not book: the PRODUCTION path raises these
 * (from the carrier's own rules or from an injected fault); callers decide what it means for
 * them (a booking becomes FAILED with `failureReason`, an outage may become a 503, …).
 *
 * - OUTAGE          the carrier's system is unreachable or answered 5xx (retry later)
 * - TIMEOUT         no answer in time (retry later)
 * - REJECTED        the carrier refused the data (route, weight, service) — retrying will not help
 * - AUTHENTICATION  the carrier refused the Carrier Definition's credentials
 */
export type CarrierErrorKind = 'OUTAGE' | 'TIMEOUT' | 'REJECTED' | 'AUTHENTICATION';

export class CarrierError extends Error {
  readonly kind: CarrierErrorKind;
  readonly carrierCode?: string;
  /** OUTAGE and TIMEOUT are transient; REJECTED and AUTHENTICATION are not. */
  readonly retryable: boolean;

  /** @example throw new CarrierError('OUTAGE', 'DHL Parcel is not answering', { carrierCode: 'DHL_PARCEL' }) */
  constructor(kind: CarrierErrorKind, message: string, options: { carrierCode?: string } = {}) {
    super(message);
    this.name = 'CarrierError';
    this.kind = kind;
    this.carrierCode = options.carrierCode;
    this.retryable = kind === 'OUTAGE' || kind === 'TIMEOUT';
  }
}
