import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { carrierLatency, carrierOutage, carrierRejection, carrierTimeout } from '../../src/carriers/faults.js';
import { createHarness, newAccount, type Harness, suiteAccounts } from '../support/harness.js';
import { book, bookingKit, carriers, customsBody, dgBody, download, isCarrierNumber, parcelTokens, parties, paris, pdfText, pudoPoints, zurich, type BookingKit } from '../support/booking-fixtures.js';
import { berlin, captureEvents, createVia, renewToken, schemaErrors, vienna } from '../support/shipping-fixtures.js';

const PROBLEM = 'https://shipmock.dev/problems/';
const DAY = 24 * 3_600_000;

describe('shipment bookings', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);
  let staging: BookingKit;
  let production: BookingKit;
  const removers: (() => void)[] = [];
  beforeAll(async () => {
    staging = await bookingKit(h, a);
    production = await bookingKit(h, a, { mode: 'PRODUCTION' });
  });
  afterEach(() => {
    while (removers.length) removers.pop()!();
  });
  const bookCalls = () => h.carriers.calls().filter((c) => c.operation === 'BOOK');

  it('books in STAGING: test tracking numbers of the serial type, SPECIMEN labels, no carrier network call', async () => {
    const before = bookCalls().length;
    const parcelIds = await staging.parcels(2);
    const booking = await book(h, a, staging.body(parcelIds, { shipDate: '2026-01-02' }));

    expect(booking).toMatchObject({
      status: 'BOOKED',
      mode: 'STAGING',
      carrierId: carriers.dhl,
      serviceId: carriers.dhlPaket,
      carrierDefinitionId: staging.carrierDefinitionId,
      serviceDefinitionId: staging.serviceDefinitionId,
      shipmentChannelId: staging.channelId,
      reference: 'ORDER-1',
      shipDate: '2026-01-02',
    });
    expect(booking.parcels.map((p: { parcelId: string }) => p.parcelId)).toEqual(parcelIds);
    expect(booking.trackingNumbers).toHaveLength(2);
    expect(new Set(booking.trackingNumbers).size).toBe(2);
    for (const number of booking.trackingNumbers) expect(isCarrierNumber(carriers.dhlPaket, number, 'STAGING'), number).toBe(true);
    expect(booking.documentIds).toEqual(booking.parcels.map((p: { labelDocumentId: string }) => p.labelDocumentId));
    expect(booking.trackerIds).toHaveLength(2);
    expect(bookCalls().length).toBe(before);

    const label = await h.http.get(`/v1/documents/${booking.parcels[1].labelDocumentId}`).set('Authorization', a.auth);
    expect(label.body).toMatchObject({ type: 'LABEL', groupId: booking.id, groupType: 'SHIPMENT_BOOKING', contentType: 'PDF', specimen: true, trackingNumber: booking.trackingNumbers[1], parcelId: parcelIds[1] });
    const pdf = await download(h, a, booking.parcels[1].labelDocumentId);
    expect(pdf.contentType).toBe('application/pdf');
    const text = await pdfText(pdf.bytes);
    expect(text).toContain(booking.trackingNumbers[1]);
    expect(text).toContain('SPECIMEN');
    expect(text).toContain('Parcel 2 of 2');

    for (const [i, parcelId] of parcelIds.entries()) {
      const parcel = await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth);
      expect(parcel.body).toMatchObject({ shipmentBookingId: booking.id, trackingNumber: booking.trackingNumbers[i] });
    }
  });

  it('books in PRODUCTION through the simulated carrier network: live numbers, no SPECIMEN', async () => {
    const before = bookCalls().length;
    const [parcelId] = await production.parcels(1);
    const booking = await book(h, a, production.body([parcelId]));
    expect(booking).toMatchObject({ status: 'BOOKED', mode: 'PRODUCTION', carrierDefinitionId: production.carrierDefinitionId });
    expect(isCarrierNumber(carriers.dhlPaket, booking.trackingNumbers[0], 'PRODUCTION')).toBe(true);
    const calls = bookCalls().slice(before);
    expect(calls).toEqual([expect.objectContaining({ operation: 'BOOK', carrierDefinitionId: production.carrierDefinitionId, accountId: a.accountId, outcome: 'OK' })]);

    const label = await h.http.get(`/v1/documents/${booking.documentIds[0]}`).set('Authorization', a.auth);
    expect(label.body.specimen).toBe(false);
    const text = await pdfText((await download(h, a, booking.documentIds[0])).bytes);
    expect(text).toContain(booking.trackingNumbers[0]);
    expect(text).not.toContain('SPECIMEN');
  });

  it('uses the mode the Carrier Definition has at booking time', async () => {
    const kit = await bookingKit(h, a);
    const first = await book(h, a, kit.body(await kit.parcels(1)));
    const definition = await h.http.get(`/v1/carrier-definitions/${kit.carrierDefinitionId}`).set('Authorization', a.auth);
    const { id: _id, createdAt: _c, updatedAt: _u, ...request } = definition.body;
    expect((await h.http.put(`/v1/carrier-definitions/${kit.carrierDefinitionId}`).set('Authorization', a.auth).send({ ...request, mode: 'PRODUCTION' })).status).toBe(204);
    const second = await book(h, a, kit.body(await kit.parcels(1)));
    expect([first.mode, second.mode]).toEqual(['STAGING', 'PRODUCTION']);
    expect((await h.http.get(`/v1/shipment-bookings/${first.id}`).set('Authorization', a.auth)).body.mode).toBe('STAGING');
  });

  it.each([
    ['PNG', 'image/png', (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
    ['ZPL', 'application/x-zpl', (bytes: Buffer) => bytes.toString('latin1').startsWith('^XA')],
  ] as const)('renders %s labels when the shipment channel asks for them', async (format, mediaType, looksRight) => {
    const kit = await bookingKit(h, a, { labelFormat: format });
    const booking = await book(h, a, kit.body(await kit.parcels(1)));
    const label = await h.http.get(`/v1/documents/${booking.documentIds[0]}`).set('Authorization', a.auth);
    expect(label.body).toMatchObject({ type: 'LABEL', contentType: format, mediaType, fileName: `label-${booking.trackingNumbers[0]}.${format.toLowerCase()}` });
    const data = await download(h, a, booking.documentIds[0]);
    expect(data.contentType).toBe(mediaType);
    expect(looksRight(data.bytes)).toBe(true);
    if (format === 'ZPL') expect(data.bytes.toString('latin1')).toContain(booking.trackingNumbers[0]);
  });

  it('requires a customs declaration on a dutiable route and then adds a CUSTOMS form; the declaration is frozen', async () => {
    const kit = await bookingKit(h, a, { serviceId: carriers.dhlInternational, receiver: zurich });
    const parcelIds = await kit.parcels(1);
    const refused = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(kit.body(parcelIds));
    expect(refused.status).toBe(400);
    expect(refused.body.properties.violations).toEqual([{ field: 'body/customsDeclarationId', message: expect.stringContaining('DE → CH') }]);

    const customsDeclarationId = await createVia(h, a, '/v1/customs-declarations', customsBody);
    const booking = await book(h, a, kit.body(parcelIds, { customsDeclarationId }));
    expect(booking.customsDeclarationId).toBe(customsDeclarationId);
    expect(booking.documentIds).toHaveLength(2);
    const customs = await h.http.get(`/v1/documents?group_id=${booking.id}&type=CUSTOMS`).set('Authorization', a.auth);
    expect(customs.body.items).toEqual([expect.objectContaining({ id: booking.documentIds[1], contentType: 'PDF', specimen: true })]);
    const text = await pdfText((await download(h, a, booking.documentIds[1])).bytes);
    expect(text).toContain(booking.trackingNumbers[0]);
    expect(text).toMatch(/CN ?23/);

    const frozen = await h.http.put(`/v1/customs-declarations/${customsDeclarationId}`).set('Authorization', a.auth).send({ ...customsBody, currency: 'CHF' });
    expect(frozen.status).toBe(400);
  });

  it('adds a DANGEROUS_GOODS form for a carrier that carries dangerous goods, and refuses one that does not', async () => {
    const express = await bookingKit(h, a, { carrierId: carriers.dhlExpress, serviceId: carriers.dhlExpressWorldwide, receiver: paris });
    const [parcelId] = await express.parcels(1);
    const dgId = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody(parcelId));
    const booking = await book(h, a, express.body([parcelId], { dangerousGoodsDeclarationIds: [dgId] }));
    const dg = await h.http.get(`/v1/documents?group_id=${booking.id}&type=DANGEROUS_GOODS`).set('Authorization', a.auth);
    expect(dg.body.items).toHaveLength(1);
    const text = await pdfText((await download(h, a, dg.body.items[0].id)).bytes);
    expect(text).toContain('UN3481');
    expect((await h.http.delete(`/v1/dangerous-goods-declarations/${dgId}`).set('Authorization', a.auth)).status).toBe(400);

    const [other] = await staging.parcels(1);
    const otherDg = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody(other));
    const refused = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(staging.body([other], { dangerousGoodsDeclarationIds: [otherDg] }));
    expect(refused.status).toBe(400);
    expect(refused.body.properties.violations[0].field).toBe('body/dangerousGoodsDeclarationIds');
  });

  it('delivers to a PUDO point of its carrier when the service does, and says so on the label', async () => {
    const [point] = await pudoPoints(h, a, carriers.dhl);
    const [parcelId] = await staging.parcels(1);
    const booking = await book(h, a, staging.body([parcelId], { parties: parties(staging.senderId, point.id, 'PUDO') }));
    expect(booking.parties[1]).toEqual({ role: 'RECEIVER', entityType: 'PUDO', id: point.id });
    const text = await pdfText((await download(h, a, booking.documentIds[0])).bytes);
    expect(text).toContain(point.address.postalCode);
  });

  describe('refuses a booking that breaks a rule: 400 naming the field, nothing stored, nothing billed', () => {
    let fixtures: Record<string, string>;
    beforeAll(async () => {
      const [booked] = await staging.parcels(1);
      await book(h, a, staging.body([booked]));
      const [dpdPoint] = await pudoPoints(h, a, carriers.dpd);
      const [dhlPoint] = await pudoPoints(h, a, carriers.dhl);
      const international = await bookingKit(h, a, { serviceId: carriers.dhlInternational, receiver: zurich });
      const shop = await bookingKit(h, a, { carrierId: carriers.dpd, serviceId: carriers.dpdShop });
      const inactive = await createVia(h, a, '/v1/service-definitions', {
        carrierDefinitionId: (await createVia(h, a, '/v1/carrier-definitions', { carrierId: carriers.ups, name: 'UPS off' })),
        serviceId: carriers.upsStandard,
        name: 'off',
        active: false,
      });
      const [p1] = await staging.parcels(1);
      fixtures = {
        booked,
        dpdPoint: dpdPoint.id,
        dhlPoint: dhlPoint.id,
        internationalSd: international.serviceDefinitionId,
        shopSd: shop.serviceDefinitionId,
        inactive,
        heavy: (await staging.parcels(1, { weight: 40 }))[0],
        dgOther: await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody(p1)),
        vienna: await createVia(h, a, '/v1/addresses', vienna),
        foreignParcel: (await createVia(h, b, '/v1/parcels', { weight: 1 })),
        foreignAddress: await createVia(h, b, '/v1/addresses', berlin),
      };
    });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const cases: [string, (kit: BookingKit, parcel: string, f: Record<string, string>) => Record<string, unknown>, string, string?][] = [
      ['unknown service definition', (k, p) => k.body([p], { serviceDefinitionId: unknown }), 'body/serviceDefinitionId'],
      ['inactive service definition', (k, p, f) => k.body([p], { serviceDefinitionId: f.inactive }), 'body/serviceDefinitionId'],
      ['unknown shipment channel', (k, p) => k.body([p], { shipmentChannelId: unknown }), 'body/shipmentChannelId'],
      ['two senders', (k, p) => k.body([p], { parties: [...parties(k.senderId, k.receiverId), { role: 'SENDER', entityType: 'ADDRESS', id: k.senderId }] }), 'body/parties'],
      ['no receiver', (k, p) => k.body([p], { parties: [{ role: 'SENDER', entityType: 'ADDRESS', id: k.senderId }, { role: 'RETURN', entityType: 'ADDRESS', id: k.senderId }] }), 'body/parties'],
      [
        'a role twice',
        (k, p) => k.body([p], { parties: [...parties(k.senderId, k.receiverId), { role: 'RETURN', entityType: 'ADDRESS', id: k.senderId }, { role: 'RETURN', entityType: 'ADDRESS', id: k.senderId }] }),
        'body/parties/3/role',
      ],
      ['a PUDO sender', (k, p, f) => k.body([p], { parties: [{ role: 'SENDER', entityType: 'PUDO', id: f.dhlPoint }, { role: 'RECEIVER', entityType: 'ADDRESS', id: k.receiverId }] }), 'body/parties/0/entityType'],
      ['an unknown address', (k, p) => k.body([p], { parties: parties(k.senderId, unknown) }), 'body/parties/1/id'],
      ["another account's address", (k, p, f) => k.body([p], { parties: parties(k.senderId, f.foreignAddress) }), 'body/parties/1/id'],
      ['an unknown PUDO point', (k, p) => k.body([p], { parties: parties(k.senderId, unknown, 'PUDO') }), 'body/parties/1/id'],
      ["another carrier's PUDO point", (k, p, f) => k.body([p], { parties: parties(k.senderId, f.dpdPoint, 'PUDO') }), 'body/parties/1/id'],
      ['a PUDO receiver for a home-only service', (k, p, f) => k.body([p], { serviceDefinitionId: f.internationalSd, parties: parties(k.senderId, f.dhlPoint, 'PUDO') }), 'body/parties/1/entityType'],
      ['an address receiver for a PUDO-only service', (k, p, f) => k.body([p], { serviceDefinitionId: f.shopSd }), 'body/parties/1/entityType'],
      ['an unknown parcel', (k) => k.body([unknown]), 'body/parcelIds/0'],
      ["another account's parcel", (k, _p, f) => k.body([f.foreignParcel]), 'body/parcelIds/0'],
      ['an already booked parcel', (k, p, f) => k.body([p, f.booked]), 'body/parcelIds/1'],
      ['a route the service does not serve', (k, p, f) => k.body([p], { parties: parties(k.senderId, f.vienna) }), 'body/serviceDefinitionId'],
      ['a parcel over the weight limit', (k, p, f) => k.body([p, f.heavy]), 'body/parcelIds/1'],
      ['an unknown customs declaration', (k, p) => k.body([p], { customsDeclarationId: unknown }), 'body/customsDeclarationId'],
      ['an unknown dangerous goods declaration', (k, p) => k.body([p], { dangerousGoodsDeclarationIds: [unknown] }), 'body/dangerousGoodsDeclarationIds/0'],
      ["a dangerous goods declaration of another booking's parcel", (k, p, f) => k.body([p], { dangerousGoodsDeclarationIds: [f.dgOther] }), 'body/dangerousGoodsDeclarationIds/0'],
      ['an unknown shipping quote', (k, p) => k.body([p], { shippingQuoteId: unknown }), 'body/shippingQuoteId'],
      ['no parcels (schema)', (k) => k.body([]), 'body/parcelIds', 'validation-error'],
      ['a lowercase role (schema)', (k, p) => k.body([p], { parties: [{ role: 'sender', entityType: 'ADDRESS', id: k.senderId }, parties(k.senderId, k.receiverId)[1]] }), 'body/parties/0/role', 'validation-error'],
    ];
    it.each(cases)('%s', async (_name, bodyOf, field, slug = 'rule-violation') => {
      const [parcelId] = await staging.parcels(1);
      const beforeList = (await h.http.get('/v1/shipment-bookings?limit=100').set('Authorization', a.auth)).body.items.length;
      const beforeTokens = await parcelTokens(h, a);
      const beforeEvents = events.length;
      const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(bodyOf(staging, parcelId, fixtures));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.type).toBe(PROBLEM + slug);
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
      expect((await h.http.get('/v1/shipment-bookings?limit=100').set('Authorization', a.auth)).body.items).toHaveLength(beforeList);
      expect(await parcelTokens(h, a)).toBe(beforeTokens);
      expect(events.slice(beforeEvents)).toEqual([]);
      expect((await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).body).not.toHaveProperty('shipmentBookingId');
    });
  });

  it('takes a valid shipping quote of the same service definition, refuses one of another and an expired one', async () => {
    const h2 = createHarness();
    const x = await newAccount(h2);
    const kit = await bookingKit(h2, x);
    const other = await bookingKit(h2, x, { carrierId: carriers.ups, serviceId: carriers.upsStandard });
    const zone = await createVia(h2, x, '/v1/zones', { name: 'Germany', countryCodes: ['DE'] });
    for (const sd of [kit.serviceDefinitionId, other.serviceDefinitionId]) {
      await createVia(h2, x, '/v1/delivery-options', { name: `Option ${sd.slice(0, 4)}`, serviceDefinitionId: sd, zoneIds: [zone], priceRules: [{ maxWeightKg: 10, price: { amount: 5, currency: 'EUR' } }] });
    }
    const batch = await h2.http.post('/v1/shipping-quotes').set('Authorization', x.auth).send({ senderAddressId: kit.senderId, receiverAddressId: kit.receiverId, parcels: [{ weight: 2.5 }] });
    const quoteOf = (sd: string) => batch.body.quotes.find((q: { serviceDefinitionId: string }) => q.serviceDefinitionId === sd).id;

    const booking = await book(h2, x, kit.body(await kit.parcels(1), { shippingQuoteId: quoteOf(kit.serviceDefinitionId) }));
    expect(booking.shippingQuoteId).toBe(quoteOf(kit.serviceDefinitionId));
    const mismatch = await h2.http.post('/v1/shipment-bookings').set('Authorization', x.auth).send(kit.body(await kit.parcels(1), { shippingQuoteId: quoteOf(other.serviceDefinitionId) }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.properties.violations[0].field).toBe('body/shippingQuoteId');

    h2.clock.advance(DAY);
    // The kit's helpers hold this account object: renew its token in place.
    x.auth = (await renewToken(h2, x)).auth;
    const expired = await h2.http.post('/v1/shipment-bookings').set('Authorization', x.auth).send(kit.body(await kit.parcels(1), { shippingQuoteId: quoteOf(kit.serviceDefinitionId) }));
    expect(expired.status).toBe(400);
    expect(expired.body.type).toBe(`${PROBLEM}quote-expired`);
    expect(expired.body.properties.violations[0].field).toBe('body/shippingQuoteId');
  });

  it('stores a FAILED booking when the PRODUCTION carrier rejects it: 201, reason, nothing booked or billed', async () => {
    removers.push(h.carriers.intercept(carrierRejection('Receiver address not deliverable', { carrierDefinitionId: production.carrierDefinitionId })));
    const tokens = await parcelTokens(h, a);
    const [parcelId] = await production.parcels(1);
    const seen = events.length;
    const booking = await book(h, a, production.body([parcelId]));
    expect(booking).toMatchObject({ status: 'FAILED', mode: 'PRODUCTION', failureReason: 'Receiver address not deliverable', parcels: [{ parcelId }] });
    for (const absent of ['trackingNumbers', 'documentIds', 'trackerIds']) expect(booking).not.toHaveProperty(absent);
    expect(await parcelTokens(h, a)).toBe(tokens);
    expect((await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).body).not.toHaveProperty('shipmentBookingId');
    expect(events.slice(seen).map((e) => `${e.topic} ${e.type}`)).toEqual(['SHIPMENT_BOOKING CREATED']);
    expect((await h.http.get('/v1/shipment-bookings?status=FAILED').set('Authorization', a.auth)).body.items.map((x: { id: string }) => x.id)).toContain(booking.id);

    removers.pop()!();
    const retried = await book(h, a, production.body([parcelId]));
    expect(retried.status).toBe('BOOKED');
  });

  it.each([
    ['outage', carrierOutage],
    ['timeout', carrierTimeout],
  ] as const)('answers a carrier %s with 500 carrier-unavailable and stores nothing; STAGING is unaffected', async (_kind, fault) => {
    removers.push(h.carriers.intercept(fault({ carrierCode: 'DHL_PARCEL' })));
    const tokens = await parcelTokens(h, a);
    const [parcelId] = await production.parcels(1);
    const seen = events.length;
    const before = (await h.http.get('/v1/shipment-bookings?limit=100').set('Authorization', a.auth)).body.items.length;
    const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(production.body([parcelId]));
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: `${PROBLEM}carrier-unavailable`, properties: { carrierCode: 'DHL_PARCEL', retryable: true } });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(events.slice(seen)).toEqual([]);
    expect((await h.http.get('/v1/shipment-bookings?limit=100').set('Authorization', a.auth)).body.items).toHaveLength(before);
    expect(await parcelTokens(h, a)).toBe(tokens);

    const unaffected = await book(h, a, staging.body(await staging.parcels(1)));
    expect(unaffected.status).toBe('BOOKED');
  });

  it('answers the ready carrier-outage scenario with 500 on PRODUCTION bookings only', async () => {
    h.scenarios.activate('carrier-outage', { accountId: a.accountId, params: { carrier: 'DHL_PARCEL' } });
    try {
      const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(production.body(await production.parcels(1)));
      expect(res.status).toBe(500);
      expect(res.body.type).toBe(`${PROBLEM}carrier-unavailable`);
      expect((await book(h, a, staging.body(await staging.parcels(1)))).status).toBe('BOOKED');
      const forB = await bookingKit(h, b, { mode: 'PRODUCTION' });
      expect((await book(h, b, forB.body(await forB.parcels(1)))).status).toBe('BOOKED');
    } finally {
      h.scenarios.deactivate('carrier-outage');
    }
  });

  it('refuses every booking while the label-rendering-failure scenario is active (500, nothing stored)', async () => {
    h.scenarios.activate('label-rendering-failure', { accountId: a.accountId });
    try {
      const [parcelId] = await staging.parcels(1);
      const tokens = await parcelTokens(h, a);
      const seen = events.length;
      const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(staging.body([parcelId]));
      expect(res.status).toBe(500);
      expect(res.body.type).toBe(`${PROBLEM}label-rendering-failed`);
      expect(events.slice(seen)).toEqual([]);
      expect(await parcelTokens(h, a)).toBe(tokens);
      expect((await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).body).not.toHaveProperty('shipmentBookingId');
    } finally {
      h.scenarios.deactivate('label-rendering-failure');
    }
  });

  it('books a parcel once when two requests race while the PRODUCTION carrier is slow', async () => {
    removers.push(h.carriers.intercept(carrierLatency(40, { carrierDefinitionId: production.carrierDefinitionId })));
    const [parcelId] = await production.parcels(1);
    const send = () => h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(production.body([parcelId]));
    const results = await Promise.all([send(), send()]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.status === 400)!.body.properties.violations[0].field).toBe('body/parcelIds/0');
    const bookings = await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth);
    expect(bookings.body.shipmentBookingId).toBe(results.find((r) => r.status === 201)!.body.id);
  });

  it('publishes SHIPMENT_BOOKING CREATED with the spec payload, and DOCUMENT, PARCEL, TRACKER and usage events', async () => {
    const parcelIds = await staging.parcels(2);
    const seen = events.length;
    const booking = await book(h, a, staging.body(parcelIds));
    const mine = events.slice(seen).filter((e) => e.accountId === a.accountId);
    const created = mine.find((e) => e.topic === 'SHIPMENT_BOOKING')!;
    expect(created.type).toBe('CREATED');
    expect(created.payload).toEqual({ shipmentId: booking.id, code: 'CREATED', createdAt: booking.createdAt, updatedAt: booking.updatedAt });
    expect(schemaErrors(h, 'ShipmentBookingEventPayload', created.payload)).toEqual([]);
    const count = (topic: string, type: string) => mine.filter((e) => e.topic === topic && e.type === type).length;
    expect(count('DOCUMENT', 'CREATED')).toBe(2);
    expect(count('PARCEL', 'UPDATED')).toBe(2);
    expect(count('TRACKER', 'CREATED')).toBe(2);
    const usage = mine.filter((e) => e.topic === 'PARCEL' && e.type === 'USAGE');
    expect(usage.map((e) => e.payload)).toEqual([
      { operation: 'CONSUME', topic: 'PARCEL', tokens: 1, reference: booking.id },
      { operation: 'CONSUME', topic: 'PARCEL', tokens: 1, reference: booking.id },
    ]);
  });

  it('bills one CONSUME/PARCEL token per booked parcel, reconciling with the report', async () => {
    const h2 = createHarness();
    const x = await newAccount(h2);
    const kit = await bookingKit(h2, x, { mode: 'PRODUCTION' });
    await book(h2, x, kit.body(await kit.parcels(3)));
    await book(h2, x, kit.body(await kit.parcels(1)));
    const remove = h2.carriers.intercept(carrierRejection('no'));
    await book(h2, x, kit.body(await kit.parcels(2)));
    remove();
    expect(await parcelTokens(h2, x)).toBe(4);
  });

  it('lists with cursors and filters status, tracking_number and reference', async () => {
    const h2 = createHarness();
    const x = await newAccount(h2);
    const kit = await bookingKit(h2, x);
    const made = [];
    for (const reference of ['R-1', 'R-2', 'R-3']) made.push(await book(h2, x, kit.body(await kit.parcels(1), { reference })));
    const first = await h2.http.get('/v1/shipment-bookings?limit=2').set('Authorization', x.auth);
    expect(first.body.items.map((i: { id: string }) => i.id)).toEqual([made[0].id, made[1].id]);
    const second = await h2.http.get(`/v1/shipment-bookings?limit=2&cursor=${first.body.nextCursor}`).set('Authorization', x.auth);
    expect(second.body.items.map((i: { id: string }) => i.id)).toEqual([made[2].id]);
    expect(second.body).not.toHaveProperty('nextCursor');
    const byNumber = await h2.http.get(`/v1/shipment-bookings?tracking_number=${made[1].trackingNumbers[0]}`).set('Authorization', x.auth);
    expect(byNumber.body.items.map((i: { id: string }) => i.id)).toEqual([made[1].id]);
    const byReference = await h2.http.get('/v1/shipment-bookings?reference=R-3').set('Authorization', x.auth);
    expect(byReference.body.items.map((i: { id: string }) => i.id)).toEqual([made[2].id]);
    expect((await h2.http.get('/v1/shipment-bookings?status=MANIFESTED').set('Authorization', x.auth)).body.items).toEqual([]);
  });

  it('isolates accounts: 404 for another account, absent from its list', async () => {
    const booking = await book(h, a, staging.body(await staging.parcels(1)));
    expect((await h.http.get(`/v1/shipment-bookings/${booking.id}`).set('Authorization', b.auth)).status).toBe(404);
    const listB = await h.http.get('/v1/shipment-bookings?limit=100').set('Authorization', b.auth);
    expect(listB.body.items.map((i: { id: string }) => i.id)).not.toContain(booking.id);
    const foreignService = await h.http
      .post('/v1/shipment-bookings')
      .set('Authorization', b.auth)
      .send({ ...staging.body([await createVia(h, b, '/v1/parcels', { weight: 1 })]) });
    expect(foreignService.status).toBe(400);
    expect(foreignService.body.properties.violations[0].field).toBe('body/serviceDefinitionId');
  });

  it('gives the same tracking numbers for the same seed and requests', async () => {
    const run = async (harness: Harness) => {
      const x = await newAccount(harness);
      const kit = await bookingKit(harness, x, { mode: 'PRODUCTION' });
      return (await book(harness, x, kit.body(await kit.parcels(2)))).trackingNumbers;
    };
    expect(await run(createHarness())).toEqual(await run(createHarness()));
    expect(await run(createHarness({ seed: 2 }))).not.toEqual(await run(createHarness()));
  });
});
