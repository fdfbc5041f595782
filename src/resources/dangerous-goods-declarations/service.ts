import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import type { ParcelService } from '../parcels/service.js';
import { createAccountResources } from '../shared/account-resources.js';
import { createBookingReferences } from '../shared/booking-references.js';
import type { CatalogueLookup } from '../shared/catalogue-lookup.js';
import type { DangerousGoodsDeclaration, DangerousGoodsDeclarationInput } from './model.js';

/**
 * Dangerous Goods Declarations: `typeId` must be a catalogue type; `parcelId`, when given, a
 * Parcel of the account that is not booked yet. A Parcel with a declaration cannot be deleted
 * (registered as a parcel removal guard), and a declaration a booking references is frozen.
 *
 * @example
 * const dg = dangerousGoods.assertUsable(accountId, id, 'body/dangerousGoodsDeclarationIds/0');
 * dangerousGoods.markReferenced(accountId, dg.id, bookingId);
 */
export function createDangerousGoodsDeclarationService(core: ResourceDeps, deps: { catalogue: CatalogueLookup; parcels: ParcelService }) {
  const { parcels } = deps;
  const references = createBookingReferences(core, 'dangerous-goods-declaration-references');

  const assertNotReferenced = (accountId: string, declaration: DangerousGoodsDeclaration, verb: string) => {
    const [bookingId] = references.bookingsOf(accountId, declaration.id);
    if (bookingId) {
      throw ruleViolation(
        'path/dangerous-goods-declaration-id',
        `Dangerous Goods Declaration ${declaration.id} is referenced by Shipment Booking ${bookingId} and cannot be ${verb}`,
      );
    }
  };

  const base = createAccountResources<DangerousGoodsDeclarationInput, DangerousGoodsDeclaration>(core, {
    collection: 'dangerous-goods-declarations',
    topic: 'DANGEROUS_GOODS_DECLARATION',
    label: 'Dangerous Goods Declaration',
    build: (input, meta) => ({ ...meta, ...input }),
    check(accountId, input, previous) {
      if (previous) assertNotReferenced(accountId, previous, 'replaced');
      if (!deps.catalogue.dangerousGoodsDeclarationType(input.typeId)) {
        throw ruleViolation('body/typeId', `Dangerous Goods Declaration Type ${input.typeId} is not in the carrier catalogue`);
      }
      if (input.parcelId && input.parcelId !== previous?.parcelId) {
        const parcel = parcels.assertExists(accountId, input.parcelId, 'body/parcelId');
        // Declaring goods on a booked parcel would change what was sent to the carrier.
        parcels.assertNotBooked(parcel, 'body/parcelId', 'given a Dangerous Goods Declaration');
      }
    },
    checkDelete: (accountId, declaration) => assertNotReferenced(accountId, declaration, 'deleted'),
  });

  const self = {
    ...base,
    remove(accountId: string, id: string): DangerousGoodsDeclaration {
      const removed = base.remove(accountId, id);
      references.forget(accountId, id);
      return removed;
    },
    /** The declarations attached to a parcel. */
    ofParcel: (accountId: string, parcelId: string): DangerousGoodsDeclaration[] => base.all(accountId).filter((d) => d.parcelId === parcelId),
    /** The declaration a request body names, or a 400 naming `field`. */
    assertUsable(accountId: string, id: string, field: string): DangerousGoodsDeclaration {
      const declaration = base.find(accountId, id);
      if (!declaration) throw ruleViolation(field, `Dangerous Goods Declaration ${id} does not exist in this account`);
      return declaration;
    },
    /** Freezes the declaration: a booking references it. */
    markReferenced: (accountId: string, id: string, shipmentBookingId: string) => references.mark(accountId, id, shipmentBookingId),
    /** Unfreezes it for one booking (e.g. a cancelled booking). */
    releaseReference: (accountId: string, id: string, shipmentBookingId: string) => references.release(accountId, id, shipmentBookingId),
    /** Ids of the bookings referencing the declaration. */
    referencedBy: (accountId: string, id: string) => references.bookingsOf(accountId, id),
  };

  // contract/DECISIONS.md "Changing booked parcels": a parcel with a declaration stays.
  parcels.addRemovalGuard((accountId, parcel) => {
    const [declaration] = self.ofParcel(accountId, parcel.id);
    if (declaration) {
      throw ruleViolation('path/parcel-id', `Parcel ${parcel.id} is referenced by Dangerous Goods Declaration ${declaration.id}; delete or detach it first`);
    }
  });
  return self;
}

export type DangerousGoodsDeclarationService = ReturnType<typeof createDangerousGoodsDeclarationService>;
