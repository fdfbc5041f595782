import type { components } from '../client/schema.js';

/** contract: UsageLine */
export type UsageLine = components['schemas']['UsageLine'];

/**
 * Billing (spec, "What the service does"): usage is measured in tokens per event type and
 * carries no prices. The two chargeable event types are fixed by the spec's table.
 */
export type UsageOperation = UsageLine['operation'];
export type UsageTopic = UsageLine['topic'];

/** The billing event types in report order (contract: UsageReport.usage). */
export const USAGE_LINES: readonly { operation: UsageOperation; topic: UsageTopic }[] = [
  { operation: 'CONSUME', topic: 'PARCEL' },
  { operation: 'QUERY', topic: 'PUDO_POINT' },
];

export interface UsageInput {
  accountId: string;
  companyId?: string;
  operation: UsageOperation;
  topic: UsageTopic;
  /** Whole tokens, ≥ 1 (one per parcel booked, one per PUDO query). */
  tokens: number;
  /** The booking (CONSUME/PARCEL) or PUDO query (QUERY/PUDO_POINT) that caused the usage. */
  reference?: string;
}

/** One stored usage record in the account's scope. */
export interface UsageRecord {
  id: string;
  operation: UsageOperation;
  topic: UsageTopic;
  tokens: number;
  reference?: string;
  /** Virtual-clock time of the usage (ISO), the key reports filter on. */
  recordedAt: string;
}
