import type { CarrierTrackingEvent } from '../../carriers/index.js';
import type { TrackerEvent, TrackerOutcome } from './model.js';

const DAY = 24 * 3_600_000;

/**
 * A parcel's journey as a tracker tells it: the simulated carrier's scan plan (CREATED →
 * PICKED_UP → IN_TRANSIT → OUT_FOR_DELIVERY → DELIVERED at fixed offsets from the booking,
 * the delivery day drawn from the tracking number, hence from the seed), bent by a forced
 * outcome when a QA scenario asked for one:
 *
 * - EXCEPTION: the delivery attempt fails at the planned delivery time; the journey ends there.
 * - RETURNED:  the failed attempt, then back at the sender two days later.
 * - LOST:      no scan after IN_TRANSIT; declared lost three days after the planned delivery.
 *
 * @example journeyOf(carrier.plan(request), 'LOST').map((e) => e.status) // ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'LOST']
 */
export function journeyOf(plan: readonly CarrierTrackingEvent[], outcome: TrackerOutcome = 'DELIVERED'): TrackerEvent[] {
  const steps: TrackerEvent[] = plan.map((event) => ({ ...event }));
  const delivered = steps.find((e) => e.status === 'DELIVERED');
  if (outcome === 'DELIVERED' || !delivered) return steps;
  const before = (status: TrackerEvent['status']) => steps.slice(0, steps.findIndex((e) => e.status === status));
  const deliveredAt = Date.parse(delivered.occurredAt);
  const at = (ms: number) => new Date(ms).toISOString();
  const origin = steps[0]?.location;
  const failedAttempt: TrackerEvent = {
    status: 'EXCEPTION',
    occurredAt: delivered.occurredAt,
    description: 'Delivery attempt failed: recipient not available',
    ...(delivered.location ? { location: delivered.location } : {}),
  };
  switch (outcome) {
    case 'EXCEPTION':
      return [...before('DELIVERED'), failedAttempt];
    case 'RETURNED':
      return [
        ...before('DELIVERED'),
        failedAttempt,
        { status: 'RETURNED', occurredAt: at(deliveredAt + 2 * DAY), description: 'Returned to the sender', ...(origin ? { location: origin } : {}) },
      ];
    case 'LOST':
      return [...before('OUT_FOR_DELIVERY'), { status: 'LOST', occurredAt: at(deliveredAt + 3 * DAY), description: 'Parcel could not be located and is declared lost' }];
  }
}

/**
 * The planned scans that are due by `nowMs` and not yet recorded, in order. Progress only ever
 * appends: `recorded` scans stay even if the clock is later set back.
 * @example dueSteps(plan, 1, Date.parse('2026-01-03T00:00:00Z')) // PICKED_UP, IN_TRANSIT, … up to that time
 */
export function dueSteps(plan: readonly TrackerEvent[], recorded: number, nowMs: number): TrackerEvent[] {
  const due: TrackerEvent[] = [];
  for (let i = recorded; i < plan.length && Date.parse(plan[i].occurredAt) <= nowMs; i++) due.push(plan[i]);
  return due;
}
