import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import type { UsageLedger } from '../../billing/usage.js';
import type { Carriers } from '../../carriers/index.js';
import { notFound } from '../../errors/problem.js';
import type { Page, PageRequest } from '../../store/collection.js';
import type { DocumentService } from '../documents/service.js';
import { compact } from '../../util/compact.js';
import type { TrackerService } from '../trackers/service.js';
import { createBookingRules, type BookingRuleDeps } from './booking-rules.js';
import { createBookingWorkflow, type BookingContext } from './booking-workflow.js';
import { createInlineBooking } from './inline-booking.js';
import type { InlineShipmentBookingInput, ShipmentBooking, ShipmentBookingEventCode, ShipmentBookingInput, ShipmentBookingStatus, StoredShipmentBooking } from './model.js';

export interface ShipmentBookingFilter {
  status?: ShipmentBookingStatus;
  trackingNumber?: string;
  reference?: string;
}

export interface ShipmentBookingDeps extends BookingRuleDeps {
  carriers: Carriers;
  usage: UsageLedger;
  documents: DocumentService;
  trackers: TrackerService;
}

/**
 * Shipment Bookings: `book` (by references) and `bookInline` (embedded data) check the rules
 * (booking-rules.ts), ask the carrier and commit (booking-workflow.ts); `getView`/`list` read;
 * the status moves BOOKED ⇄ DISPATCHED → MANIFESTED are made by dispatches and manifests through
 * `setStatus`, each publishing SHIPMENT_BOOKING with the matching code.
 *
 * @example
 * const booking = await bookings.book(accountId, { serviceDefinitionId, shipmentChannelId, parties, parcelIds: [parcelId] }, { companyId });
 * booking.trackingNumbers // ['000012345678'] (STAGING test number)
 */
export function createShipmentBookingService(core: ResourceDeps & Pick<DomainDeps, 'scenarios' | 'catalogue'>, deps: ShipmentBookingDeps) {
  const { store, clock, random } = core;
  const bookings = (accountId: string) => store.account(accountId).collection<StoredShipmentBooking>('shipment-bookings');
  const rules = createBookingRules(deps);
  const workflow = createBookingWorkflow(core, deps);
  const bookInline = createInlineBooking(core, deps, rules, workflow);

  /** The contract's ShipmentBooking: the stored booking without its snapshot, with its current trackers. */
  function view(accountId: string, stored: StoredShipmentBooking): ShipmentBooking {
    const { snapshot: _snapshot, ...booking } = stored;
    const trackerIds = (stored.trackingNumbers ?? []).map((n) => deps.trackers.trackerIdOf(accountId, n)).filter((id): id is string => id !== undefined);
    return compact({ ...booking, trackerIds });
  }

  function stored(accountId: string, id: string): StoredShipmentBooking {
    const found = bookings(accountId).get(id);
    if (!found) throw notFound('Shipment Booking', id);
    return found;
  }

  return {
    /** Books parcels named by id. A carrier rejection gives a FAILED booking; an outage a 500 problem. */
    async book(accountId: string, input: ShipmentBookingInput, context: BookingContext = {}): Promise<ShipmentBooking> {
      const resolved = rules.resolve(accountId, input);
      const id = random.uuid();
      const answer = await workflow.askCarrier(accountId, resolved.carrierDefinition, resolved.draft, {
        shipmentBookingId: id,
        parcelIds: input.parcelIds,
        reference: input.reference,
      }, context);
      // Another request may have booked a parcel or deleted a reference while the carrier answered.
      const current = rules.resolve(accountId, input);
      if (answer.kind === 'BOOKED') workflow.assertLabelsRender(accountId, current.draft, context);
      return view(accountId, workflow.commit(accountId, id, current, answer, context));
    },

    /** POST /v1/shipment-bookings/inline: creates what the request embeds and books it, all or nothing. */
    async bookInline(accountId: string, input: InlineShipmentBookingInput, context: BookingContext = {}): Promise<ShipmentBooking> {
      return view(accountId, await bookInline(accountId, input, context));
    },

    get: (accountId: string, id: string): ShipmentBooking => view(accountId, stored(accountId, id)),

    /** The stored booking with its snapshot (what was sent to the carrier), for dispatches and manifests. */
    stored,

    find: (accountId: string, id: string): StoredShipmentBooking | undefined => bookings(accountId).get(id),

    list(accountId: string, page: Omit<PageRequest<StoredShipmentBooking>, 'filter'>, filter: ShipmentBookingFilter = {}): Page<ShipmentBooking> {
      const { status, trackingNumber, reference } = filter;
      const predicate =
        status || trackingNumber || reference
          ? (b: StoredShipmentBooking) =>
              (!status || b.status === status) && (!reference || b.reference === reference) && (!trackingNumber || (b.trackingNumbers ?? []).includes(trackingNumber))
          : undefined;
      const result = bookings(accountId).page({ ...page, filter: predicate });
      return { ...result, items: result.items.map((b) => view(accountId, b)) };
    },

    /**
     * Moves a booking to a new status (and dispatch) and publishes SHIPMENT_BOOKING with `code`
     * (DISPATCHED, MANIFESTED, or UPDATED when it returns to BOOKED).
     */
    setStatus(accountId: string, id: string, change: { status: ShipmentBookingStatus; shipmentDispatchId?: string }, code: ShipmentBookingEventCode): ShipmentBooking {
      const { shipmentDispatchId: _previous, ...booking } = stored(accountId, id);
      const updated = compact<StoredShipmentBooking>({ ...booking, status: change.status, shipmentDispatchId: change.shipmentDispatchId, updatedAt: clock.nowIso() });
      bookings(accountId).update(updated);
      workflow.publish(accountId, code, updated);
      return view(accountId, updated);
    },
  };
}

export type ShipmentBookingService = ReturnType<typeof createShipmentBookingService>;
