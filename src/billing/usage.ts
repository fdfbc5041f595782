import type { components } from '../client/schema.js';
import type { Clock } from '../clock/clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { Random } from '../random/random.js';
import type { Store } from '../store/store.js';
import { USAGE_LINES, type UsageInput, type UsageLine, type UsageRecord } from './model.js';

type UsageEventPayload = components['schemas']['UsageEventPayload'];

/**
 * The usage ledger. Each chargeable event is stored in the account's scope (collection `usage`)
 * with its virtual-clock time and published on the bus as an event of type USAGE on topic PARCEL
 * or PUDO_POINT with a UsageEventPayload (contract/DECISIONS.md "Billing events"), so Event
 * Channels subscribed to those topics see the usage as it happens.
 *
 * @example
 * const usage = createUsageLedger({ store, clock, random, events });
 * usage.recordUsage({ accountId, operation: 'CONSUME', topic: 'PARCEL', tokens: 2, reference: bookingId });
 * usage.totals(accountId, Date.parse('2026-01-01'), Date.parse('2026-02-01')); // [{CONSUME, PARCEL, 2}, {QUERY, PUDO_POINT, 0}]
 */
export function createUsageLedger({ store, clock, random, events }: { store: Store; clock: Clock; random: Random; events: EventBus }) {
  const records = (accountId: string) => store.account(accountId).collection<UsageRecord>('usage');

  return {
    /** Records usage and publishes its USAGE event; returns the stored record. */
    recordUsage(input: UsageInput): UsageRecord {
      if (!Number.isInteger(input.tokens) || input.tokens < 1) throw new RangeError(`usage tokens must be a positive integer, got ${input.tokens}`);
      const record: UsageRecord = {
        id: random.uuid(),
        operation: input.operation,
        topic: input.topic,
        tokens: input.tokens,
        ...(input.reference ? { reference: input.reference } : {}),
        recordedAt: clock.nowIso(),
      };
      records(input.accountId).insert(record);
      const payload: UsageEventPayload = { operation: record.operation, topic: record.topic, tokens: record.tokens, ...(record.reference ? { reference: record.reference } : {}) };
      events.publish({
        topic: input.topic,
        type: 'USAGE',
        accountId: input.accountId,
        ...(input.companyId ? { companyId: input.companyId } : {}),
        payload,
      });
      return record;
    },

    /**
     * Token totals of one account in [fromMs, toMs), always both lines in contract order.
     * Cost: one pass over the account's usage records.
     */
    totals(accountId: string, fromMs: number, toMs: number): UsageLine[] {
      const lines = USAGE_LINES.map((line) => ({ ...line, tokens: 0 }));
      for (const record of records(accountId).values()) {
        const at = Date.parse(record.recordedAt);
        if (at < fromMs || at >= toMs) continue;
        const line = lines.find((l) => l.operation === record.operation && l.topic === record.topic);
        if (line) line.tokens += record.tokens;
      }
      return lines;
    },

    /** Every usage record of an account, oldest first (for tests and the control plane). */
    records: (accountId: string): UsageRecord[] => records(accountId).values(),
  };
}

export type UsageLedger = ReturnType<typeof createUsageLedger>;
