import { describe, expect, it } from 'vitest';
import { createHarness, newAccount, harnessInternals, suiteAccounts } from '../support/harness.js';
import { captureEvents, createVia, ids } from '../support/shipping-fixtures.js';

const parcelBody = { weight: 2.5, dimensions: { length: 40, width: 30, height: 20, unit: 'CM' }, reference: 'ORDER-1' };
const itemBody = (parcelId: string) => ({ parcelId, description: 'Paperback novel', quantity: 3, unitWeight: 0.4, hsCode: '490199' });

describe('parcels and parcel items', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'Warehouse B']);

  it('creates a parcel with weightUnit defaulting to KG and publishes PARCEL CREATED', async () => {
    const id = await createVia(h, a, '/v1/parcels', { ...parcelBody, packingTypeId: ids.parcelPacking });
    const res = await h.http.get(`/v1/parcels/${id}`).set('Authorization', a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, weight: 2.5, weightUnit: 'KG', reference: 'ORDER-1', packingTypeId: ids.parcelPacking });
    expect(res.body).not.toHaveProperty('itemIds');
    expect(events.find((e) => e.topic === 'PARCEL' && e.type === 'CREATED' && e.payload.id === id)?.accountId).toBe(a.accountId);
  });

  it('refuses a packing type that is not in the catalogue (400 naming the field), storing nothing', async () => {
    const before = await h.http.get('/v1/parcels').set('Authorization', a.auth);
    const res = await h.http.post('/v1/parcels').set('Authorization', a.auth).send({ weight: 1, packingTypeId: ids.dhl });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([expect.objectContaining({ field: 'body/packingTypeId' })]);
    const after = await h.http.get('/v1/parcels').set('Authorization', a.auth);
    expect(after.body.items).toHaveLength(before.body.items.length);
  });

  it('keeps itemIds in step with item create, move and delete', async () => {
    const p1 = await createVia(h, a, '/v1/parcels', parcelBody);
    const p2 = await createVia(h, a, '/v1/parcels', parcelBody);
    const i1 = await createVia(h, a, '/v1/parcels/items', itemBody(p1));
    const i2 = await createVia(h, a, '/v1/parcels/items', itemBody(p1));
    expect((await h.http.get(`/v1/parcels/${p1}`).set('Authorization', a.auth)).body.itemIds).toEqual([i1, i2]);

    const moved = await h.http.put(`/v1/parcels/items/${i2}`).set('Authorization', a.auth).send({ ...itemBody(p2), quantity: 1 });
    expect(moved.status).toBe(204);
    expect((await h.http.get(`/v1/parcels/${p1}`).set('Authorization', a.auth)).body.itemIds).toEqual([i1]);
    expect((await h.http.get(`/v1/parcels/${p2}`).set('Authorization', a.auth)).body.itemIds).toEqual([i2]);

    expect((await h.http.delete(`/v1/parcels/items/${i1}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.get(`/v1/parcels/${p1}`).set('Authorization', a.auth)).body).not.toHaveProperty('itemIds');

    const listed = await h.http.get(`/v1/parcels/items?parcel_id=${p2}`).set('Authorization', a.auth);
    expect(listed.body.items.map((i: { id: string }) => i.id)).toEqual([i2]);
    expect(events.filter((e) => e.topic === 'PARCEL_ITEM').map((e) => e.type)).toEqual(expect.arrayContaining(['CREATED', 'UPDATED', 'DELETED']));
  });

  it('deleting a parcel deletes its items', async () => {
    const parcelId = await createVia(h, a, '/v1/parcels', parcelBody);
    const itemId = await createVia(h, a, '/v1/parcels/items', itemBody(parcelId));
    expect((await h.http.delete(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.get(`/v1/parcels/items/${itemId}`).set('Authorization', a.auth)).status).toBe(404);
    expect(events.some((e) => e.topic === 'PARCEL_ITEM' && e.type === 'DELETED' && e.payload.id === itemId)).toBe(true);
  });

  it.each([
    ['an unknown parcel', () => '7c3f4e5a-6d7b-4c8d-8e9f-1a2b3c4d5e6f'],
    ["another account's parcel", async () => createVia(h, b, '/v1/parcels', parcelBody)],
  ])('an item naming %s is 400 on body/parcelId', async (_label, parcelOf) => {
    const res = await h.http.post('/v1/parcels/items').set('Authorization', a.auth).send(itemBody(await parcelOf()));
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://shipmock.dev/problems/rule-violation');
    expect(res.body.properties.violations[0].field).toBe('body/parcelId');
  });

  it('freezes a booked parcel: no replace, delete, new items or item changes (400)', async () => {
    const parcelId = await createVia(h, a, '/v1/parcels', parcelBody);
    const itemId = await createVia(h, a, '/v1/parcels/items', itemBody(parcelId));
    const bookingId = '9e5b6a7c-8f9d-4e0f-8a1b-3c4d5e6f7a8b';
    harnessInternals(h).services.parcels.markBooked(a.accountId, parcelId, { shipmentBookingId: bookingId, trackingNumber: '340434161094' });

    const booked = await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth);
    expect(booked.body).toMatchObject({ shipmentBookingId: bookingId, trackingNumber: '340434161094' });
    const attempts = [
      h.http.put(`/v1/parcels/${parcelId}`).set('Authorization', a.auth).send(parcelBody),
      h.http.delete(`/v1/parcels/${parcelId}`).set('Authorization', a.auth),
      h.http.post('/v1/parcels/items').set('Authorization', a.auth).send(itemBody(parcelId)),
      h.http.put(`/v1/parcels/items/${itemId}`).set('Authorization', a.auth).send(itemBody(parcelId)),
      h.http.delete(`/v1/parcels/items/${itemId}`).set('Authorization', a.auth),
    ];
    for (const res of await Promise.all(attempts)) expect([res.status, res.body.type]).toEqual([400, 'https://shipmock.dev/problems/rule-violation']);
    expect(() => harnessInternals(h).services.parcels.assertBookable(a.accountId, parcelId, 'body/parcelIds/0')).toThrow(/already booked/);

    const filtered = await h.http.get(`/v1/parcels?shipment_booking_id=${bookingId}`).set('Authorization', a.auth);
    expect(filtered.body.items.map((p: { id: string }) => p.id)).toEqual([parcelId]);

    harnessInternals(h).services.parcels.markUnbooked(a.accountId, parcelId);
    expect((await h.http.put(`/v1/parcels/${parcelId}`).set('Authorization', a.auth).send(parcelBody)).status).toBe(204);
  });

  it('lists by reference, pages with cursors in both sort orders', async () => {
    const c = await newAccount(h, { alias: 'Paging' });
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await createVia(h, c, '/v1/parcels', { weight: i + 1, reference: i % 2 ? 'ODD' : 'EVEN' }));
    const odd = await h.http.get('/v1/parcels?reference=ODD').set('Authorization', c.auth);
    expect(odd.body.items.map((p: { id: string }) => p.id)).toEqual([created[1], created[3]]);
    const first = await h.http.get('/v1/parcels?limit=2&sort=DESC').set('Authorization', c.auth);
    expect(first.body.items.map((p: { id: string }) => p.id)).toEqual([created[4], created[3]]);
    const second = await h.http.get(`/v1/parcels?limit=2&sort=DESC&cursor=${first.body.nextCursor}`).set('Authorization', c.auth);
    expect(second.body.items.map((p: { id: string }) => p.id)).toEqual([created[2], created[1]]);
  });

  it('isolates accounts: A’s parcels and items are 404 for B and absent from B’s lists', async () => {
    const parcelId = await createVia(h, a, '/v1/parcels', parcelBody);
    const itemId = await createVia(h, a, '/v1/parcels/items', itemBody(parcelId));
    for (const [path, body] of [
      [`/v1/parcels/${parcelId}`, parcelBody],
      [`/v1/parcels/items/${itemId}`, itemBody(parcelId)],
    ] as const) {
      expect((await h.http.get(path).set('Authorization', b.auth)).status).toBe(404);
      expect((await h.http.put(path).set('Authorization', b.auth).send(body)).status).toBe(404);
      expect((await h.http.delete(path).set('Authorization', b.auth)).status).toBe(404);
    }
    const parcels = await h.http.get('/v1/parcels?limit=100').set('Authorization', b.auth);
    const items = await h.http.get('/v1/parcels/items?limit=100').set('Authorization', b.auth);
    expect(parcels.body.items.map((p: { id: string }) => p.id)).not.toContain(parcelId);
    expect(items.body.items.map((i: { id: string }) => i.id)).not.toContain(itemId);
    expect((await h.http.get(`/v1/parcels/${parcelId}`).set('Authorization', a.auth)).status).toBe(200);
  });
});
