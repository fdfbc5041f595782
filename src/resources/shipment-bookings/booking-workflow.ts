import type { DomainDeps } from '../shared/domain-deps.js';
import type { UsageLedger } from '../../billing/usage.js';
import { CarrierError, type CarrierBookingResult, type CarrierDefinitionRef, type CarrierLocation, type Carriers } from '../../carriers/index.js';
import type { DocumentParty } from '../../documents/model.js';
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

      if (answer.kind === 'REJECTED') {
        // contract/DECISIONS.md "Booking status and FAILED": stored, inspectable, nothing booked or billed.
        const failed = compact<StoredShipmentBooking>({
          ...head,
          status: 'FAILED',
          ...common,
          failureReason: answer.reason,
          parcels: input.parcelIds.map((parcelId) => ({ parcelId })),
        });
        bookings(accountId).insert(failed);
        publish(accountId, 'CREATED', failed);
        return failed;
      }

      const { result } = answer;
      const trackingNumbers = result.trackingNumbers;
      const { labelFormat: format, labelSize: size, resolutionDpi } = channel.documentRendering;
      const carrier = { name: draft.carrier.name, code: draft.carrier.code };
      const service = { name: draft.service.view.name, code: draft.service.view.code };
      const receiverPudoName = draft.receiverPudo ? `PUDO ${draft.receiverPudo.name}` : undefined;
      const labels = resolved.parcels.map((parcel, index) =>
        deps.documents.createLabel(accountId, {
          format,
          size,
          resolutionDpi,
          specimen: result.specimen,
          carrier,
          service,
          sender: draft.sender,
          receiver: draft.receiver,
          receiverPudoName,
          parcel: { id: parcel.id, weight: parcel.weight, weightUnit: parcel.weightUnit ?? 'KG', dimensions: parcel.dimensions, reference: parcel.reference },
          trackingNumber: trackingNumbers[index],
          parcelIndex: index + 1,
          parcelCount: resolved.parcels.length,
          shipDate: input.shipDate,
          reference: input.reference,
          shipmentBookingId: id,
        }),
      );
      const documentIds = labels.map((label) => label.id);
      if (resolved.customs) {
        const customs = resolved.customs;
        documentIds.push(
          deps.documents.createCustomsForm(accountId, {
            specimen: result.specimen,
            typeCodes: customs.types.map((typeId) => catalogue.customsDeclarationType(typeId)?.code ?? typeId),
            carrier,
            sender: draft.sender,
            receiver: draft.receiver,
            declarant: customs.declarant,
            currency: customs.currency,
            contentType: customs.contentType,
            incoterm: customs.incoterm,
            invoiceNumber: customs.invoiceNumber,
            lines: customs.lines ?? [],
            trackingNumbers,
            reference: input.reference,
            shipmentBookingId: id,
          }).id,
        );
      }
      if (resolved.dangerousGoods.length) {
        const trackingOf = (parcelId?: string) => (parcelId ? trackingNumbers[input.parcelIds.indexOf(parcelId)] : undefined);
        documentIds.push(
          deps.documents.createDangerousGoodsForm(accountId, {
            specimen: result.specimen,
            carrier,
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
            trackingNumbers,
            reference: input.reference,
            shipmentBookingId: id,
          }).id,
        );
      }

      input.parcelIds.forEach((parcelId, index) => deps.parcels.markBooked(accountId, parcelId, { shipmentBookingId: id, trackingNumber: trackingNumbers[index] }));
      if (input.customsDeclarationId) deps.customsDeclarations.markReferenced(accountId, input.customsDeclarationId, id);
      for (const dgId of input.dangerousGoodsDeclarationIds ?? []) deps.dangerousGoodsDeclarations.markReferenced(accountId, dgId, id);

      const booking = compact<StoredShipmentBooking>({
        ...head,
        status: 'BOOKED',
        ...common,
        parcels: input.parcelIds.map((parcelId, index) => ({ parcelId, trackingNumber: trackingNumbers[index], labelDocumentId: labels[index].id })),
        trackingNumbers,
        documentIds,
      });
      bookings(accountId).insert(booking);
      publish(accountId, 'CREATED', booking);

      input.parcelIds.forEach((parcelId, index) =>
        deps.trackers.register(
          accountId,
          {
            trackingNumber: trackingNumbers[index],
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
      // Spec, billing: "A Parcel is used in a Shipment Booking" — one CONSUME/PARCEL token per parcel.
      for (let i = 0; i < input.parcelIds.length; i++) {
        deps.usage.recordUsage({ accountId, companyId: context.companyId, operation: 'CONSUME', topic: 'PARCEL', tokens: 1, reference: id });
      }
      return booking;
    },
  };
}

export type BookingWorkflow = ReturnType<typeof createBookingWorkflow>;
