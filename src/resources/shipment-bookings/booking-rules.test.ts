import { describe, expect, it } from 'vitest';
import { catalogueIds, loadCatalogue } from '../../carrier-catalogue/load-catalogue.js';
import { ProblemError } from '../../errors/problem.js';
import type { PudoPoint } from '../pudo-points/model.js';
import { checkShipment, weightKgOf, type DraftFields, type ShipmentDraft } from './booking-rules.js';

const catalogue = loadCatalogue();
const fields: DraftFields = {
  service: 'body/serviceDefinitionId',
  receiver: 'body/receiver',
  delivery: 'body/receiver/type',
  parcel: (index) => `body/parcelIds/${index}`,
  customs: 'body/customsDeclarationId',
  dangerousGoods: 'body/dangerousGoodsDeclarationIds',
};
const party = (countryCode: string) => ({ name: 'Erika Mustermann', street: 'Hauptstrasse 5', postalCode: '10115', city: 'Berlin', countryCode });

/** A draft for a catalogue service (carrier code, service code) from Germany to `to`; `overrides` change one fact. */
function draft(carrierCode: string, serviceCode: string, to: string, overrides: Partial<ShipmentDraft> = {}): ShipmentDraft {
  const service = catalogue.service(catalogueIds.service(carrierCode, serviceCode))!;
  const carrier = catalogue.carrier(catalogueIds.carrier(carrierCode))!.view;
  return { service, carrier, sender: party('DE'), receiver: party(to), weightsKg: [2], hasCustoms: false, hasDangerousGoods: false, ...overrides };
}

const pudoOf = (carrierCode: string) => ({ id: 'pudo-1', carrierId: catalogueIds.carrier(carrierCode) }) as PudoPoint;

/** The field and message of the rule-violation a draft breaks. */
function refusal(shipment: ShipmentDraft): { field: string; message: string } {
  try {
    checkShipment(catalogue, shipment, fields);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).slug).toBe('rule-violation');
    return (error as ProblemError).init.violations![0];
  }
  throw new Error('the draft passed');
}

describe('booking rules: checkShipment', () => {
  it('passes a domestic home delivery within the weight limit and returns its route', () => {
    expect(checkShipment(catalogue, draft('DHL_PARCEL', 'DHL_PAKET', 'DE'), fields)).toMatchObject({ dutiable: false });
  });

  it('refuses a PUDO receiver for a home-only service, and a home receiver for a PUDO-only one', () => {
    expect(refusal(draft('DHL_PARCEL', 'DHL_WARENPOST', 'DE', { receiverPudo: pudoOf('DHL_PARCEL') }))).toEqual({ field: 'body/receiver/type', message: 'DHL_WARENPOST delivers to home addresses only; it cannot deliver to a PUDO Point' });
    expect(refusal(draft('DPD', 'DPD_SHOP_DELIVERY', 'DE'))).toEqual({ field: 'body/receiver/type', message: 'DPD_SHOP_DELIVERY delivers to PUDO Points only; name a PUDO Point as the receiver' });
  });

  it("refuses a PUDO Point of another carrier's network", () => {
    expect(refusal(draft('DHL_PARCEL', 'DHL_PAKET', 'DE', { receiverPudo: pudoOf('DPD') })).field).toBe('body/receiver');
  });

  it('refuses a route the service does not serve, naming the service to look up', () => {
    const { field, message } = refusal(draft('DHL_PARCEL', 'DHL_PAKET', 'FR'));
    expect(field).toBe('body/serviceDefinitionId');
    expect(message).toMatch(/^DHL_PAKET does not serve the route DE → FR \(see GET \/v1\/services\/.+\)$/);
  });

  it('asks for customs on a route across a customs border, and passes it with a declaration', () => {
    expect(refusal(draft('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL', 'CH')).field).toBe('body/customsDeclarationId');
    expect(checkShipment(catalogue, draft('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL', 'CH', { hasCustoms: true }), fields)).toMatchObject({ dutiable: true });
  });

  it('refuses the first parcel over the service weight limit, naming it', () => {
    expect(refusal(draft('DHL_PARCEL', 'DHL_WARENPOST', 'DE', { weightsKg: [0.5, 1.0004, 3] }))).toEqual({ field: 'body/parcelIds/1', message: 'weighs 1 kg, over the 1 kg limit of DHL_WARENPOST' });
  });

  it('refuses dangerous goods with a carrier that does not carry them, and passes them with one that does', () => {
    expect(refusal(draft('DHL_PARCEL', 'DHL_PAKET', 'DE', { hasDangerousGoods: true })).message).toMatch(/does not carry dangerous goods$/);
    expect(() => checkShipment(catalogue, draft('UPS', 'UPS_STANDARD', 'DE', { hasDangerousGoods: true }), fields)).not.toThrow();
  });

  it('counts a parcel in pounds as kilograms', () => {
    expect(weightKgOf({ weight: 11, weightUnit: 'LB' })).toBeCloseTo(4.9895, 4);
    expect(weightKgOf({ weight: 11 })).toBe(11);
  });
});
