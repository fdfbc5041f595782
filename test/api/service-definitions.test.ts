import { beforeAll, describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';

import { createHarness, type TestAccount, suiteAccounts } from '../support/harness.js';
import { captureEvents } from '../support/shipping-fixtures.js';

const DHL_PARCEL = catalogueIds.carrier('DHL_PARCEL');
const DPD = catalogueIds.carrier('DPD');
const DHL_PAKET = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const DHL_PAKET_INTERNATIONAL = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL');
const DPD_CLASSIC = catalogueIds.service('DPD', 'DPD_CLASSIC');
const PARCEL_BOX = catalogueIds.packingType('PARCEL');
const UNKNOWN = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';

describe('service definitions', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'Other merchant']);
  let dhlA: string;
  let dpdA: string;
  let dhlB: string;

  async function carrierDefinition(account: TestAccount, carrierId: string): Promise<string> {
    const res = await h.http.post('/v1/carrier-definitions').set('Authorization', account.auth).send({ carrierId, name: 'Definition' });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  beforeAll(async () => {
    dhlA = await carrierDefinition(a, DHL_PARCEL);
    dpdA = await carrierDefinition(a, DPD);
    dhlB = await carrierDefinition(b, DHL_PARCEL);
  });

  const post = (account: TestAccount, body: Record<string, unknown>) => h.http.post('/v1/service-definitions').set('Authorization', account.auth).send(body);

  it('creates one with defaults and the carrier derived from its Carrier Definition', async () => {
    const res = await post(a, { carrierDefinitionId: dhlA, serviceId: DHL_PAKET, name: 'DHL Paket domestic', defaultPackingTypeId: PARCEL_BOX, settings: [{ key: 'product', value: 'V01PAK' }] });
    expect(res.status).toBe(201);
    const got = await h.http.get(`/v1/service-definitions/${res.body.id}`).set('Authorization', a.auth);
    expect(got.body).toEqual({
      id: res.body.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      carrierDefinitionId: dhlA,
      carrierId: DHL_PARCEL,
      serviceId: DHL_PAKET,
      name: 'DHL Paket domestic',
      active: true,
      settings: [{ key: 'product', value: 'V01PAK' }],
      defaultPackingTypeId: PARCEL_BOX,
    });
  });

  it.each([
    ['another account’s Carrier Definition', () => ({ carrierDefinitionId: dhlB, serviceId: DHL_PAKET_INTERNATIONAL }), 'body/carrierDefinitionId'],
    ['a Carrier Definition that does not exist', () => ({ carrierDefinitionId: UNKNOWN, serviceId: DHL_PAKET_INTERNATIONAL }), 'body/carrierDefinitionId'],
    ['a service of another carrier', () => ({ carrierDefinitionId: dhlA, serviceId: DPD_CLASSIC }), 'body/serviceId'],
    ['a service not in the catalogue', () => ({ carrierDefinitionId: dhlA, serviceId: UNKNOWN }), 'body/serviceId'],
    ['an unknown packing type', () => ({ carrierDefinitionId: dhlA, serviceId: DHL_PAKET_INTERNATIONAL, defaultPackingTypeId: UNKNOWN }), 'body/defaultPackingTypeId'],
    ['duplicate setting keys', () => ({ carrierDefinitionId: dhlA, serviceId: DHL_PAKET_INTERNATIONAL, settings: [{ key: 'k', value: '1' }, { key: 'k', value: '2' }] }), 'body/settings/1/key'],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_name, body, field) => {
    const before = events.length;
    const res = await post(a, { name: 'x', ...body() });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://shipmock.dev/problems/rule-violation');
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
    expect(events.length).toBe(before);
    const list = await h.http.get('/v1/service-definitions').query({ service_id: DHL_PAKET_INTERNATIONAL }).set('Authorization', a.auth);
    expect(list.body.items).toEqual([]);
  });

  it('allows one definition per Carrier Definition and Service', async () => {
    const first = await post(a, { carrierDefinitionId: dpdA, serviceId: DPD_CLASSIC, name: 'DPD Classic' });
    expect(first.status).toBe(201);
    const second = await post(a, { carrierDefinitionId: dpdA, serviceId: DPD_CLASSIC, name: 'Again' });
    expect(second.status).toBe(400);
    expect(second.body.properties.violations[0]).toEqual({ field: 'body/serviceId', message: expect.stringContaining(first.body.id) });
    // Replacing the definition with its own pair is not a duplicate.
    const put = await h.http.put(`/v1/service-definitions/${first.body.id}`).set('Authorization', a.auth).send({ carrierDefinitionId: dpdA, serviceId: DPD_CLASSIC, name: 'Renamed', active: false });
    expect(put.status).toBe(204);
    const got = await h.http.get(`/v1/service-definitions/${first.body.id}`).set('Authorization', a.auth);
    expect(got.body).toMatchObject({ name: 'Renamed', active: false, carrierId: DPD });
  });

  it('filters the list by carrier_definition_id and service_id', async () => {
    const all = await h.http.get('/v1/service-definitions').set('Authorization', a.auth);
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
    const dhl = await h.http.get('/v1/service-definitions').query({ carrier_definition_id: dhlA }).set('Authorization', a.auth);
    expect(dhl.body.items.every((sd: { carrierDefinitionId: string }) => sd.carrierDefinitionId === dhlA)).toBe(true);
    expect(dhl.body.items.length).toBeGreaterThan(0);
    const dpd = await h.http.get('/v1/service-definitions').query({ service_id: DPD_CLASSIC }).set('Authorization', a.auth);
    expect(dpd.body.items.map((sd: { serviceId: string }) => sd.serviceId)).toEqual([DPD_CLASSIC]);
  });

  it('keeps a referenced Carrier Definition: no delete, no carrier change; fine once unreferenced', async () => {
    const cd = await carrierDefinition(a, DHL_PARCEL);
    const sd = await post(a, { carrierDefinitionId: cd, serviceId: DHL_PAKET, name: 'Paket' });
    for (const version of ['v0', 'v1']) {
      const del = await h.http.delete(`/${version}/carrier-definitions/${cd}`).set('Authorization', a.auth);
      expect(del.status).toBe(400);
      expect(del.body.detail).toContain(sd.body.id);
    }
    const switchCarrier = await h.http.put(`/v1/carrier-definitions/${cd}`).set('Authorization', a.auth).send({ carrierId: DPD, name: 'Now DPD' });
    expect(switchCarrier.status).toBe(400);
    expect(switchCarrier.body.properties.violations[0].field).toBe('body/carrierId');
    // Other changes of a referenced definition are fine.
    await h.http.put(`/v1/carrier-definitions/${cd}`).set('Authorization', a.auth).send({ carrierId: DHL_PARCEL, name: 'Renamed', mode: 'PRODUCTION' }).expect(204);
    await h.http.delete(`/v1/service-definitions/${sd.body.id}`).set('Authorization', a.auth).expect(204);
    await h.http.delete(`/v0/carrier-definitions/${cd}`).set('Authorization', a.auth).expect(204);
  });

  it('hides account A’s service definitions from account B (get, replace, delete, list)', async () => {
    const res = await post(a, { carrierDefinitionId: dhlA, serviceId: DHL_PAKET_INTERNATIONAL, name: 'International' });
    const path = `/v1/service-definitions/${res.body.id}`;
    expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', b.auth).send({ carrierDefinitionId: dhlB, serviceId: DHL_PAKET, name: 'Mine' })).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    const list = await h.http.get('/v1/service-definitions?limit=100').set('Authorization', b.auth);
    expect(list.body.items.map((sd: { id: string }) => sd.id)).not.toContain(res.body.id);
    expect((await h.http.get(path).set('Authorization', a.auth)).status).toBe(200);
  });

  it('publishes SERVICE_DEFINITION events for create, replace and delete', async () => {
    const from = events.length;
    const created = await post(a, { carrierDefinitionId: dhlA, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_RETOURE'), name: 'Returns' });
    const path = `/v1/service-definitions/${created.body.id}`;
    await h.http.put(path).set('Authorization', a.auth).send({ carrierDefinitionId: dhlA, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_RETOURE'), name: 'Returns 2' }).expect(204);
    await h.http.delete(path).set('Authorization', a.auth).expect(204);
    expect((await h.http.get(path).set('Authorization', a.auth)).status).toBe(404);
    const mine = events.slice(from).filter((e) => e.topic === 'SERVICE_DEFINITION');
    expect(mine.map((e) => [e.type, e.accountId, e.payload.id])).toEqual([
      ['CREATED', a.accountId, created.body.id],
      ['UPDATED', a.accountId, created.body.id],
      ['DELETED', a.accountId, created.body.id],
    ]);
  });
});
