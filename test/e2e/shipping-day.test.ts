import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueIds, loadCatalogue } from '../../src/carrier-catalogue/load-catalogue.js';
import { isStagingSerial, isValidSerial } from '../../src/carrier-catalogue/serial-numbers.js';
import { startMock, type RunningMock } from '../../src/index.js';

/**
 * The issue's "Done when": a whole shipping day through real HTTP against a mock on a socket —
 * account token, addresses, parcels, customs, quotes, PUDO points, bookings (normal and inline,
 * STAGING and PRODUCTION), labels downloaded and parsed, a dispatch closed into a manifest
 * (its PDF parsed), trackers moved to DELIVERED by advancing the clock over the control API,
 * an expired quote refused, and a report that reconciles exactly. The mock validates every
 * answer against the contract (responseValidation 'error'): a contract violation would be a
 * 500, and every call here demands its exact expected status.
 */
const DHL = catalogueIds.carrier('DHL_PARCEL');
const DHL_PAKET = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const DHL_INTERNATIONAL = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL');
const CN23 = catalogueIds.customsDeclarationType('CN23');
const JOURNEY = ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];

describe('a shipping day, end to end over HTTP', () => {
  let mock: RunningMock;
  let auth = '';
  beforeAll(async () => {
    mock = await startMock({ port: 0, seed: 1, logLevel: 'silent', clock: { mode: 'manual', start: '2026-03-02T07:00:00Z' }, responseValidation: 'error' });
  });
  afterAll(() => mock.close());

  /** One API call that must answer `status`; returns the parsed JSON (or undefined for 204). */
  async function call(method: string, path: string, status: number, body?: unknown, authorization = auth): Promise<any> {
    const res = await fetch(`${mock.url}${path}`, {
      method,
      headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBe(status);
    return text ? JSON.parse(text) : undefined;
  }
  const create = async (path: string, body: unknown) => (await call('POST', path, 201, body)).id as string;
  const basic = () => `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`;
  async function accountToken(accountId: string) {
    const token = await call('POST', `/v1/accounts/${accountId}/tokens`, 200, { grantType: 'client_credentials' }, basic());
    auth = `Bearer ${token.accessToken}`;
  }
  async function pdfTextOf(documentId: string): Promise<string> {
    const res = await fetch(`${mock.url}/v1/documents/${documentId}/data`, { headers: { Authorization: auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const parser = new PDFParse({ data: new Uint8Array(await res.arrayBuffer()) });
    try {
      return (await parser.getText()).text;
    } finally {
      await parser.destroy();
    }
  }
  function serialFormat(serviceId: string) {
    const catalogue = loadCatalogue();
    const service = catalogue.service(serviceId)!;
    return catalogue.serialType(service.serialTypeId)!.format;
  }

  it('runs from account token to a reconciled report', async () => {
    // Morning: the token dance, then the account's configuration.
    const company = await call('POST', `/v1/companies/${mock.credentials.companyId}/tokens`, 200, { grantType: 'client_credentials' }, basic());
    const account = await call('POST', '/v1/accounts', 201, {
      alias: 'Warehouse Berlin',
      company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstraße 5' },
      contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
    }, `Bearer ${company.accessToken}`);
    await accountToken(account.id);

    const staging = await create('/v1/carrier-definitions', { carrierId: DHL, name: 'DHL test account' });
    const live = await create('/v1/carrier-definitions', { carrierId: DHL, name: 'DHL live account', mode: 'PRODUCTION' });
    const paket = await create('/v1/service-definitions', { carrierDefinitionId: staging, serviceId: DHL_PAKET, name: 'DHL Paket (test)' });
    const paketLive = await create('/v1/service-definitions', { carrierDefinitionId: live, serviceId: DHL_PAKET, name: 'DHL Paket' });
    const international = await create('/v1/service-definitions', { carrierDefinitionId: live, serviceId: DHL_INTERNATIONAL, name: 'DHL Paket International' });
    const channel = await create('/v1/shipment-channels', { name: 'Webshop', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } });

    const shop = await create('/v1/addresses', { name: 'Muster GmbH', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    const munich = await create('/v1/addresses', { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' });
    const zurich = await create('/v1/addresses', { name: 'Heidi Meier', street: 'Bahnhofstrasse 1', city: 'Zürich', postalCode: '8001', countryCode: 'CH' });
    const parcel = (weight: number, reference: string) => create('/v1/parcels', { weight, reference, dimensions: { length: 40, width: 30, height: 20, unit: 'CM' } });
    const domestic = [await parcel(2.5, 'ORDER-1/1'), await parcel(4, 'ORDER-1/2')];
    const abroad = await parcel(1.2, 'ORDER-2/1');
    const toPudo = await parcel(0.8, 'ORDER-3/1');
    const customs = await create('/v1/customs-declarations', {
      types: [CN23],
      declarant: { firstName: 'Erika', lastName: 'Mustermann', city: 'Berlin' },
      currency: 'EUR',
      contentType: 'SALE_OF_GOODS',
      lines: [{ description: 'Paperback novel', quantity: 3, value: 37.5, hsCode: '490199', originCountryCode: 'DE', weight: 1.2 }],
    });

    // A quote for the first order, then its booking (STAGING, two parcels).
    const zone = await create('/v1/zones', { name: 'Germany', countryCodes: ['DE'] });
    await create('/v1/delivery-options', { name: 'Standard', serviceDefinitionId: paket, zoneIds: [zone], priceRules: [{ maxWeightKg: 5, price: { amount: 4.99, currency: 'EUR' } }] });
    const quotes = await call('POST', '/v1/shipping-quotes', 201, { senderAddressId: shop, receiverAddressId: munich, parcels: [{ weight: 2.5 }, { weight: 4 }] });
    expect(quotes.quotes[0]).toMatchObject({ serviceDefinitionId: paket, price: { amount: 9.98, currency: 'EUR' } });
    const parties = (receiver: string, entityType = 'ADDRESS') => [
      { role: 'SENDER', entityType: 'ADDRESS', id: shop },
      { role: 'RECEIVER', entityType, id: receiver },
    ];
    const first = await create('/v1/shipment-bookings', {
      serviceDefinitionId: paket,
      shipmentChannelId: channel,
      parties: parties(munich),
      parcelIds: domestic,
      shippingQuoteId: quotes.quotes[0].id,
      reference: 'ORDER-1',
      shipDate: '2026-03-02',
    });

    // PRODUCTION, dutiable: customs declaration attached.
    const second = await create('/v1/shipment-bookings', { serviceDefinitionId: international, shipmentChannelId: channel, parties: parties(zurich), parcelIds: [abroad], customsDeclarationId: customs, reference: 'ORDER-2' });

    // PUDO points near the shop's customer; one booking to a DHL point (two billed queries).
    const near = await call('POST', '/v1/pudo-points/queries', 200, { postalCode: '80331', countryCode: 'DE', carrierId: DHL, limit: 5 });
    expect(near.items.length).toBeGreaterThan(0);
    await call('POST', '/v1/pudo-points/queries', 200, { addressId: munich, limit: 3 });
    const point = await call('GET', `/v1/pudo-points/${near.items[0].id}`, 200);
    const third = await create('/v1/shipment-bookings', { serviceDefinitionId: paket, shipmentChannelId: channel, parties: parties(point.id, 'PUDO'), parcelIds: [toPudo], reference: 'ORDER-3' });

    // Inline bookings: STAGING through an existing definition, PRODUCTION through an embedded one.
    const customer = { name: 'Jan Jansen', street: 'Friedrichstraße 10', city: 'Berlin', postalCode: '10117', countryCode: 'DE' };
    const fourth = await create('/v1/shipment-bookings/inline', { serviceDefinitionId: paket, shipmentChannelId: channel, sender: customer, receiver: customer, parcels: [{ weight: 1 }], reference: 'ORDER-4' });
    const fifth = await create('/v1/shipment-bookings/inline', {
      carrierDefinition: { carrierId: DHL, name: 'DHL second live account', mode: 'PRODUCTION' },
      serviceDefinition: { serviceId: DHL_PAKET, name: 'DHL Paket' },
      shipmentChannelId: channel,
      sender: customer,
      receiver: { ...customer, name: 'Piet Jansen' },
      parcels: [{ weight: 3 }, { weight: 2, weightUnit: 'LB' }],
      reference: 'ORDER-5',
    });
    const live2 = await call('POST', '/v1/shipment-bookings/inline', 201, {
      serviceDefinitionId: paketLive,
      sender: customer,
      receiver: customer,
      parcels: [{ weight: 1.5 }],
      reference: 'ORDER-6',
    });

    // Labels: every booking's labels downloaded and read; the tracking number is on each.
    const bookings = [];
    for (const id of [first, second, third, fourth, fifth, live2.id]) bookings.push(await call('GET', `/v1/shipment-bookings/${id}`, 200));
    const parcelsBooked = bookings.reduce((sum, b) => sum + b.parcels.length, 0);
    expect(parcelsBooked).toBe(8);
    for (const booking of bookings) {
      expect(booking.status).toBe('BOOKED');
      const format = serialFormat(booking.serviceId);
      for (const [i, bookedParcel] of booking.parcels.entries()) {
        expect(isValidSerial(format, bookedParcel.trackingNumber)).toBe(true);
        expect(isStagingSerial(format, bookedParcel.trackingNumber)).toBe(booking.mode === 'STAGING');
        const text = await pdfTextOf(bookedParcel.labelDocumentId);
        expect(text).toContain(bookedParcel.trackingNumber);
        expect(text.includes('SPECIMEN')).toBe(booking.mode === 'STAGING');
        expect(booking.trackingNumbers[i]).toBe(bookedParcel.trackingNumber);
      }
    }
    expect(bookings.map((b) => b.mode)).toEqual(['STAGING', 'PRODUCTION', 'STAGING', 'STAGING', 'PRODUCTION', 'PRODUCTION']);
    const customsForms = await call('GET', `/v1/documents?group_id=${second}&type=CUSTOMS`, 200);
    expect(await pdfTextOf(customsForms.items[0].id)).toContain(bookings[1].trackingNumbers[0]);
    // Only PRODUCTION bookings talked to the carrier.
    expect(mock.carriers.calls().filter((c) => c.operation === 'BOOK')).toHaveLength(3);

    // Afternoon: the STAGING bookings go into one pickup, closed into a manifest.
    const stagingBookings = bookings.filter((b) => b.carrierDefinitionId === staging).map((b) => b.id);
    expect(stagingBookings).toEqual([first, third, fourth]);
    const dispatch = await create('/v1/shipment-dispatches', { carrierDefinitionId: staging, shipmentBookingIds: stagingBookings, pickupDate: '2026-03-02', pickupWindowFrom: '14:00', pickupWindowTo: '18:00', pickupAddressId: shop });
    expect((await call('GET', `/v1/shipment-bookings/${first}`, 200)).status).toBe('DISPATCHED');
    const manifestId = await create(`/v1/shipment-dispatches/${dispatch}/shipment-manifests`, undefined);
    const manifest = await call('GET', `/v1/shipment-manifests/${manifestId}`, 200);
    expect(manifest).toMatchObject({ shipmentDispatchId: dispatch, parcelCount: 4, totalWeightKg: 8.3, shipmentBookingIds: stagingBookings });
    const manifestText = await pdfTextOf(manifest.documentId);
    for (const booking of bookings.filter((b) => b.carrierDefinitionId === staging)) {
      for (const number of booking.trackingNumbers) expect(manifestText).toContain(number);
    }
    expect((await call('GET', `/v1/shipment-dispatches/${dispatch}`, 200)).status).toBe('CLOSED');
    expect((await call('GET', `/v1/shipment-bookings/${first}`, 200)).status).toBe('MANIFESTED');

    // Days pass (control API): every tracker walks its journey to DELIVERED.
    let trackers = await call('GET', '/v1/trackers?limit=50', 200);
    expect(trackers.items).toHaveLength(parcelsBooked);
    expect(trackers.items.every((t: { status: string }) => t.status === 'CREATED')).toBe(true);
    const advanced = await fetch(`${mock.url}/__admin/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ duration: 'P10D' }) });
    expect(advanced.status).toBe(200);
    await accountToken(account.id);
    trackers = await call('GET', '/v1/trackers?limit=50', 200);
    for (const tracker of trackers.items) {
      expect(tracker.status).toBe('DELIVERED');
      expect(tracker.events.map((e: { status: string }) => e.status)).toEqual(JOURNEY);
      expect(tracker.deliveredAt).toBe(tracker.events[4].occurredAt);
    }
    expect((await call('GET', '/v1/trackers?status=DELIVERED&limit=50', 200)).items).toHaveLength(parcelsBooked);

    // The next morning's booking with yesterday's quote is refused: quotes last 24 hours.
    const late = await parcel(1, 'ORDER-7/1');
    const expired = await call('POST', '/v1/shipment-bookings', 400, { serviceDefinitionId: paket, shipmentChannelId: channel, parties: parties(munich), parcelIds: [late], shippingQuoteId: quotes.quotes[0].id });
    expect(expired.type).toBe('https://shipmock.dev/problems/quote-expired');

    // The report: one CONSUME/PARCEL token per booked parcel, one QUERY/PUDO_POINT per query.
    const report = await call('GET', '/v1/reports', 200);
    expect(report).toMatchObject({ level: 'ACCOUNT', accountId: account.id });
    expect(report.usage).toEqual([
      { operation: 'CONSUME', topic: 'PARCEL', tokens: parcelsBooked },
      { operation: 'QUERY', topic: 'PUDO_POINT', tokens: 2 },
    ]);
    const companyReport = await call('GET', '/v1/reports', 200, undefined, `Bearer ${(await call('POST', `/v1/companies/${mock.credentials.companyId}/tokens`, 200, { grantType: 'client_credentials' }, basic())).accessToken}`);
    expect(companyReport.accounts.find((x: { accountId: string }) => x.accountId === account.id).usage).toEqual(report.usage);
  });
});
