import type { Carrier, Catalogue, ServiceEntry, ServiceRouteEntry } from '../../carrier-catalogue/model.js';
import type { DocumentParty } from '../../rendering/model.js';
import { ruleViolation } from '../../errors/problem.js';
import type { Address } from '../addresses/model.js';
import type { AddressService } from '../addresses/service.js';
import type { CarrierDefinition } from '../carrier-definitions/model.js';
import type { CarrierDefinitionService } from '../carrier-definitions/service.js';
import type { CustomsDeclaration } from '../customs-declarations/model.js';
import type { CustomsDeclarationService } from '../customs-declarations/service.js';
import type { DangerousGoodsDeclaration } from '../dangerous-goods-declarations/model.js';
import type { DangerousGoodsDeclarationService } from '../dangerous-goods-declarations/service.js';
import type { Parcel } from '../parcels/model.js';
import type { ParcelService } from '../parcels/service.js';
import type { PudoPoint } from '../pudo-points/model.js';
import type { PudoPointService } from '../pudo-points/service.js';
import type { ServiceDefinition } from '../service-definitions/model.js';
import type { ServiceDefinitionService } from '../service-definitions/service.js';
import type { ShipmentChannel } from '../shipment-channels/model.js';
import type { ShipmentChannelService } from '../shipment-channels/service.js';
import type { ShippingQuoteService } from '../shipping-quotes/service.js';
import type { Party, ShipmentBookingInput } from './model.js';

/**
 * The rules a booking must pass before anything is sent to a carrier or stored, each a 400
 * `rule-violation` naming the field (contract/DECISIONS.md "Party rules", "Booking references",
 * "Booking route rules", "Already-booked parcels", "shippingQuoteId"). Nothing here changes
 * state: a refused booking leaves the account exactly as it was.
 */
export interface BookingRuleDeps {
  catalogue: Catalogue;
  addresses: AddressService;
  carrierDefinitions: CarrierDefinitionService;
  serviceDefinitions: ServiceDefinitionService;
  shipmentChannels: ShipmentChannelService;
  parcels: ParcelService;
  customsDeclarations: CustomsDeclarationService;
  dangerousGoodsDeclarations: DangerousGoodsDeclarationService;
  pudoPoints: PudoPointService;
  shippingQuotes: ShippingQuoteService;
}

const LB_IN_KG = 0.45359237;

/** A parcel's weight in kg, as carriers and manifests count it. @example weightKgOf({ weight: 11, weightUnit: 'LB' }) // 4.9895… */
export const weightKgOf = (parcel: { weight: number; weightUnit?: 'KG' | 'LB' }) => (parcel.weightUnit === 'LB' ? parcel.weight * LB_IN_KG : parcel.weight);

/** An Address (or embedded AddressRequest) as documents print it. @example partyOfAddress(address).countryCode // 'DE' */
export function partyOfAddress(address: Omit<Address, 'id' | 'createdAt' | 'updatedAt' | 'reference'>): DocumentParty {
  const { name, companyName, street, street2, postalCode, city, stateCode, countryCode, phone, email } = address;
  return { name, companyName, street, street2, postalCode, city, stateCode, countryCode, phone, email };
}

/** A PUDO Point receiving a parcel, as documents print it. @example partyOfPudoPoint(point).name // 'DHL Paketshop Hauptstraße' */
export function partyOfPudoPoint(point: PudoPoint): DocumentParty {
  return { name: point.name, ...point.address };
}

/** What the shipment-level rules look at, however the booking was given (by ids or inline). */
export interface ShipmentDraft {
  service: ServiceEntry;
  carrier: Carrier;
  sender: DocumentParty;
  receiver: DocumentParty;
  receiverPudo?: PudoPoint;
  weightsKg: number[];
  hasCustoms: boolean;
  hasDangerousGoods: boolean;
}

/** Where each shipment-level rule points in the request body (they differ between normal and inline bookings). */
export interface DraftFields {
  service: string;
  receiver: string;
  /** The field that chose PUDO or home delivery. */
  delivery: string;
  parcel(index: number): string;
  customs: string;
  dangerousGoods: string;
}

/**
 * The shipment-level rules: delivery type (a PUDO receiver only for services delivering to
 * PUDO points, of the service's carrier; an address receiver not for PUDO-only services),
 * route served by the service, customs on dutiable routes, parcel weight within the service's
 * limit, dangerous goods only with carriers that carry them. Returns the matched route entry.
 * @example checkShipment(catalogue, draft, fields).dutiable // true for DE → CH
 */
export function checkShipment(catalogue: Catalogue, draft: ShipmentDraft, fields: DraftFields): ServiceRouteEntry {
  const { service, carrier, sender, receiver, receiverPudo } = draft;
  const code = service.view.code;
  if (receiverPudo && service.view.deliveryType === 'HOME') {
    throw ruleViolation(fields.delivery, `${code} delivers to home addresses only; it cannot deliver to a PUDO Point`);
  }
  if (!receiverPudo && service.view.deliveryType === 'PUDO') {
    throw ruleViolation(fields.delivery, `${code} delivers to PUDO Points only; name a PUDO Point as the receiver`);
  }
  if (receiverPudo && receiverPudo.carrierId !== carrier.id) {
    throw ruleViolation(fields.receiver, `PUDO Point ${receiverPudo.id} belongs to another carrier's network, not ${carrier.name}'s`);
  }
  const route = catalogue.route(service.view.id, sender.countryCode, receiver.countryCode);
  if (!route) {
    throw ruleViolation(fields.service, `${code} does not serve the route ${sender.countryCode} → ${receiver.countryCode} (see GET /v1/services/${service.view.id})`);
  }
  if (route.dutiable && !draft.hasCustoms) {
    throw ruleViolation(fields.customs, `the route ${sender.countryCode} → ${receiver.countryCode} crosses a customs border: a Customs Declaration is required`);
  }
  draft.weightsKg.forEach((kg, index) => {
    if (kg > service.view.maxWeightKg) {
      throw ruleViolation(fields.parcel(index), `weighs ${round(kg)} kg, over the ${service.view.maxWeightKg} kg limit of ${code}`);
    }
  });
  if (draft.hasDangerousGoods && !carrier.capabilities.includes('DANGEROUS_GOODS')) {
    throw ruleViolation(fields.dangerousGoods, `${carrier.name} does not carry dangerous goods`);
  }
  return route;
}

const round = (kg: number) => Math.round(kg * 1000) / 1000;

/** A booking request with every reference resolved and every rule checked. */
export interface ResolvedBooking {
  input: ShipmentBookingInput;
  serviceDefinition: ServiceDefinition;
  carrierDefinition: CarrierDefinition;
  channel: ShipmentChannel;
  parcels: Parcel[];
  customs?: CustomsDeclaration;
  dangerousGoods: DangerousGoodsDeclaration[];
  draft: ShipmentDraft;
  route: ServiceRouteEntry;
}

/**
 * @example
 * const rules = createBookingRules(deps);
 * const resolved = rules.resolve(accountId, body); // throws the first 400 rule-violation
 */
export function createBookingRules(deps: BookingRuleDeps) {
  const { catalogue } = deps;

  /** The Service Definition a body names, active, with its Carrier Definition and catalogue entries. */
  function resolveService(accountId: string, serviceDefinitionId: string, field: string) {
    const serviceDefinition = deps.serviceDefinitions.find(accountId, serviceDefinitionId);
    if (!serviceDefinition) throw ruleViolation(field, `${serviceDefinitionId} is not a Service Definition of this account`);
    if (!serviceDefinition.active) throw ruleViolation(field, `Service Definition ${serviceDefinitionId} is not active`);
    const carrierDefinition = deps.carrierDefinitions.find(accountId, serviceDefinition.carrierDefinitionId);
    const service = catalogue.service(serviceDefinition.serviceId);
    const carrier = carrierDefinition && catalogue.carrier(carrierDefinition.carrierId)?.view;
    if (!carrierDefinition || !service || !carrier) {
      throw ruleViolation(field, `Service Definition ${serviceDefinitionId} has no usable Carrier Definition`);
    }
    return { serviceDefinition, carrierDefinition, service, carrier };
  }

  /** Exactly one SENDER and one RECEIVER, other roles at most once, PUDO only as RECEIVER; ids resolved. */
  function resolveParties(accountId: string, parties: Party[]) {
    for (const role of ['SENDER', 'RECEIVER'] as const) {
      const count = parties.filter((p) => p.role === role).length;
      if (count !== 1) throw ruleViolation('body/parties', `a booking needs exactly one ${role} party (found ${count})`);
    }
    const seen = new Set<string>();
    let sender: DocumentParty | undefined;
    let receiver: { party: DocumentParty; pudo?: PudoPoint; index: number } | undefined;
    parties.forEach((party, index) => {
      const at = `body/parties/${index}`;
      if (seen.has(party.role)) throw ruleViolation(`${at}/role`, `a booking has at most one ${party.role} party`);
      seen.add(party.role);
      if (party.entityType === 'PUDO') {
        if (party.role !== 'RECEIVER') throw ruleViolation(`${at}/entityType`, `only the RECEIVER can be a PUDO Point, not the ${party.role}`);
        const point = deps.pudoPoints.find(party.id);
        if (!point) throw ruleViolation(`${at}/id`, `PUDO Point ${party.id} does not exist; query PUDO points first`);
        receiver = { party: partyOfPudoPoint(point), pudo: point, index };
        return;
      }
      const address = deps.addresses.find(accountId, party.id);
      if (!address) throw ruleViolation(`${at}/id`, `Address ${party.id} does not exist in this account`);
      if (party.role === 'SENDER') sender = partyOfAddress(address);
      if (party.role === 'RECEIVER') receiver = { party: partyOfAddress(address), index };
    });
    return { sender: sender!, receiver: receiver! };
  }

  return {
    resolveService,

    /** Resolves every reference of a booking request and checks every rule; throws the first 400. */
    resolve(accountId: string, input: ShipmentBookingInput): ResolvedBooking {
      const { serviceDefinition, carrierDefinition, service, carrier } = resolveService(accountId, input.serviceDefinitionId, 'body/serviceDefinitionId');
      const channel = deps.shipmentChannels.find(accountId, input.shipmentChannelId);
      if (!channel) throw ruleViolation('body/shipmentChannelId', `${input.shipmentChannelId} is not a Shipment Channel of this account`);
      const { sender, receiver } = resolveParties(accountId, input.parties);
      const parcels = input.parcelIds.map((id, i) => deps.parcels.assertBookable(accountId, id, `body/parcelIds/${i}`));
      const customs = input.customsDeclarationId
        ? deps.customsDeclarations.assertUsable(accountId, input.customsDeclarationId, 'body/customsDeclarationId')
        : undefined;
      const dangerousGoods = (input.dangerousGoodsDeclarationIds ?? []).map((id, i) => {
        const field = `body/dangerousGoodsDeclarationIds/${i}`;
        const declaration = deps.dangerousGoodsDeclarations.assertUsable(accountId, id, field);
        if (declaration.parcelId && !input.parcelIds.includes(declaration.parcelId)) {
          throw ruleViolation(field, `declares goods in Parcel ${declaration.parcelId}, which is not one of this booking's parcelIds`);
        }
        return declaration;
      });
      const draft: ShipmentDraft = {
        service,
        carrier,
        sender,
        receiver: receiver.party,
        receiverPudo: receiver.pudo,
        weightsKg: parcels.map(weightKgOf),
        hasCustoms: customs !== undefined,
        hasDangerousGoods: dangerousGoods.length > 0,
      };
      const route = checkShipment(catalogue, draft, {
        service: 'body/serviceDefinitionId',
        receiver: `body/parties/${receiver.index}/id`,
        delivery: `body/parties/${receiver.index}/entityType`,
        parcel: (i) => `body/parcelIds/${i}`,
        customs: 'body/customsDeclarationId',
        dangerousGoods: 'body/dangerousGoodsDeclarationIds',
      });
      if (input.shippingQuoteId) {
        const { quote } = deps.shippingQuotes.assertUsable(accountId, input.shippingQuoteId, 'body/shippingQuoteId');
        if (quote.serviceDefinitionId !== serviceDefinition.id) {
          throw ruleViolation('body/shippingQuoteId', `Shipping Quote ${quote.id} quotes Service Definition ${quote.serviceDefinitionId}, not ${serviceDefinition.id}`);
        }
      }
      return { input, serviceDefinition, carrierDefinition, channel, parcels, customs, dangerousGoods, draft, route };
    },
  };
}

export type BookingRules = ReturnType<typeof createBookingRules>;
