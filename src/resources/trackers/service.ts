import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import type { Carriers } from '../../carriers/index.js';
import { notFound, ruleViolation } from '../../errors/problem.js';
import type { DomainFacts } from '../../scenarios/model.js';
import type { Page, PageRequest } from '../../store/collection.js';
import { compact } from '../../util/compact.js';
import type { StoredTracker, TrackedParcel, TrackedParcelInput, Tracker, TrackerEvent, TrackerInput, TrackerOutcome } from './model.js';
import { dueSteps, journeyOf } from './progression.js';
import { createTrackerTimers } from './tracker-timers.js';

export interface TrackerFilter {
  trackingNumber?: string;
  shipmentBookingId?: string;
  status?: Tracker['status'];
}

const view = (stored: StoredTracker): Tracker => {
  const { plan: _plan, ...tracker } = stored;
  return tracker;
};

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);

/** The tracker after the given scans. */
function withSteps(tracker: StoredTracker, steps: TrackerEvent[]): StoredTracker {
  const last = steps[steps.length - 1];
  return compact({
    ...tracker,
    events: [...tracker.events, ...steps],
    status: last.status,
    deliveredAt: last.status === 'DELIVERED' ? last.occurredAt : tracker.deliveredAt,
    // The resource changed when the carrier scanned, whenever the mock noticed it.
    updatedAt: later(tracker.updatedAt, last.occurredAt),
  });
}

/** A new tracker of a registered parcel, before any scan is recorded. */
function newTracker(id: string, now: string, parcel: TrackedParcel): StoredTracker {
  return {
    id,
    createdAt: now,
    updatedAt: now,
    trackingNumber: parcel.trackingNumber,
    carrierId: parcel.carrierId,
    shipmentBookingId: parcel.shipmentBookingId,
    parcelId: parcel.parcelId,
    status: 'CREATED',
    estimatedDeliveryAt: parcel.estimatedDeliveryAt,
    events: [],
    plan: parcel.plan,
  };
}

/**
 * A booked parcel with its journey planned: the carrier's scan plan, bent by a QA scenario's
 * `tracker` effect if one fires (DELIVERED otherwise).
 */
function plannedParcel(carriers: Carriers, scenarios: DomainDeps['scenarios'], accountId: string, input: TrackedParcelInput, facts: DomainFacts): TrackedParcel {
  const carrier = carriers.simulated(input.carrierId);
  const fired = scenarios.evaluate('tracker', { ...facts, accountId, carrierId: carrier.carrier.id, carrierCode: carrier.carrier.code });
  const outcome: TrackerOutcome = fired?.effect.tracker?.outcome ?? 'DELIVERED';
  const carrierPlan = carrier.plan({ accountId, ...input });
  const plan = journeyOf(carrierPlan, outcome);
  const planned = carrierPlan.find((e) => e.status === 'DELIVERED')!;
  return { ...input, id: input.trackingNumber, plan, estimatedDeliveryAt: planned.occurredAt };
}

/**
 * The trackers with scans to come, in the order of their next scan: the order a timer per
 * tracker would fire them in (none when the account is gone).
 */
function pendingByNextScan(all: StoredTracker[]): StoredTracker[] {
  const nextScan = (t: StoredTracker) => Date.parse(t.plan[t.events.length].occurredAt);
  return all.filter((t) => t.events.length < t.plan.length).sort((a, b) => nextScan(a) - nextScan(b));
}

/** The parcel once its tracker is deleted: still trackable, by no tracker for now. */
function untracked(parcel: TrackedParcel): TrackedParcel {
  const { trackerId: _trackerId, ...rest } = parcel;
  return rest;
}

function matches(filter: TrackerFilter) {
  return (t: StoredTracker) =>
    (!filter.trackingNumber || t.trackingNumber === filter.trackingNumber) &&
    (!filter.shipmentBookingId || t.shipmentBookingId === filter.shipmentBookingId) &&
    (!filter.status || t.status === filter.status);
}

/**
 * Trackers: one per tracking number, progressing on the virtual clock through the simulated
 * carrier's scans (src/resources/trackers/progression.ts), STAGING and PRODUCTION alike.
 *
 * Progress is computed from the clock and recorded as it happens, two ways that share one
 * function (`catchUp`), so a scan is recorded and published exactly once whichever comes first:
 * - a clock timer per account at the earliest next planned scan of its trackers
 *   (runtime.clock.setTimer, tracker-timers.ts: fires on `advance`/`set` and, in real-clock mode,
 *   on time). When the clock jumps over several scans, each one is recorded and published in
 *   order (TRACKER UPDATED with the tracker after that scan);
 * - every read (get, list) catches the tracker up first, so what is read is never stale.
 *
 * Bookings `register` each booked parcel (its journey is planned then, with a scenario's forced
 * outcome if one fires) and start its tracker; `create` (POST /v1/trackers) tracks a registered
 * number again after its tracker was deleted, or returns the existing tracker.
 *
 * @example
 * trackers.register(accountId, { trackingNumber, carrierId, serviceId, shipmentBookingId, parcelId, bookedAt, sender, receiver });
 * runtime.clock.advance(3 * 86_400_000); // → TRACKER UPDATED for PICKED_UP, IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED
 */
export function createTrackerService(core: ResourceDeps & Pick<DomainDeps, 'scenarios'>, deps: { carriers: Carriers }) {
  const { store, clock, random, events, scenarios } = core;
  const trackers = (accountId: string) => store.account(accountId).collection<StoredTracker>('trackers');
  const parcels = (accountId: string) => store.account(accountId).collection<TrackedParcel>('tracked-parcels');
  // The account's timer: its trackers catch up (the due ones record their scans) and each one
  // arms the account's next timer.
  const timers = createTrackerTimers(clock, store, (accountId) => {
    for (const tracker of pendingByNextScan(trackers(accountId).values())) catchUp(accountId, tracker);
  });
  const publish = (accountId: string, type: string, tracker: StoredTracker) =>
    events.publish({ topic: 'TRACKER', type, accountId, payload: view(tracker) });

  /** Records the scans due by now, one UPDATED event per scan, in order; then re-arms the timer. */
  function catchUp(accountId: string, tracker: StoredTracker): StoredTracker {
    let current = tracker;
    for (const step of dueSteps(tracker.plan, tracker.events.length, clock.now())) {
      current = withSteps(current, [step]);
      trackers(accountId).update(current);
      publish(accountId, 'UPDATED', current);
    }
    timers.arm(accountId, current);
    return current;
  }

  /** Starts a tracker for a registered parcel: its history is every scan due by now. */
  function start(accountId: string, parcel: TrackedParcel): StoredTracker {
    // A tracker always shows at least the CREATED scan (the contract's minItems 1), even if the clock was set back.
    const history = dueSteps(parcel.plan, 0, clock.now());
    const first = history.length ? history : parcel.plan.slice(0, 1);
    const stored = withSteps(newTracker(random.uuid(), clock.nowIso(), parcel), first);
    trackers(accountId).insert(stored);
    parcels(accountId).update({ ...parcel, trackerId: stored.id });
    publish(accountId, 'CREATED', stored);
    timers.arm(accountId, stored);
    return stored;
  }

  return {
    /**
     * Makes a booked parcel's tracking number trackable and starts its tracker. The journey is
     * planned now: the carrier's scan plan, bent by a QA scenario's `tracker` effect if one fires
     * (`facts.operationId` lets rules match the booking operation).
     */
    register(accountId: string, input: TrackedParcelInput, facts: DomainFacts = {}): Tracker {
      const parcel = plannedParcel(deps.carriers, scenarios, accountId, input, facts);
      parcels(accountId).insert(parcel);
      return view(start(accountId, parcel));
    },

    /**
     * POST /v1/trackers: the tracking number must be one of this account's booked parcels and
     * `carrierId`, when given, its carrier (400 naming the field otherwise). An existing tracker
     * is returned as is (idempotent); after a delete, a new tracker replays the journey so far.
     */
    create(accountId: string, input: TrackerInput): { tracker: Tracker; created: boolean } {
      const parcel = parcels(accountId).get(input.trackingNumber);
      if (!parcel) {
        throw ruleViolation('body/trackingNumber', `${input.trackingNumber} is not a tracking number of a Shipment Booking of this account`);
      }
      if (input.carrierId && input.carrierId !== parcel.carrierId) {
        throw ruleViolation('body/carrierId', `${input.trackingNumber} was booked with carrier ${parcel.carrierId}, not ${input.carrierId}`);
      }
      const existing = parcel.trackerId ? trackers(accountId).get(parcel.trackerId) : undefined;
      if (existing) return { tracker: view(catchUp(accountId, existing)), created: false };
      return { tracker: view(start(accountId, parcel)), created: true };
    },

    get(accountId: string, id: string): Tracker {
      const found = trackers(accountId).get(id);
      if (!found) throw notFound('Tracker', id);
      return view(catchUp(accountId, found));
    },

    /**
     * One page; every tracker the page visits is caught up before the filter looks at its
     * status, so `status=DELIVERED` finds a parcel delivered a moment ago.
     */
    list(accountId: string, page: Omit<PageRequest<StoredTracker>, 'filter'>, filter: TrackerFilter = {}): Page<Tracker> {
      const wanted = matches(filter);
      const result = trackers(accountId).page({ ...page, filter: (t) => wanted(catchUp(accountId, t)) });
      return { ...result, items: result.items.map(view) };
    },

    /** Deletes a tracker; its tracking number stays trackable (POST /v1/trackers starts a new one). */
    remove(accountId: string, id: string): Tracker {
      const found = trackers(accountId).get(id);
      if (!found) throw notFound('Tracker', id);
      trackers(accountId).delete(id);
      const parcel = parcels(accountId).get(found.trackingNumber);
      if (parcel?.trackerId === id) parcels(accountId).update(untracked(parcel));
      publish(accountId, 'DELETED', found);
      return view(found);
    },

    /**
     * Re-arms the trackers' timers (after a durable mock restarts, or a state import): pending
     * tracker steps resume, and those that fell due while the mock was stopped are recorded (with
     * their events) as their timers fire, at once. A restart arms them from the accounts' due
     * values without reading the accounts (tracker-timers.ts); an import, or a file of an older
     * build, reads every account once. Returns the number of accounts with a timer.
     */
    resume(): number {
      return timers.resume((forget) => {
        for (const accountId of store.accountIds()) {
          forget(accountId);
          for (const tracker of pendingByNextScan(trackers(accountId).values())) catchUp(accountId, tracker);
        }
      });
    },

    /** The id of the tracker following a tracking number, if there is one. */
    trackerIdOf(accountId: string, trackingNumber: string): string | undefined {
      return parcels(accountId).get(trackingNumber)?.trackerId;
    },
  };
}

export type TrackerService = ReturnType<typeof createTrackerService>;
