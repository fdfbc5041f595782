import { beforeAll, describe, expect, it } from 'vitest';
import { createHarness, suiteAccounts } from '../support/harness.js';
import { captureEvents, createServiceDefinition, createVia } from '../support/shipping-fixtures.js';

const germany = { name: 'Germany', countryCodes: ['DE'] };
const south = { name: 'South', countryCodes: ['DE', 'AT'], postalCodeRanges: [{ countryCode: 'DE', from: '80000', to: '87999' }] };
const option = (serviceDefinitionId: string, zoneIds: string[]) => ({
  name: 'Standard',
  serviceDefinitionId,
  zoneIds,
  priceRules: [
    { maxWeightKg: 31.5, price: { amount: 9.9, currency: 'EUR' } },
    { maxWeightKg: 5, price: { amount: 4.9, currency: 'EUR' } },
  ],
  deliveryDaysMin: 1,
  deliveryDaysMax: 3,
});

describe('zones', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);

  it('CRUD with ZONE events and the country_code filter', async () => {
    const z1 = await createVia(h, a, '/v1/zones', germany);
    const z2 = await createVia(h, a, '/v1/zones', south);
    expect((await h.http.get(`/v1/zones/${z2}`).set('Authorization', a.auth)).body).toMatchObject(south);
    const at = await h.http.get('/v1/zones?country_code=AT').set('Authorization', a.auth);
    expect(at.body.items.map((z: { id: string }) => z.id)).toEqual([z2]);
    expect((await h.http.put(`/v1/zones/${z1}`).set('Authorization', a.auth).send({ name: 'DACH', countryCodes: ['DE', 'AT', 'CH'] })).status).toBe(204);
    expect((await h.http.get('/v1/zones?country_code=CH').set('Authorization', a.auth)).body.items.map((z: { id: string }) => z.id)).toEqual([z1]);
    expect((await h.http.delete(`/v1/zones/${z1}`).set('Authorization', a.auth)).status).toBe(204);
    expect(events.filter((e) => e.topic === 'ZONE' && e.payload.id === z1).map((e) => e.type)).toEqual(['CREATED', 'UPDATED', 'DELETED']);
  });

  it.each([
    ['a range country not in countryCodes', { ...germany, postalCodeRanges: [{ countryCode: 'AT', from: '1000', to: '1999' }] }, 'body/postalCodeRanges/0/countryCode'],
    ['a range with from after to', { ...germany, postalCodeRanges: [{ countryCode: 'DE', from: '90000', to: '80000' }] }, 'body/postalCodeRanges/0/from'],
  ])('refuses %s (400 naming the field)', async (_label, body, field) => {
    const res = await h.http.post('/v1/zones').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe(field);
  });

  it('isolates accounts', async () => {
    const id = await createVia(h, a, '/v1/zones', germany);
    expect((await h.http.get(`/v1/zones/${id}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(`/v1/zones/${id}`).set('Authorization', b.auth).send(germany)).status).toBe(404);
    expect((await h.http.delete(`/v1/zones/${id}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.get('/v1/zones?limit=100').set('Authorization', b.auth)).body.items).toEqual([]);
  });
});

describe('delivery options', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);
  let serviceDefinitionId: string;
  let zoneId: string;
  beforeAll(async () => {
    serviceDefinitionId = await createServiceDefinition(h, a);
    zoneId = await createVia(h, a, '/v1/zones', germany);
  });

  it('creates with active defaulting to true and price rules sorted by weight; DELIVERY_OPTION events', async () => {
    const id = await createVia(h, a, '/v1/delivery-options', option(serviceDefinitionId, [zoneId]));
    const got = await h.http.get(`/v1/delivery-options/${id}`).set('Authorization', a.auth);
    expect(got.body).toMatchObject({ active: true, zoneIds: [zoneId], serviceDefinitionId });
    expect(got.body.priceRules.map((r: { maxWeightKg: number }) => r.maxWeightKg)).toEqual([5, 31.5]);
    expect(events.some((e) => e.topic === 'DELIVERY_OPTION' && e.type === 'CREATED' && e.payload.id === id)).toBe(true);

    expect((await h.http.put(`/v1/delivery-options/${id}`).set('Authorization', a.auth).send({ ...option(serviceDefinitionId, [zoneId]), active: false })).status).toBe(204);
    const inactive = await h.http.get('/v1/delivery-options?active=false').set('Authorization', a.auth);
    expect(inactive.body.items.map((o: { id: string }) => o.id)).toEqual([id]);
    expect((await h.http.get('/v1/delivery-options?active=true').set('Authorization', a.auth)).body.items).toEqual([]);
  });

  it('requires existing zones and service definition of the account', async () => {
    const foreignZone = await createVia(h, b, '/v1/zones', germany);
    const foreignDefinition = await createServiceDefinition(h, b);
    const cases: [unknown, string][] = [
      [option(serviceDefinitionId, [zoneId, foreignZone]), 'body/zoneIds/1'],
      [option(serviceDefinitionId, ['7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f']), 'body/zoneIds/0'],
      [option(foreignDefinition, [zoneId]), 'body/serviceDefinitionId'],
      [{ ...option(serviceDefinitionId, [zoneId]), deliveryDaysMin: 4, deliveryDaysMax: 2 }, 'body/deliveryDaysMin'],
      [{ ...option(serviceDefinitionId, [zoneId]), priceRules: [{ maxWeightKg: 5, price: { amount: 1, currency: 'EUR' } }, { maxWeightKg: 5, price: { amount: 2, currency: 'EUR' } }] }, 'body/priceRules/1/maxWeightKg'],
      [{ ...option(serviceDefinitionId, [zoneId]), priceRules: [{ maxWeightKg: 5, price: { amount: 1, currency: 'EUR' } }, { maxWeightKg: 10, price: { amount: 2, currency: 'CHF' } }] }, 'body/priceRules/1/price/currency'],
    ];
    for (const [body, field] of cases) {
      const res = await h.http.post('/v1/delivery-options').set('Authorization', a.auth).send(body as object);
      expect([res.status, res.body.properties?.violations?.[0]?.field]).toEqual([400, field]);
    }
  });

  it('keeps a zone in use from being deleted', async () => {
    const zone = await createVia(h, a, '/v1/zones', south);
    const id = await createVia(h, a, '/v1/delivery-options', option(serviceDefinitionId, [zone]));
    const refused = await h.http.delete(`/v1/zones/${zone}`).set('Authorization', a.auth);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain(id);
    expect((await h.http.delete(`/v1/delivery-options/${id}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.delete(`/v1/zones/${zone}`).set('Authorization', a.auth)).status).toBe(204);
  });

  it('isolates accounts', async () => {
    const id = await createVia(h, a, '/v1/delivery-options', option(serviceDefinitionId, [zoneId]));
    const path = `/v1/delivery-options/${id}`;
    expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', b.auth).send(option(serviceDefinitionId, [zoneId]))).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.get('/v1/delivery-options?limit=100').set('Authorization', b.auth)).body.items).toEqual([]);
  });
});
