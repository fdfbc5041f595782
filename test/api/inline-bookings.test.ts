import { describe, expect, it } from 'vitest';
import { carrierOutage } from '../../src/carriers/faults.js';
import { createHarness, newAccount, twoAccounts, type Harness, type TestAccount } from '../support/harness.js';
import { book, carriers, createChannel, customsBody, defineService, isCarrierNumber, parcelTokens, pdfText, download, pudoPoints, zurich } from '../support/booking-fixtures.js';
import { berlin, captureEvents, munich } from '../support/shipping-fixtures.js';

const INLINE = '/v1/shipment-bookings/inline';
const unknown = '00000000-0000-4000-8000-000000000000';

/** How many resources of each kind the account has (all or nothing means these do not move). */
async function inventory(h: Harness, account: TestAccount) {
  const count = async (path: string) => (await h.http.get(`${path}?limit=100`).set('Authorization', account.auth)).body.items.length;
  return {
    addresses: await count('/v1/addresses'),
    parcels: await count('/v1/parcels'),
    customs: await count('/v1/customs-declarations'),
    carrierDefinitions: await count('/v1/carrier-definitions'),
    serviceDefinitions: await count('/v1/service-definitions'),
    channels: await count('/v1/shipment-channels'),
    bookings: await count('/v1/shipment-bookings'),
    documents: await count('/v1/documents'),
  };
}

const embedded = (overrides: Record<string, unknown> = {}) => ({
  carrierDefinition: { carrierId: carriers.dhl, name: 'DHL via inline' },
  serviceDefinition: { serviceId: carriers.dhlPaket, name: 'DHL Paket' },
  sender: berlin,
  receiver: munich,
  parcels: [{ weight: 2.5 }, { weight: 1, weightUnit: 'LB', reference: 'small' }],
  reference: 'ORDER-INLINE',
  ...overrides,
});

describe('inline shipment bookings', () => {
  it('creates the embedded definitions, a Default channel, addresses and parcels as real resources, and books them', async () => {
    const h = createHarness();
    const events = captureEvents(h);
    const a = await newAccount(h);
    const booking = await book(h, a, embedded(), INLINE);
    expect(booking).toMatchObject({ status: 'BOOKED', mode: 'STAGING', carrierId: carriers.dhl, serviceId: carriers.dhlPaket, reference: 'ORDER-INLINE' });
    expect(booking.trackingNumbers.every((n: string) => isCarrierNumber(carriers.dhlPaket, n, 'STAGING'))).toBe(true);

    const definition = await h.http.get(`/v1/carrier-definitions/${booking.carrierDefinitionId}`).set('Authorization', a.auth);
    expect(definition.body).toMatchObject({ carrierId: carriers.dhl, name: 'DHL via inline', mode: 'STAGING' });
    const service = await h.http.get(`/v1/service-definitions/${booking.serviceDefinitionId}`).set('Authorization', a.auth);
    expect(service.body).toMatchObject({ carrierDefinitionId: booking.carrierDefinitionId, serviceId: carriers.dhlPaket, name: 'DHL Paket' });
    const channel = await h.http.get(`/v1/shipment-channels/${booking.shipmentChannelId}`).set('Authorization', a.auth);
    expect(channel.body).toMatchObject({ name: 'Default', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } });
    const [sender, receiver] = booking.parties;
    expect((await h.http.get(`/v1/addresses/${sender.id}`).set('Authorization', a.auth)).body).toMatchObject(berlin);
    expect((await h.http.get(`/v1/addresses/${receiver.id}`).set('Authorization', a.auth)).body).toMatchObject(munich);
    const parcel = await h.http.get(`/v1/parcels/${booking.parcels[1].parcelId}`).set('Authorization', a.auth);
    expect(parcel.body).toMatchObject({ weight: 1, weightUnit: 'LB', reference: 'small', shipmentBookingId: booking.id, trackingNumber: booking.trackingNumbers[1] });

    expect(await parcelTokens(h, a)).toBe(2);
    const created = (topic: string) => events.filter((e) => e.topic === topic && e.type === 'CREATED').length;
    expect([created('CARRIER_DEFINITION'), created('SERVICE_DEFINITION'), created('SHIPMENT_CHANNEL'), created('ADDRESS'), created('PARCEL'), created('SHIPMENT_BOOKING')]).toEqual([1, 1, 1, 2, 2, 1]);
    const text = await pdfText((await download(h, a, booking.documentIds[0])).bytes);
    expect(text).toContain(booking.trackingNumbers[0]);
  });

  it('books through an existing Service Definition (which wins over embedded ones) and the oldest channel', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const { serviceDefinitionId } = await defineService(h, a);
    const oldest = await createChannel(h, a, 'ZPL');
    await createChannel(h, a, 'PNG');
    const before = await inventory(h, a);
    const booking = await book(h, a, embedded({ serviceDefinitionId }), INLINE);
    expect(booking).toMatchObject({ serviceDefinitionId, shipmentChannelId: oldest });
    const after = await inventory(h, a);
    expect(after).toMatchObject({ carrierDefinitions: before.carrierDefinitions, serviceDefinitions: before.serviceDefinitions, channels: before.channels, addresses: before.addresses + 2 });
    const label = await h.http.get(`/v1/documents/${booking.documentIds[0]}`).set('Authorization', a.auth);
    expect(label.body.contentType).toBe('ZPL');

    const chosen = await createChannel(h, a, 'PNG');
    const withChannel = await book(h, a, embedded({ serviceDefinitionId, shipmentChannelId: chosen }), INLINE);
    expect(withChannel.shipmentChannelId).toBe(chosen);
  });

  it('books a PRODUCTION embedded definition over the carrier network', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const booking = await book(h, a, embedded({ carrierDefinition: { carrierId: carriers.dhl, name: 'live', mode: 'PRODUCTION' } }), INLINE);
    expect(booking.mode).toBe('PRODUCTION');
    expect(isCarrierNumber(carriers.dhlPaket, booking.trackingNumbers[0], 'PRODUCTION')).toBe(true);
    expect(h.carriers.calls().filter((c) => c.operation === 'BOOK')).toHaveLength(1);
  });

  it('delivers to a PUDO point given by receiverPudoPointId', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const [point] = await pudoPoints(h, a, carriers.dhl);
    const { receiver: _receiver, ...body } = embedded();
    const booking = await book(h, a, { ...body, receiverPudoPointId: point.id }, INLINE);
    expect(booking.parties).toEqual([expect.objectContaining({ role: 'SENDER', entityType: 'ADDRESS' }), { role: 'RECEIVER', entityType: 'PUDO', id: point.id }]);
  });

  it('creates the embedded customs declaration on a dutiable route and renders its form', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const booking = await book(
      h,
      a,
      embedded({ serviceDefinition: { serviceId: carriers.dhlInternational, name: 'Intl' }, receiver: zurich, customsDeclaration: customsBody }),
      INLINE,
    );
    expect(booking.customsDeclarationId).toEqual(expect.any(String));
    expect((await h.http.get(`/v1/customs-declarations/${booking.customsDeclarationId}`).set('Authorization', a.auth)).body).toMatchObject({ currency: 'EUR' });
    const forms = await h.http.get(`/v1/documents?group_id=${booking.id}&type=CUSTOMS`).set('Authorization', a.auth);
    expect(forms.body.items).toHaveLength(1);
  });

  describe('all or nothing: a refused inline booking creates nothing (400 naming the field, no event)', () => {
    const { receiver: _receiver, ...noReceiver } = embedded();
    const cases: [string, Record<string, unknown>, string, string?][] = [
      ['neither serviceDefinitionId nor embedded definitions', { sender: berlin, receiver: munich, parcels: [{ weight: 1 }] }, 'body/serviceDefinitionId'],
      ['an unknown serviceDefinitionId', embedded({ serviceDefinitionId: unknown }), 'body/serviceDefinitionId'],
      ['carrierDefinition without serviceDefinition (schema)', { ...embedded(), serviceDefinition: undefined }, 'body', 'validation-error'],
      ['an unknown carrier', embedded({ carrierDefinition: { carrierId: unknown, name: 'x' } }), 'body/carrierDefinition/carrierId'],
      ['a service of another carrier', embedded({ serviceDefinition: { serviceId: carriers.upsStandard, name: 'x' } }), 'body/serviceDefinition/serviceId'],
      ['duplicate setting keys', embedded({ carrierDefinition: { carrierId: carriers.dhl, name: 'x', settings: [{ key: 'k', value: '1' }, { key: 'k', value: '2' }] } }), 'body/carrierDefinition/settings/1/key'],
      ['both receiver and receiverPudoPointId', embedded({ receiverPudoPointId: unknown }), 'body/receiverPudoPointId'],
      ['neither receiver nor receiverPudoPointId', noReceiver, 'body/receiver'],
      ['an unknown PUDO point', { ...noReceiver, receiverPudoPointId: unknown }, 'body/receiverPudoPointId'],
      ['an unknown shipment channel', embedded({ shipmentChannelId: unknown }), 'body/shipmentChannelId'],
      ['an unknown packing type', embedded({ parcels: [{ weight: 1 }, { weight: 1, packingTypeId: unknown }] }), 'body/parcels/1/packingTypeId'],
      ['a parcel over the weight limit', embedded({ parcels: [{ weight: 40 }] }), 'body/parcels/0/weight'],
      ['a route the service does not serve', embedded({ receiver: { ...munich, countryCode: 'AT', postalCode: '1010', city: 'Wien' } }), 'body/serviceDefinition/serviceId'],
      ['a dutiable route without customs', embedded({ serviceDefinition: { serviceId: carriers.dhlInternational, name: 'Intl' }, receiver: zurich }), 'body/customsDeclaration'],
      ['an unknown customs declaration type', embedded({ serviceDefinition: { serviceId: carriers.dhlInternational, name: 'Intl' }, receiver: zurich, customsDeclaration: { ...customsBody, types: [unknown] } }), 'body/customsDeclaration/types/0'],
      ['an address receiver for a PUDO-only service', embedded({ carrierDefinition: { carrierId: carriers.dpd, name: 'DPD' }, serviceDefinition: { serviceId: carriers.dpdShop, name: 'Shop' } }), 'body/receiver'],
    ];
    it.each(cases)('%s', async (_name, body, field, slug = 'rule-violation') => {
      const h = createHarness();
      const a = await newAccount(h);
      const events = captureEvents(h);
      const before = await inventory(h, a);
      const res = await h.http.post(INLINE).set('Authorization', a.auth).send(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
      expect(events).toEqual([]);
      expect(await inventory(h, a)).toEqual(before);
    });
  });

  it('creates nothing when the PRODUCTION carrier is down (500 carrier-unavailable)', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    h.carriers.intercept(carrierOutage({ carrierCode: 'DHL_PARCEL' }));
    const events = captureEvents(h);
    const before = await inventory(h, a);
    const res = await h.http.post(INLINE).set('Authorization', a.auth).send(embedded({ carrierDefinition: { carrierId: carriers.dhl, name: 'live', mode: 'PRODUCTION' } }));
    expect(res.status).toBe(500);
    expect(res.body.type).toBe('https://shipmock.dev/problems/carrier-unavailable');
    expect(events).toEqual([]);
    expect(await inventory(h, a)).toEqual(before);
    expect(await parcelTokens(h, a)).toBe(0);
  });

  it("refuses another account's service definition and channel (400), never revealing them", async () => {
    const h = createHarness();
    const { a, b } = await twoAccounts(h, ['Warehouse Berlin', 'B']);
    const { serviceDefinitionId } = await defineService(h, a);
    const channel = await createChannel(h, a);
    const asB = await h.http.post(INLINE).set('Authorization', b.auth).send(embedded({ serviceDefinitionId }));
    expect(asB.status).toBe(400);
    expect(asB.body.properties.violations[0].field).toBe('body/serviceDefinitionId');
    const channelAsB = await h.http.post(INLINE).set('Authorization', b.auth).send(embedded({ shipmentChannelId: channel }));
    expect(channelAsB.body.properties.violations[0].field).toBe('body/shipmentChannelId');
    const mine = await book(h, a, embedded({ serviceDefinitionId }), INLINE);
    expect((await h.http.get(`/v1/shipment-bookings/${mine.id}`).set('Authorization', b.auth)).status).toBe(404);
  });
});
