import { describe, expect, it } from 'vitest';
import { createHarness, harnessInternals, suiteAccounts } from '../support/harness.js';
import { captureEvents, createVia, ids } from '../support/shipping-fixtures.js';

const customsBody = {
  types: [ids.cn23],
  declarant: { firstName: 'Erika', lastName: 'Mustermann', city: 'Berlin' },
  currency: 'EUR',
  contentType: 'SALE_OF_GOODS',
  lines: [{ description: 'Paperback novel', quantity: 3, value: 37.5, hsCode: '490199', originCountryCode: 'DE', weight: 1.2 }],
};
const dgBody = (parcelId?: string) => ({
  typeId: ids.lithium,
  unNumber: 'UN3481',
  properShippingName: 'Lithium ion batteries contained in equipment',
  hazardClass: '9',
  packingGroup: 'II',
  quantity: 0.5,
  quantityUnit: 'KG',
  ...(parcelId ? { parcelId } : {}),
});
const bookingId = '9e5b6a7c-8f9d-4e0f-8a1b-3c4d5e6f7a8b';

describe('customs declarations', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);

  it('creates, reads, replaces and deletes with CUSTOMS_DECLARATION events', async () => {
    const id = await createVia(h, a, '/v1/customs-declarations', customsBody);
    const got = await h.http.get(`/v1/customs-declarations/${id}`).set('Authorization', a.auth);
    expect(got.body).toMatchObject({ id, ...customsBody });
    expect((await h.http.put(`/v1/customs-declarations/${id}`).set('Authorization', a.auth).send({ ...customsBody, types: [ids.cn22], currency: 'CHF' })).status).toBe(204);
    expect((await h.http.get(`/v1/customs-declarations/${id}`).set('Authorization', a.auth)).body).toMatchObject({ types: [ids.cn22], currency: 'CHF' });
    expect((await h.http.delete(`/v1/customs-declarations/${id}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.get(`/v1/customs-declarations/${id}`).set('Authorization', a.auth)).status).toBe(404);
    expect(events.filter((e) => e.topic === 'CUSTOMS_DECLARATION' && e.payload.id === id).map((e) => e.type)).toEqual(['CREATED', 'UPDATED', 'DELETED']);
  });

  it.each([
    ['an unknown id', '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f'],
    ['a dangerous goods type id', ids.lithium],
  ])('refuses %s in types (400 naming body/types/1)', async (_label, typeId) => {
    const res = await h.http.post('/v1/customs-declarations').set('Authorization', a.auth).send({ ...customsBody, types: [ids.cn23, typeId] });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([expect.objectContaining({ field: 'body/types/1' })]);
  });

  it('freezes a declaration a booking references, and thaws it when released', async () => {
    const id = await createVia(h, a, '/v1/customs-declarations', customsBody);
    const declaration = harnessInternals(h).services.customsDeclarations.assertUsable(a.accountId, id, 'body/customsDeclarationId');
    harnessInternals(h).services.customsDeclarations.markReferenced(a.accountId, declaration.id, bookingId);
    const put = await h.http.put(`/v1/customs-declarations/${id}`).set('Authorization', a.auth).send(customsBody);
    const del = await h.http.delete(`/v1/customs-declarations/${id}`).set('Authorization', a.auth);
    expect([put.status, del.status]).toEqual([400, 400]);
    expect(put.body.detail).toContain(bookingId);
    harnessInternals(h).services.customsDeclarations.releaseReference(a.accountId, id, bookingId);
    expect((await h.http.delete(`/v1/customs-declarations/${id}`).set('Authorization', a.auth)).status).toBe(204);
  });

  it('isolates accounts', async () => {
    const id = await createVia(h, a, '/v1/customs-declarations', customsBody);
    const path = `/v1/customs-declarations/${id}`;
    expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', b.auth).send(customsBody)).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    const list = await h.http.get('/v1/customs-declarations?limit=100').set('Authorization', b.auth);
    expect(list.body.items.map((d: { id: string }) => d.id)).not.toContain(id);
    expect(() => harnessInternals(h).services.customsDeclarations.assertUsable(b.accountId, id, 'body/customsDeclarationId')).toThrow(/does not exist/);
  });
});

describe('dangerous goods declarations', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);

  it('creates one attached to a parcel, filters by parcel_id, and publishes DANGEROUS_GOODS_DECLARATION', async () => {
    const parcelId = await createVia(h, a, '/v1/parcels', { weight: 1 });
    const id = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody(parcelId));
    await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody());
    const list = await h.http.get(`/v1/dangerous-goods-declarations?parcel_id=${parcelId}`).set('Authorization', a.auth);
    expect(list.body.items.map((d: { id: string }) => d.id)).toEqual([id]);
    expect(events.some((e) => e.topic === 'DANGEROUS_GOODS_DECLARATION' && e.type === 'CREATED' && e.payload.id === id)).toBe(true);
  });

  it.each([
    ['typeId not in the catalogue', () => ({ ...dgBody(), typeId: ids.cn23 }), 'body/typeId'],
    ['an unknown parcelId', () => dgBody('7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f'), 'body/parcelId'],
  ])('refuses %s with 400 naming the field', async (_label, body, field) => {
    const res = await h.http.post('/v1/dangerous-goods-declarations').set('Authorization', a.auth).send(body());
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe(field);
  });

  it("refuses another account's parcel and a booked parcel", async () => {
    const foreign = await createVia(h, b, '/v1/parcels', { weight: 1 });
    expect((await h.http.post('/v1/dangerous-goods-declarations').set('Authorization', a.auth).send(dgBody(foreign))).status).toBe(400);
    const booked = await createVia(h, a, '/v1/parcels', { weight: 1 });
    harnessInternals(h).services.parcels.markBooked(a.accountId, booked, { shipmentBookingId: bookingId, trackingNumber: '340434161094' });
    const res = await h.http.post('/v1/dangerous-goods-declarations').set('Authorization', a.auth).send(dgBody(booked));
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/is used in Shipment Booking/);
  });

  it('keeps a parcel that a declaration names from being deleted', async () => {
    const parcelId = await createVia(h, a, '/v1/parcels', { weight: 1 });
    const id = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody(parcelId));
    const refused = await h.http.delete(`/v1/parcels/${parcelId}`).set('Authorization', a.auth);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain(id);
    expect((await h.http.delete(`/v1/dangerous-goods-declarations/${id}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.delete(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).status).toBe(204);
  });

  it('freezes a declaration a booking references', async () => {
    const id = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody());
    harnessInternals(h).services.dangerousGoodsDeclarations.markReferenced(a.accountId, id, bookingId);
    expect((await h.http.put(`/v1/dangerous-goods-declarations/${id}`).set('Authorization', a.auth).send(dgBody())).status).toBe(400);
    expect((await h.http.delete(`/v1/dangerous-goods-declarations/${id}`).set('Authorization', a.auth)).status).toBe(400);
    expect(harnessInternals(h).services.dangerousGoodsDeclarations.referencedBy(a.accountId, id)).toEqual([bookingId]);
  });

  it('isolates accounts', async () => {
    const id = await createVia(h, a, '/v1/dangerous-goods-declarations', dgBody());
    const path = `/v1/dangerous-goods-declarations/${id}`;
    expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(path).set('Authorization', b.auth).send(dgBody())).status).toBe(404);
    expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    const list = await h.http.get('/v1/dangerous-goods-declarations?limit=100').set('Authorization', b.auth);
    expect(list.body.items.map((d: { id: string }) => d.id)).not.toContain(id);
  });
});
