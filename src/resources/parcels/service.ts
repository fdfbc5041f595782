import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { CatalogueLookup } from '../shared/catalogue-lookup.js';
import type { Parcel, ParcelBooking, ParcelInput } from './model.js';

/** A rule another family adds to parcel deletion: throw a ProblemError to refuse. */
export type ParcelRemovalGuard = (accountId: string, parcel: Parcel) => void;
/** Work another family does when a parcel is deleted (e.g. its items go too). */
export type ParcelRemovalCascade = (accountId: string, parcel: Parcel) => void;

/**
 * Parcels: CRUD plus the state bookings put on them. A booked parcel (shipmentBookingId set) is
 * frozen — no replace, no delete, no item changes (contract/DECISIONS.md "Changing booked
 * parcels"). itemIds is kept in step by the Parcel Item service through attachItem/detachItem.
 *
 * @example
 * const parcel = parcels.create(accountId, { weight: 2.5 });
 * parcels.assertBookable(accountId, parcel.id, 'body/parcelIds/0');
 * parcels.markBooked(accountId, parcel.id, { shipmentBookingId, trackingNumber: '00340434161094000011' });
 */
export function createParcelService(core: ResourceDeps, deps: { catalogue: CatalogueLookup }) {
  const guards: ParcelRemovalGuard[] = [];
  const cascades: ParcelRemovalCascade[] = [];

  const base = createAccountResources<ParcelInput, Parcel>(core, {
    collection: 'parcels',
    topic: 'PARCEL',
    label: 'Parcel',
    build: (input, meta, _accountId, previous) => ({
      ...meta,
      ...input,
      weightUnit: input.weightUnit ?? 'KG',
      itemIds: previous?.itemIds,
    }),
    check(_accountId, input, previous) {
      if (previous) assertNotBooked(previous, 'path/parcel-id', 'replaced');
      if (input.packingTypeId && !deps.catalogue.packingType(input.packingTypeId)) {
        throw ruleViolation('body/packingTypeId', `Packing Type ${input.packingTypeId} is not in the carrier catalogue`);
      }
    },
  });

  function assertNotBooked(parcel: Parcel, field: string, verb: string): void {
    if (parcel.shipmentBookingId) {
      throw ruleViolation(field, `Parcel ${parcel.id} is used in Shipment Booking ${parcel.shipmentBookingId} and cannot be ${verb}`);
    }
  }

  const self = {
    ...base,

    /** Deletes a parcel: guards first, then cascades (its items), then the parcel itself. */
    remove(accountId: string, id: string): Parcel {
      const parcel = base.get(accountId, id);
      assertNotBooked(parcel, 'path/parcel-id', 'deleted');
      for (const guard of guards) guard(accountId, parcel);
      for (const cascade of cascades) cascade(accountId, parcel);
      return base.remove(accountId, id);
    },

    /** Registers a rule checked before a parcel is deleted (Dangerous Goods Declarations use it). */
    addRemovalGuard(guard: ParcelRemovalGuard): void {
      guards.push(guard);
    },

    /** Registers work done when a parcel is deleted (Parcel Items use it). */
    addRemovalCascade(cascade: ParcelRemovalCascade): void {
      cascades.push(cascade);
    },

    /**
     * The parcel a request body names, ready to be booked: it exists in this account and is not
     * booked yet; otherwise a 400 naming `field` (e.g. 'body/parcelIds/0').
     */
    assertBookable(accountId: string, parcelId: string, field: string): Parcel {
      const parcel = base.find(accountId, parcelId);
      if (!parcel) throw ruleViolation(field, `Parcel ${parcelId} does not exist in this account`);
      if (parcel.shipmentBookingId) throw ruleViolation(field, `Parcel ${parcelId} is already booked in Shipment Booking ${parcel.shipmentBookingId}`);
      return parcel;
    },

    /** A parcel a request body names (any state), or a 400 naming `field`. */
    assertExists(accountId: string, parcelId: string, field: string): Parcel {
      const parcel = base.find(accountId, parcelId);
      if (!parcel) throw ruleViolation(field, `Parcel ${parcelId} does not exist in this account`);
      return parcel;
    },

    /** Throws the 400 for changes to a booked parcel (items, declarations), naming `field`. */
    assertNotBooked(parcel: Parcel, field: string, verb = 'changed'): void {
      assertNotBooked(parcel, field, verb);
    },

    /** Sets shipmentBookingId and trackingNumber (publishes PARCEL UPDATED); the parcel is frozen from now on. */
    markBooked(accountId: string, parcelId: string, booking: ParcelBooking): Parcel {
      const parcel = base.get(accountId, parcelId);
      return base.save(accountId, { ...parcel, shipmentBookingId: booking.shipmentBookingId, trackingNumber: booking.trackingNumber });
    },

    /** Clears the booking from a parcel (a cancelled booking) so it can be changed or booked again. */
    markUnbooked(accountId: string, parcelId: string): Parcel {
      const { shipmentBookingId: _booking, trackingNumber: _tracking, ...parcel } = base.get(accountId, parcelId);
      return base.save(accountId, parcel);
    },

    /** Adds an item id to itemIds (publishes PARCEL UPDATED). */
    attachItem(accountId: string, parcelId: string, itemId: string): Parcel {
      const parcel = base.get(accountId, parcelId);
      return base.save(accountId, { ...parcel, itemIds: [...(parcel.itemIds ?? []), itemId] });
    },

    /** Removes an item id from itemIds (publishes PARCEL UPDATED); a no-op for an unknown parcel. */
    detachItem(accountId: string, parcelId: string, itemId: string): Parcel | undefined {
      const parcel = base.find(accountId, parcelId);
      if (!parcel) return undefined;
      return base.save(accountId, { ...parcel, itemIds: (parcel.itemIds ?? []).filter((id) => id !== itemId) });
    },
  };
  return self;
}

export type ParcelService = ReturnType<typeof createParcelService>;
