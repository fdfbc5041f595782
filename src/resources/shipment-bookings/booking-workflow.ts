import type { DomainDeps } from '../shared/domain-deps.js';
import type { UsageLedger } from '../../billing/usage.js';
import { CarrierError, type CarrierBookingResult, type CarrierDefinitionRef, type CarrierLocation, type Carriers } from '../../carriers/index.js';
import type { DocumentParty } from '../../rendering/model.js';
import type { DomainFacts } from '../../scenarios/model.js';
import { compact } from '../../util/compact.js';
import type { CustomsDeclarationService } from '../customs-declarations/service.js';
import type { DangerousGoodsDeclarationService } from '../dangerous-goods-declarations/service.js';
import type { DocumentService } from '../documents/service.js';
import type { ParcelService } from '../parcels/service.js';
import type { TrackerService } from '../trackers/service.js';
import type { ResolvedBooking, ShipmentDraft } from './booking-rules.js';
import { carrierUnavailable, labelRenderingFailed } from './errors.js';
import type { ShipmentBookingEventCode, StoredShipmentBooking } from './model.js';

/**
 * The booking itself, in two steps so that a refused or failed booking stores nothing:
 *
 * 1. `askCarrier` sends the shipment to the carrier of the Carrier Definition — in-process for
 *    STAGING, over the simulated network (interceptors, call log) for PRODUCTION. A rejection
 *    comes back as an answer (the booking will be FAILED); an outage or timeout is thrown as a
 *    500 `carrier-unavailable` problem before anything is stored.
 * 2. `commit` (synchronous, after the caller re-checked the rules) renders and stores the
 *    documents, books the parcels, freezes the declarations, stores the booking and publishes
 *    SHIPMENT_BOOKING CREATED, starts one tracker per parcel and bills one CONSUME/PARCEL token
 *    per parcel. A FAILED booking is stored with its reason and nothing else.
 */
export type CarrierAnswer =
  | { kind: 'BOOKED'; mode: 'STAGING' | 'PRODUCTION'; result: CarrierBookingResult }
  | { kind: 'REJECTED'; mode: 'STAGING' | 'PRODUCTION'; reason: string };

/** Who asked: the company to bill and the contract operation (scenario rules may match it). */
export interface BookingContext {
  companyId?: string;
  operationId?: string;
}

export interface BookingWorkflowDeps {
  carriers: Carriers;
  usage: UsageLedger;
  documents: DocumentService;
  parcels: ParcelService;
  customsDeclarations: CustomsDeclarationService;
  dangerousGoodsDeclarations: DangerousGoodsDeclarationService;
  trackers: TrackerService;
}

const FAILURE_REASON_MAX = 500;

const locationOf = (party: DocumentParty): CarrierLocation => ({ countryCode: party.countryCode, postalCode: party.postalCode, city: party.city });

/** @example const workflow = createBookingWorkflow(core, deps); const answer = await workflow.askCarrier(…) */
export function createBookingWorkflow(core: Pick<DomainDeps, 'store' | 'clock' | 'events' | 'scenarios' | 'catalogue'>, deps: BookingWorkflowDeps) {
  const { store, clock, events, scenarios, catalogue } = core;
  const bookings = (accountId: string) => store.account(accountId).collection<StoredShipmentBooking>('shipment-bookings');

  function publish(accountId: string, code: ShipmentBookingEventCode, booking: StoredShipmentBooking): void {
    // Spec, Events: "A booking event payload carries shipmentId, code (CREATED occurs), createdAt, updatedAt."
    events.publish({
      topic: 'SHIPMENT_BOOKING',
      type: code,
      accountId,
      payload: { shipmentId: booking.id, code, createdAt: booking.createdAt, updatedAt: booking.updatedAt },
    });
  }

  /** Stores a booking and publishes its CREATED event. */
  function storeBooking(accountId: string, booking: StoredShipmentBooking): StoredShipmentBooking {
    const stored = compact<StoredShipmentBooking>(booking);
    bookings(accountId).insert(stored);
    publish(accountId, 'CREATED', stored);
    return stored;
  }

  /** What a booking records whatever the carrier answered: its references and a snapshot of what it was booked with. */
  function commonFields(id: string, resolved: ResolvedBooking, answer: CarrierAnswer) {
    const { input, serviceDefinition, carrierDefinition, channel, draft } = resolved;
    const now = clock.nowIso();
    const snapshot = compact({
      carrier: { name: draft.carrier.name, code: draft.carrier.code },
      service: { name: draft.service.view.name, code: draft.service.view.code },
      sender: draft.sender,
      receiver: draft.receiver,
      weightsKg: draft.weightsKg,
      carrierReference: answer.kind === 'BOOKED' ? answer.result.carrierReference : undefined,
    });
    const head = { id, createdAt: now, updatedAt: now };
    const common = {
      mode: answer.mode,
      carrierId: draft.carrier.id,
      serviceId: draft.service.view.id,
      carrierDefinitionId: carrierDefinition.id,
      serviceDefinitionId: serviceDefinition.id,
      shipmentChannelId: channel.id,
      parties: input.parties,
      customsDeclarationId: input.customsDeclarationId,
      dangerousGoodsDeclarationIds: input.dangerousGoodsDeclarationIds,
      shippingQuoteId: input.shippingQuoteId,
      reference: input.reference,
      shipDate: input.shipDate,
      snapshot,
    };
    return { head, common };
  }

  const carrierOf = (draft: ShipmentDraft) => ({ name: draft.carrier.name, code: draft.carrier.code });

  /** One label per parcel, in the channel's format, size and resolution. */
  function renderLabels(accountId: string, id: string, resolved: ResolvedBooking, result: CarrierBookingResult) {
    const { input, channel, draft } = resolved;
    const { labelFormat: format, labelSize: size, resolutionDpi } = channel.documentRendering;
    const service = { name: draft.service.view.name, code: draft.service.view.code };
    const receiverPudoName = draft.receiverPudo ? `PUDO ${draft.receiverPudo.name}` : undefined;
    return resolved.parcels.map((parcel, index) =>
      deps.documents.createLabel(accountId, {
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
  function renderCustomsForm(accountId: string, id: string, resolved: ResolvedBooking, customs: NonNullable<ResolvedBooking['customs']>, result: CarrierBookingResult): string {
    const { draft, input } = resolved;
    return deps.documents.createCustomsForm(accountId, {
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
  function renderDangerousGoodsForm(accountId: string, id: string, resolved: ResolvedBooking, result: CarrierBookingResult): string {
    const { draft, input } = resolved;
    const trackingOf = (parcelId?: string) => (parcelId ? result.trackingNumbers[input.parcelIds.indexOf(parcelId)] : undefined);
    return deps.documents.createDangerousGoodsForm(accountId, {
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

  /** Parcels become booked (with their tracking numbers); the declarations they used are referenced. */
  function markUsed(accountId: string, id: string, resolved: ResolvedBooking, trackingNumbers: string[]): void {
    const { input } = resolved;
    input.parcelIds.forEach((parcelId, index) => deps.parcels.markBooked(accountId, parcelId, { shipmentBookingId: id, trackingNumber: trackingNumbers[index] }));
    if (input.customsDeclarationId) deps.customsDeclarations.markReferenced(accountId, input.customsDeclarationId, id);
    for (const dgId of input.dangerousGoodsDeclarationIds ?? []) deps.dangerousGoodsDeclarations.markReferenced(accountId, dgId, id);
  }

  /** One tracker per booked parcel, following it on the virtual clock. */
  function registerTrackers(accountId: string, id: string, resolved: ResolvedBooking, result: CarrierBookingResult, context: BookingContext): void {
    const { input, draft } = resolved;
    input.parcelIds.forEach((parcelId, index) =>
      deps.trackers.register(
        accountId,
        {
          trackingNumber: result.trackingNumbers[index],
          carrierId: draft.carrier.id,
          serviceId: draft.service.view.id,
          shipmentBookingId: id,
          parcelId,
          bookedAt: result.bookedAt,
          sender: locationOf(draft.sender),
          receiver: locationOf(draft.receiver),
        },
        { operationId: context.operationId },
      ),
    );
  }

  return {
    publish,

    /**
     * Sends the shipment to the carrier. `parcelIds` and `shipmentBookingId` only correlate the
     * call in the carrier's log (an inline booking's parcels have no ids yet).
     */
    async askCarrier(
      accountId: string,
      definition: CarrierDefinitionRef,
      draft: ShipmentDraft,
      correlation: { shipmentBookingId: string; parcelIds: string[]; reference?: string },
    ): Promise<CarrierAnswer> {
      const connection = deps.carriers.forDefinition(definition);
      try {
        const result = await connection.book({
          accountId,
          serviceId: draft.service.view.id,
          parcels: draft.weightsKg.map((weightKg, i) => ({ parcelId: correlation.parcelIds[i], weightKg })),
          sender: locationOf(draft.sender),
          receiver: locationOf(draft.receiver),
          reference: correlation.reference,
          shipmentBookingId: correlation.shipmentBookingId,
        });
        return { kind: 'BOOKED', mode: connection.mode, result };
      } catch (error) {
        if (!(error instanceof CarrierError)) throw error;
        if (error.retryable) throw carrierUnavailable(error);
        return { kind: 'REJECTED', mode: connection.mode, reason: error.message.slice(0, FAILURE_REASON_MAX) };
      }
    },

    /** A QA scenario's `label` effect (outcome FAIL) refuses the booking before anything is stored. */
    assertLabelsRender(accountId: string, draft: ShipmentDraft, context: BookingContext): void {
      const fired = scenarios.evaluate('label', { accountId, carrierId: draft.carrier.id, carrierCode: draft.carrier.code, operationId: context.operationId } satisfies DomainFacts);
      if (fired?.effect.label) throw labelRenderingFailed(fired.effect.label.reason ?? `simulated failure (scenario ${fired.scenario}, ${fired.rule})`);
    },

    /** Stores the booking and everything it yields; synchronous, so nothing can interleave. */
    commit(accountId: string, id: string, resolved: ResolvedBooking, answer: CarrierAnswer, context: BookingContext): StoredShipmentBooking {
      const { head, common } = commonFields(id, resolved, answer);
      if (answer.kind === 'REJECTED') {
        // contract/DECISIONS.md "Booking status and FAILED": stored, inspectable, nothing booked or billed.
        const parcels = resolved.input.parcelIds.map((parcelId) => ({ parcelId }));
        return storeBooking(accountId, { ...head, status: 'FAILED', ...common, failureReason: answer.reason, parcels });
      }

      const { result } = answer;
      const { input } = resolved;
      const trackingNumbers = result.trackingNumbers;
      const labels = renderLabels(accountId, id, resolved, result);
      const documentIds = labels.map((label) => label.id);
      const customsFormId = resolved.customs && renderCustomsForm(accountId, id, resolved, resolved.customs, result);
      if (customsFormId) documentIds.push(customsFormId);
      if (resolved.dangerousGoods.length) documentIds.push(renderDangerousGoodsForm(accountId, id, resolved, result));
      markUsed(accountId, id, resolved, trackingNumbers);
      const booking = storeBooking(accountId, {
        ...head,
        status: 'BOOKED',
        ...common,
        parcels: input.parcelIds.map((parcelId, index) => ({ parcelId, trackingNumber: trackingNumbers[index], labelDocumentId: labels[index].id })),
        trackingNumbers,
        documentIds,
      });
      registerTrackers(accountId, id, resolved, result, context);
      // Spec, billing: "A Parcel is used in a Shipment Booking" — one CONSUME/PARCEL token per parcel.
      for (let i = 0; i < input.parcelIds.length; i++) {
        deps.usage.recordUsage({ accountId, companyId: context.companyId, operation: 'CONSUME', topic: 'PARCEL', tokens: 1, reference: id });
      }
      return booking;
    },
  };
}

export type BookingWorkflow = ReturnType<typeof createBookingWorkflow>;
