import type { ResourceDeps } from '../shared/domain-deps.js';
import { notFound } from '../../errors/problem.js';
import type { Page, PageRequest } from '../../store/collection.js';
import type { AddressService } from '../addresses/service.js';
import type { DocumentService } from '../documents/service.js';
import { compact } from '../../util/compact.js';
import { partyOfAddress } from '../shipment-bookings/booking-rules.js';
import type { ShipmentBookingService } from '../shipment-bookings/service.js';
import type { ShipmentDispatchService } from '../shipment-dispatches/service.js';
import type { ShipmentManifest } from './model.js';

/** Weights are summed in kg and shown to the gram; a sum never rounds down to nothing. */
const grams = (kg: number) => Math.round(kg * 1000) / 1000 || kg;

/**
 * Shipment Manifests (contract/DECISIONS.md "Manifest creation", "Shipment Manifest fields"):
 * creating one closes an OPEN dispatch, renders the MANIFEST PDF (one row per parcel from what
 * each booking sent to the carrier, SPECIMEN when any booking was made in STAGING), stores the
 * manifest, and moves every booking to MANIFESTED. Events, in that order: DOCUMENT CREATED,
 * SHIPMENT_MANIFEST CREATED, SHIPMENT_DISPATCH UPDATED, SHIPMENT_BOOKING MANIFESTED per booking.
 * Manifests are read-only afterwards.
 *
 * @example
 * const manifest = manifests.create(accountId, dispatchId);
 * documents.data(accountId, manifest.documentId).mediaType // 'application/pdf'
 */
export function createShipmentManifestService(
  core: ResourceDeps,
  deps: { dispatches: ShipmentDispatchService; bookings: ShipmentBookingService; documents: DocumentService; addresses: AddressService },
) {
  const { store, clock, random, events } = core;
  const manifests = (accountId: string) => store.account(accountId).collection<ShipmentManifest>('shipment-manifests');

  return {
    create(accountId: string, shipmentDispatchId: string): ShipmentManifest {
      const dispatch = deps.dispatches.get(accountId, shipmentDispatchId);
      deps.dispatches.assertOpen(dispatch, 'manifested again');
      const bookings = dispatch.shipmentBookingIds.map((id) => deps.bookings.stored(accountId, id));
      const id = random.uuid();
      const pickupAddress = dispatch.pickupAddressId ? deps.addresses.find(accountId, dispatch.pickupAddressId) : undefined;
      const document = deps.documents.createManifest(accountId, {
        specimen: bookings.some((b) => b.mode === 'STAGING'),
        carrier: bookings[0].snapshot.carrier,
        shipmentManifestId: id,
        shipmentDispatchId,
        pickupDate: dispatch.pickupDate,
        pickupWindow: dispatch.pickupWindowFrom && dispatch.pickupWindowTo ? { from: dispatch.pickupWindowFrom, to: dispatch.pickupWindowTo } : undefined,
        pickupAddress: pickupAddress && partyOfAddress(pickupAddress),
        reference: dispatch.reference,
        entries: bookings.map((b) => ({
          shipmentBookingId: b.id,
          reference: b.reference,
          receiver: b.snapshot.receiver,
          service: b.snapshot.service.name,
          parcels: (b.trackingNumbers ?? []).map((trackingNumber, i) => ({ trackingNumber, weightKg: b.snapshot.weightsKg[i] })),
        })),
      });
      const now = clock.nowIso();
      const weights = bookings.flatMap((b) => b.snapshot.weightsKg);
      const manifest: ShipmentManifest = compact({
        id,
        createdAt: now,
        updatedAt: now,
        shipmentDispatchId,
        carrierDefinitionId: dispatch.carrierDefinitionId,
        carrierId: bookings[0].carrierId,
        shipmentBookingIds: dispatch.shipmentBookingIds,
        parcelCount: weights.length,
        totalWeightKg: grams(weights.reduce((sum, kg) => sum + kg, 0)),
        documentId: document.id,
      });
      manifests(accountId).insert(manifest);
      events.publish({ topic: 'SHIPMENT_MANIFEST', type: 'CREATED', accountId, payload: manifest });
      deps.dispatches.close(accountId, shipmentDispatchId, id);
      for (const booking of bookings) {
        deps.bookings.setStatus(accountId, booking.id, { status: 'MANIFESTED', shipmentDispatchId }, 'MANIFESTED');
      }
      return manifest;
    },

    get(accountId: string, id: string): ShipmentManifest {
      const found = manifests(accountId).get(id);
      if (!found) throw notFound('Shipment Manifest', id);
      return found;
    },

    list(accountId: string, page: Omit<PageRequest<ShipmentManifest>, 'filter'>, filter: { shipmentDispatchId?: string } = {}): Page<ShipmentManifest> {
      const { shipmentDispatchId } = filter;
      return manifests(accountId).page({ ...page, filter: shipmentDispatchId ? (m) => m.shipmentDispatchId === shipmentDispatchId : undefined });
    },
  };
}

export type ShipmentManifestService = ReturnType<typeof createShipmentManifestService>;
