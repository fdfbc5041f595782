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
import { createBookingDocuments } from './booking-documents.js';
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
  /** How the carrier's latency is waited out: outside the request's unit of work (RequestContext.waitOutside). */
  wait?: (ms: number) => Promise<void>;
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

/** What correlates a carrier call in the carrier's log (an inline booking's parcels have no ids yet). */
export interface CarrierCorrelation {
  shipmentBookingId: string;
  parcelIds: string[];
  reference?: string;
}

const FAILURE_REASON_MAX = 500;

const locationOf = (party: DocumentParty): CarrierLocation => ({ countryCode: party.countryCode, postalCode: party.postalCode, city: party.city });

/** What a booking records whatever the carrier answered: its references and a snapshot of what it was booked with. */
function bookingFields(id: string, resolved: ResolvedBooking, answer: CarrierAnswer, now: string) {
  const { input, serviceDefinition, carrierDefinition, channel, draft } = resolved;
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

/** The carrier's answer: BOOKED, or REJECTED with its reason; an outage or timeout is thrown as a 500 `carrier-unavailable` problem. */
async function askCarrier(
  carriers: Carriers,
  accountId: string,
  definition: CarrierDefinitionRef,
  draft: ShipmentDraft,
  correlation: CarrierCorrelation,
  wait?: (ms: number) => Promise<void>,
): Promise<CarrierAnswer> {
  const connection = carriers.forDefinition(definition);
  try {
    const result = await connection.book(
      {
        accountId,
        serviceId: draft.service.view.id,
        parcels: draft.weightsKg.map((weightKg, i) => ({ parcelId: correlation.parcelIds[i], weightKg })),
        sender: locationOf(draft.sender),
        receiver: locationOf(draft.receiver),
        reference: correlation.reference,
        shipmentBookingId: correlation.shipmentBookingId,
      },
      wait,
    );
    return { kind: 'BOOKED', mode: connection.mode, result };
  } catch (error) {
    if (!(error instanceof CarrierError)) throw error;
    if (error.retryable) throw carrierUnavailable(error);
    return { kind: 'REJECTED', mode: connection.mode, reason: error.message.slice(0, FAILURE_REASON_MAX) };
  }
}

/** @example const workflow = createBookingWorkflow(core, deps); const answer = await workflow.askCarrier(…) */
export function createBookingWorkflow(core: Pick<DomainDeps, 'store' | 'clock' | 'events' | 'scenarios' | 'catalogue'>, deps: BookingWorkflowDeps) {
  const { store, clock, events, scenarios, catalogue } = core;
  const bookings = (accountId: string) => store.account(accountId).collection<StoredShipmentBooking>('shipment-bookings');

  const render = createBookingDocuments({ catalogue, documents: deps.documents });

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
     * call in the carrier's log (an inline booking's parcels have no ids yet). The carrier's
     * latency is waited as `context.wait` says (outside the unit of work): the caller holds
     * nothing it read before across it, and reads again after it.
     */
    askCarrier: (accountId: string, definition: CarrierDefinitionRef, draft: ShipmentDraft, correlation: CarrierCorrelation, context: BookingContext = {}): Promise<CarrierAnswer> =>
      askCarrier(deps.carriers, accountId, definition, draft, correlation, context.wait),

    /** A QA scenario's `label` effect (outcome FAIL) refuses the booking before anything is stored. */
    assertLabelsRender(accountId: string, draft: ShipmentDraft, context: BookingContext): void {
      const fired = scenarios.evaluate('label', { accountId, carrierId: draft.carrier.id, carrierCode: draft.carrier.code, operationId: context.operationId } satisfies DomainFacts);
      if (fired?.effect.label) throw labelRenderingFailed(fired.effect.label.reason ?? `simulated failure (scenario ${fired.scenario}, ${fired.rule})`);
    },

    /** Stores the booking and everything it yields; synchronous, so nothing can interleave. */
    commit(accountId: string, id: string, resolved: ResolvedBooking, answer: CarrierAnswer, context: BookingContext): StoredShipmentBooking {
      const { head, common } = bookingFields(id, resolved, answer, clock.nowIso());
      if (answer.kind === 'REJECTED') {
        // contract/DECISIONS.md "Booking status and FAILED": stored, inspectable, nothing booked or billed.
        const parcels = resolved.input.parcelIds.map((parcelId) => ({ parcelId }));
        return storeBooking(accountId, { ...head, status: 'FAILED', ...common, failureReason: answer.reason, parcels });
      }

      const { result } = answer;
      const { input } = resolved;
      const trackingNumbers = result.trackingNumbers;
      const labels = render.labels(accountId, id, resolved, result);
      const documentIds = labels.map((label) => label.id);
      const customsFormId = resolved.customs && render.customsForm(accountId, id, resolved, resolved.customs, result);
      if (customsFormId) documentIds.push(customsFormId);
      if (resolved.dangerousGoods.length) documentIds.push(render.dangerousGoodsForm(accountId, id, resolved, result));
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
