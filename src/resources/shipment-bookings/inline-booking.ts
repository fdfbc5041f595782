import type { DomainDeps } from '../shared/domain-deps.js';
import type { CarrierDefinitionRef } from '../../carriers/index.js';
import { ProblemError, ruleViolation } from '../../errors/problem.js';
import { effectiveMode } from '../carrier-definitions/model.js';
import type { PudoPoint } from '../pudo-points/model.js';
import { duplicateSettingKeys } from '../shared/settings.js';
import type { ShipmentChannel } from '../shipment-channels/model.js';
import { checkShipment, partyOfAddress, partyOfPudoPoint, weightKgOf, type BookingRuleDeps, type BookingRules, type ShipmentDraft } from './booking-rules.js';
import type { BookingContext, BookingWorkflow } from './booking-workflow.js';
import type { InlineShipmentBookingInput, Party, ShipmentBookingInput, StoredShipmentBooking } from './model.js';

/** The channel an inline booking without shipmentChannelId gets when the account has none. */
const DEFAULT_CHANNEL = { name: 'Default', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } } as const;

/** An inline booking checked against every rule, before anything is created. */
interface InlinePlan {
  /** The Carrier Definition to book through: an existing one, or the embedded one (created only on commit). */
  carrierDefinition: CarrierDefinitionRef;
  channel?: ShipmentChannel;
  pudo?: PudoPoint;
  draft: ShipmentDraft;
}

/**
 * POST /v1/shipment-bookings/inline (contract/DECISIONS.md "Inline booking shape", "Inline
 * service selection", "Inline receiver", "Inline shipment channel"): the embedded objects are
 * checked first, the carrier is asked next, and only then are the Carrier and Service
 * Definitions (when embedded), the "Default" Shipment Channel (when the account has none), the
 * Addresses, Parcels and Customs Declaration created as ordinary resources and the booking
 * committed exactly as a normal one. All or nothing: a refused request or an unavailable
 * carrier creates nothing at all.
 *
 * @example
 * const bookInline = createInlineBooking(runtime, deps, rules, workflow);
 * const booking = await bookInline(accountId, { serviceDefinitionId, sender, receiver, parcels: [{ weight: 2 }] }, {});
 */
export function createInlineBooking(core: Pick<DomainDeps, 'catalogue' | 'random'>, deps: BookingRuleDeps, rules: BookingRules, workflow: BookingWorkflow) {
  const { catalogue, random } = core;

  function plan(accountId: string, input: InlineShipmentBookingInput): InlinePlan {
    if ((input.receiver === undefined) === (input.receiverPudoPointId === undefined)) {
      throw ruleViolation(input.receiver ? 'body/receiverPudoPointId' : 'body/receiver', 'give exactly one of receiver and receiverPudoPointId');
    }
    const { carrierDefinition, service, carrier } = selectService(accountId, input);
    let channel: ShipmentChannel | undefined;
    if (input.shipmentChannelId) {
      channel = deps.shipmentChannels.find(accountId, input.shipmentChannelId);
      if (!channel) throw ruleViolation('body/shipmentChannelId', `${input.shipmentChannelId} is not a Shipment Channel of this account`);
    } else {
      // The contract: "Omitted → the account's oldest Shipment Channel (created with defaults if there is none)".
      channel = deps.shipmentChannels.all(accountId)[0];
    }
    let pudo: PudoPoint | undefined;
    if (input.receiverPudoPointId) {
      pudo = deps.pudoPoints.find(input.receiverPudoPointId);
      if (!pudo) throw ruleViolation('body/receiverPudoPointId', `PUDO Point ${input.receiverPudoPointId} does not exist; query PUDO points first`);
    }
    input.parcels.forEach((parcel, i) => {
      if (parcel.packingTypeId && !catalogue.packingType(parcel.packingTypeId)) {
        throw ruleViolation(`body/parcels/${i}/packingTypeId`, `Packing Type ${parcel.packingTypeId} is not in the carrier catalogue`);
      }
    });
    input.customsDeclaration?.types.forEach((typeId, i) => {
      if (!catalogue.customsDeclarationType(typeId)) {
        throw ruleViolation(`body/customsDeclaration/types/${i}`, `Customs Declaration Type ${typeId} is not in the carrier catalogue`);
      }
    });
    const draft: ShipmentDraft = {
      service,
      carrier,
      sender: partyOfAddress(input.sender),
      receiver: pudo ? partyOfPudoPoint(pudo) : partyOfAddress(input.receiver!),
      receiverPudo: pudo,
      weightsKg: input.parcels.map(weightKgOf),
      hasCustoms: input.customsDeclaration !== undefined,
      hasDangerousGoods: false,
    };
    checkShipment(catalogue, draft, {
      service: input.serviceDefinitionId ? 'body/serviceDefinitionId' : 'body/serviceDefinition/serviceId',
      receiver: 'body/receiverPudoPointId',
      delivery: pudo ? 'body/receiverPudoPointId' : 'body/receiver',
      parcel: (i) => `body/parcels/${i}/weight`,
      customs: 'body/customsDeclaration',
      dangerousGoods: 'body',
    });
    return { carrierDefinition, channel, pudo, draft };
  }

  /** serviceDefinitionId wins; else the embedded pair (checked as their own create would); else 400. */
  function selectService(accountId: string, input: InlineShipmentBookingInput) {
    if (input.serviceDefinitionId) return rules.resolveService(accountId, input.serviceDefinitionId, 'body/serviceDefinitionId');
    const embedded = input.carrierDefinition;
    if (!embedded || !input.serviceDefinition) {
      throw ruleViolation('body/serviceDefinitionId', 'name a serviceDefinitionId, or embed both carrierDefinition and serviceDefinition');
    }
    const carrier = catalogue.carrier(embedded.carrierId)?.view;
    if (!carrier) throw ruleViolation('body/carrierDefinition/carrierId', `${embedded.carrierId} is not a Carrier of the carrier catalogue (GET /v1/carriers)`);
    const duplicates = duplicateSettingKeys(embedded.settings, 'body/carrierDefinition/settings');
    if (duplicates.length) throw new ProblemError('rule-violation', { detail: duplicates[0].message, violations: duplicates });
    const service = catalogue.service(input.serviceDefinition.serviceId);
    if (!service || service.view.carrierId !== carrier.id) {
      throw ruleViolation('body/serviceDefinition/serviceId', `${input.serviceDefinition.serviceId} is not a Service of ${carrier.name} (GET /v1/carriers/${carrier.id}/services)`);
    }
    // Not created yet: the carrier's call log names no Carrier Definition id for it.
    const carrierDefinition: CarrierDefinitionRef = { id: '', carrierId: carrier.id, mode: effectiveMode(embedded.mode), settings: embedded.settings };
    return { carrierDefinition, service, carrier };
  }

  /** Creates what the request embeds and returns the equivalent normal booking request. */
  function createEmbedded(accountId: string, input: InlineShipmentBookingInput, planned: InlinePlan): ShipmentBookingInput {
    let serviceDefinitionId = input.serviceDefinitionId;
    if (!serviceDefinitionId) {
      const carrierDefinition = deps.carrierDefinitions.create(accountId, input.carrierDefinition!);
      serviceDefinitionId = deps.serviceDefinitions.create(accountId, { carrierDefinitionId: carrierDefinition.id, ...input.serviceDefinition! }).id;
    }
    const channel = planned.channel ?? deps.shipmentChannels.create(accountId, { ...DEFAULT_CHANNEL, documentRendering: { ...DEFAULT_CHANNEL.documentRendering } });
    const sender = deps.addresses.create(accountId, input.sender);
    const receiver: Party = planned.pudo
      ? { role: 'RECEIVER', entityType: 'PUDO', id: planned.pudo.id }
      : { role: 'RECEIVER', entityType: 'ADDRESS', id: deps.addresses.create(accountId, input.receiver!).id };
    const parcelIds = input.parcels.map((parcel) => deps.parcels.create(accountId, parcel).id);
    const customsDeclarationId = input.customsDeclaration ? deps.customsDeclarations.create(accountId, input.customsDeclaration).id : undefined;
    return {
      serviceDefinitionId,
      shipmentChannelId: channel.id,
      parties: [{ role: 'SENDER', entityType: 'ADDRESS', id: sender.id }, receiver],
      parcelIds,
      ...(customsDeclarationId ? { customsDeclarationId } : {}),
      ...(input.reference ? { reference: input.reference } : {}),
      ...(input.shipDate ? { shipDate: input.shipDate } : {}),
    };
  }

  return async function bookInline(accountId: string, input: InlineShipmentBookingInput, context: BookingContext): Promise<StoredShipmentBooking> {
    const planned = plan(accountId, input);
    const id = random.uuid();
    const answer = await workflow.askCarrier(accountId, planned.carrierDefinition, planned.draft, {
      shipmentBookingId: id,
      parcelIds: input.parcels.map((_p, i) => `inline-parcel-${i + 1}`),
      reference: input.reference,
    }, context);
    // The account may have changed while the carrier answered: check again before creating anything.
    const current = plan(accountId, input);
    if (answer.kind === 'BOOKED') workflow.assertLabelsRender(accountId, current.draft, context);
    const resolved = rules.resolve(accountId, createEmbedded(accountId, input, current));
    return workflow.commit(accountId, id, resolved, answer, context);
  };
}
