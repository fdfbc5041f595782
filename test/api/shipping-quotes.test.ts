import { beforeAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors/problem.js';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { createHarness, newAccount, harnessInternals, suiteAccounts } from '../support/harness.js';
import { berlin, captureEvents, createAddress, createServiceDefinition, createVia, ids, munich, renewToken, vienna } from '../support/shipping-fixtures.js';

const eur = (amount: number) => ({ amount, currency: 'EUR' });

describe('shipping quotes', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);
  let dhl: string;
  let ups: string;
  let sender: string;
  let receiverMunich: string;
  let receiverBerlin: string;
  let receiverVienna: string;
  const options: Record<string, string> = {};

  beforeAll(async () => {
    dhl = await createServiceDefinition(h, a);
    ups = await createServiceDefinition(h, a, catalogueIds.service('UPS', 'UPS_STANDARD'), ids.ups);
    const germany = await createVia(h, a, '/v1/zones', { name: 'Germany', countryCodes: ['DE'] });
    const south = await createVia(h, a, '/v1/zones', { name: 'Bavaria', countryCodes: ['DE'], postalCodeRanges: [{ countryCode: 'DE', from: '80000', to: '87999' }] });
    const rule = (maxWeightKg: number, amount: number) => ({ maxWeightKg, price: eur(amount) });
    options.standard = await createVia(h, a, '/v1/delivery-options', { name: 'Standard', serviceDefinitionId: dhl, zoneIds: [germany], priceRules: [rule(31.5, 9.9), rule(5, 4.9)], deliveryDaysMin: 1, deliveryDaysMax: 3 });
    options.express = await createVia(h, a, '/v1/delivery-options', { name: 'Express Bavaria', serviceDefinitionId: ups, zoneIds: [south], priceRules: [rule(10, 7.5)] });
    options.letter = await createVia(h, a, '/v1/delivery-options', { name: 'Letter', serviceDefinitionId: dhl, zoneIds: [germany], priceRules: [rule(2, 1.5)] });
    options.off = await createVia(h, a, '/v1/delivery-options', { name: 'Off', serviceDefinitionId: dhl, zoneIds: [germany], active: false, priceRules: [rule(31.5, 0.5)] });
    sender = await createAddress(h, a, berlin);
    receiverMunich = await createAddress(h, a, munich);
    receiverBerlin = await createAddress(h, a, { ...berlin, name: 'Receiver Berlin' });
    receiverVienna = await createAddress(h, a, vienna);
  });

  it('evaluates every active option: zones, weight bands (LB converted), cheapest first, 24 h validity', async () => {
    const res = await h.http
      .post('/v1/shipping-quotes')
      .set('Authorization', a.auth)
      .send({ senderAddressId: sender, receiverAddressId: receiverMunich, parcels: [{ weight: 2 }, { weight: 10, weightUnit: 'LB' }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'VALID', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-02T00:00:00.000Z' });
    expect(res.body.quotes.map((q: { name: string; price: unknown }) => [q.name, q.price])).toEqual([
      ['Standard', eur(9.8)],
      ['Express Bavaria', eur(15)],
    ]);
    expect(res.body.quotes[0]).toMatchObject({
      deliveryOptionId: options.standard,
      serviceDefinitionId: dhl,
      carrierId: ids.dhl,
      serviceId: ids.dhlPaket,
      deliveryDaysMin: 1,
      deliveryDaysMax: 3,
      expiresAt: '2026-01-02T00:00:00.000Z',
    });
    expect(events.some((e) => e.topic === 'SHIPPING_QUOTE' && e.type === 'CREATED' && e.payload.purchaseId === res.body.purchaseId)).toBe(true);

    const berlinOnly = await h.http.post('/v1/shipping-quotes').set('Authorization', a.auth).send({ senderAddressId: sender, receiverAddressId: receiverBerlin, parcels: [{ weight: 1.5 }] });
    expect(berlinOnly.body.quotes.map((q: { name: string; price: { amount: number } }) => [q.name, q.price.amount])).toEqual([
      ['Letter', 1.5],
      ['Standard', 4.9],
    ]);
  });

  it('answers a batch without quotes when no option matches', async () => {
    const res = await h.http.post('/v1/shipping-quotes').set('Authorization', a.auth).send({ senderAddressId: sender, receiverAddressId: receiverVienna, parcels: [{ weight: 1 }] });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('quotes');
    expect(res.body.status).toBe('VALID');
  });

  it('quotes inline addresses without storing them', async () => {
    const before = (await h.http.get('/v1/addresses?limit=100').set('Authorization', a.auth)).body.items.length;
    const res = await h.http.post('/v1/shipping-quotes/inline').set('Authorization', a.auth).send({ sender: berlin, receiver: munich, parcels: [{ weight: 40 }] });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('quotes');
    const fits = await h.http.post('/v1/shipping-quotes/inline').set('Authorization', a.auth).send({ sender: berlin, receiver: munich, parcels: [{ weight: 8 }] });
    expect(fits.body.quotes.map((q: { name: string }) => q.name)).toEqual(['Express Bavaria', 'Standard']);
    expect((await h.http.get('/v1/addresses?limit=100').set('Authorization', a.auth)).body.items).toHaveLength(before);
  });

  it.each([
    ['an unknown sender', () => ({ senderAddressId: '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f', receiverAddressId: receiverMunich }), 'body/senderAddressId'],
    ["another account's receiver", () => ({ senderAddressId: sender, receiverAddressId: receiverMunich }), 'body/receiverAddressId', true],
  ])('refuses %s (400 naming the field)', async (_label, body, field, asB = false) => {
    const caller = asB ? b : a;
    const payload = asB ? { senderAddressId: await createAddress(h, b, berlin), receiverAddressId: receiverMunich } : body();
    const res = await h.http.post('/v1/shipping-quotes').set('Authorization', caller.auth).send({ ...payload, parcels: [{ weight: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe(field);
  });

  it('expires after 24 hours on the virtual clock: the batch reads EXPIRED and bookings get quote-expired', async () => {
    const c = await newAccount(h, { alias: 'Expiry' });
    const cDefinition = await createServiceDefinition(h, c);
    const zone = await createVia(h, c, '/v1/zones', { name: 'DE', countryCodes: ['DE'] });
    await createVia(h, c, '/v1/delivery-options', { name: 'Std', serviceDefinitionId: cDefinition, zoneIds: [zone], priceRules: [{ maxWeightKg: 10, price: eur(5) }] });
    const batch = (await h.http.post('/v1/shipping-quotes/inline').set('Authorization', c.auth).send({ sender: berlin, receiver: munich, parcels: [{ weight: 1 }] })).body;
    const quoteId = batch.quotes[0].id as string;
    expect(harnessInternals(h).services.shippingQuotes.assertUsable(c.accountId, quoteId)).toMatchObject({ purchaseId: batch.purchaseId, quote: { id: quoteId } });

    h.clock.advance(24 * 3600_000 - 1);
    expect(() => harnessInternals(h).services.shippingQuotes.assertUsable(c.accountId, quoteId)).not.toThrow();
    h.clock.advance(1);
    const renewed = await renewToken(h, c);
    const expired = await h.http.get(`/v1/shipping-quotes/${batch.purchaseId}`).set('Authorization', renewed.auth);
    expect(expired.status).toBe(200);
    expect(expired.body).toEqual({ ...batch, status: 'EXPIRED' });

    const error = (() => {
      try {
        harnessInternals(h).services.shippingQuotes.assertUsable(c.accountId, quoteId, 'body/shippingQuoteId');
      } catch (e) {
        return e;
      }
    })() as ProblemError;
    expect(error).toBeInstanceOf(ProblemError);
    expect(error.toBody('/v1/shipment-bookings')).toMatchObject({
      type: 'https://shipmock.dev/problems/quote-expired',
      status: 400,
      properties: { violations: [{ field: 'body/shippingQuoteId' }] },
    });
  });

  it('isolates accounts: another account’s batch is 404 and its quotes are unknown to bookings', async () => {
    // The expiry test moved the clock past the tokens' 4 hours.
    Object.assign(a, await renewToken(h, a));
    Object.assign(b, await renewToken(h, b));
    const batch = (await h.http.post('/v1/shipping-quotes/inline').set('Authorization', a.auth).send({ sender: berlin, receiver: munich, parcels: [{ weight: 1 }] })).body;
    expect((await h.http.get(`/v1/shipping-quotes/${batch.purchaseId}`).set('Authorization', b.auth)).status).toBe(404);
    expect(() => harnessInternals(h).services.shippingQuotes.assertUsable(b.accountId, batch.quotes[0].id)).toThrow(/does not exist in this account/);
    expect((await h.http.get(`/v1/shipping-quotes/${batch.purchaseId}`).set('Authorization', a.auth)).status).toBe(200);
  });
});
