import type { Catalogue } from '../../carrier-catalogue/model.js';
import type { CarrierBookingResult } from '../../carriers/index.js';
import type { DocumentService } from '../documents/service.js';
import type { ResolvedBooking, ShipmentDraft } from './booking-rules.js';

const carrierOf = (draft: ShipmentDraft) => ({ name: draft.carrier.name, code: draft.carrier.code });

/**
 * The documents a BOOKED booking yields, rendered and stored through the document service: a
 * label per parcel, a customs form when it has a customs declaration, a dangerous goods form
 * when it has DG declarations. Each returns what the booking records (the documents or their ids).
 *
 * @example const documents = createBookingDocuments({ catalogue, documents: documentService }); documents.labels(accountId, id, resolved, result)
 */
export function createBookingDocuments({ catalogue, documents }: { catalogue: Catalogue; documents: DocumentService }) {
  /** One label per parcel, in the channel's format, size and resolution. */
  function labels(accountId: string, id: string, resolved: ResolvedBooking, result: CarrierBookingResult) {
    const { input, channel, draft } = resolved;
    const { labelFormat: format, labelSize: size, resolutionDpi } = channel.documentRendering;
    const service = { name: draft.service.view.name, code: draft.service.view.code };
    const receiverPudoName = draft.receiverPudo ? `PUDO ${draft.receiverPudo.name}` : undefined;
    return resolved.parcels.map((parcel, index) =>
      documents.createLabel(accountId, {
        format,
        size,
        resolutionDpi,
        specimen: result.specimen,
        carrier: carrierOf(draft),
        service,
        sender: draft.sender,
        receiver: draft.receiver,
        receiverPudoName,
        parcel: { id: parcel.id, weight: parcel.weight, weightUnit: parcel.weightUnit ?? 'KG', dimensions: parcel.dimensions, reference: parcel.reference },
        trackingNumber: result.trackingNumbers[index],
        parcelIndex: index + 1,
        parcelCount: resolved.parcels.length,
        shipDate: input.shipDate,
        reference: input.reference,
        shipmentBookingId: id,
      }),
    );
  }

  /** The customs form (CN23-style) of a booking with a customs declaration; its document id. */
  function customsForm(accountId: string, id: string, resolved: ResolvedBooking, customs: NonNullable<ResolvedBooking['customs']>, result: CarrierBookingResult): string {
    const { draft, input } = resolved;
    return documents.createCustomsForm(accountId, {
      specimen: result.specimen,
      typeCodes: customs.types.map((typeId) => catalogue.customsDeclarationType(typeId)?.code ?? typeId),
      carrier: carrierOf(draft),
      sender: draft.sender,
      receiver: draft.receiver,
      declarant: customs.declarant,
      currency: customs.currency,
      contentType: customs.contentType,
      incoterm: customs.incoterm,
      invoiceNumber: customs.invoiceNumber,
      lines: customs.lines ?? [],
      trackingNumbers: result.trackingNumbers,
      reference: input.reference,
      shipmentBookingId: id,
    }).id;
  }

  /** The dangerous goods form of a booking with DG declarations, each item with its parcel's tracking number. */
  function dangerousGoodsForm(accountId: string, id: string, resolved: ResolvedBooking, result: CarrierBookingResult): string {
    const { draft, input } = resolved;
    const trackingOf = (parcelId?: string) => (parcelId ? result.trackingNumbers[input.parcelIds.indexOf(parcelId)] : undefined);
    return documents.createDangerousGoodsForm(accountId, {
      specimen: result.specimen,
      carrier: carrierOf(draft),
      sender: draft.sender,
      receiver: draft.receiver,
      items: resolved.dangerousGoods.map((dg) => ({
        unNumber: dg.unNumber,
        properShippingName: dg.properShippingName,
        hazardClass: dg.hazardClass,
        packingGroup: dg.packingGroup,
        quantity: dg.quantity,
        quantityUnit: dg.quantityUnit,
        typeName: catalogue.dangerousGoodsDeclarationType(dg.typeId)?.name,
        trackingNumber: trackingOf(dg.parcelId),
        emergencyContact: dg.emergencyContact,
      })),
      trackingNumbers: result.trackingNumbers,
      reference: input.reference,
      shipmentBookingId: id,
    }).id;
  }

  return { labels, customsForm, dangerousGoodsForm };
}

export type BookingDocuments = ReturnType<typeof createBookingDocuments>;
