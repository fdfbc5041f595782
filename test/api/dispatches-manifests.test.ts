import { beforeAll, describe, expect, it } from 'vitest';
import { carrierRejection } from '../../src/carriers/faults.js';
import { createHarness, suiteAccounts } from '../support/harness.js';
import { book, bookingKit, download, pdfText, type BookingKit } from '../support/booking-fixtures.js';
import { berlin, captureEvents, createVia } from '../support/shipping-fixtures.js';

const unknown = '00000000-0000-4000-8000-000000000000';

describe('shipment dispatches and manifests', () => {
  const h = createHarness();
  const events = captureEvents(h);
  const { a, b } = suiteAccounts(h, ['Warehouse Berlin', 'B']);
  let kit: BookingKit;
  let other: BookingKit;
  let pickupAddressId: string;
  beforeAll(async () => {
    kit = await bookingKit(h, a);
    other = await bookingKit(h, a);
    pickupAddressId = await createVia(h, a, '/v1/addresses', berlin);
  });

  const newBooking = async (from = kit, parcels = 1, parcelBody: Record<string, unknown> = {}) => book(h, a, from.body(await from.parcels(parcels, parcelBody)));
  const dispatchBody = (bookingIds: string[], overrides: Record<string, unknown> = {}) => ({
    carrierDefinitionId: kit.carrierDefinitionId,
    shipmentBookingIds: bookingIds,
    pickupDate: '2026-01-02',
    pickupWindowFrom: '09:00',
    pickupWindowTo: '17:00',
    pickupAddressId,
    reference: 'PICKUP-1',
    ...overrides,
  });
  const getBooking = async (id: string) => (await h.http.get(`/v1/shipment-bookings/${id}`).set('Authorization', a.auth)).body;
  const bookingEvents = (id: string) => events.filter((e) => e.topic === 'SHIPMENT_BOOKING' && e.payload.shipmentId === id).map((e) => e.type);

  it('groups BOOKED bookings of one carrier definition; they become DISPATCHED', async () => {
    const [one, two] = [await newBooking(), await newBooking()];
    const dispatchId = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id, two.id]));
    const dispatch = await h.http.get(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth);
    expect(dispatch.body).toMatchObject({ status: 'OPEN', carrierDefinitionId: kit.carrierDefinitionId, shipmentBookingIds: [one.id, two.id], pickupDate: '2026-01-02', pickupWindowFrom: '09:00', pickupAddressId });
    for (const id of [one.id, two.id]) {
      expect(await getBooking(id)).toMatchObject({ status: 'DISPATCHED', shipmentDispatchId: dispatchId });
      expect(bookingEvents(id)).toEqual(['CREATED', 'DISPATCHED']);
    }
    const dispatched = events.find((e) => e.type === 'DISPATCHED' && e.payload.shipmentId === one.id)!;
    expect(dispatched.payload).toEqual({ shipmentId: one.id, code: 'DISPATCHED', createdAt: one.createdAt, updatedAt: expect.any(String) });
    expect(events.some((e) => e.topic === 'SHIPMENT_DISPATCH' && e.type === 'CREATED' && e.payload.id === dispatchId)).toBe(true);
  });

  describe('refuses a dispatch that breaks a rule (400 naming the field, bookings untouched)', () => {
    let f: Record<string, string>;
    beforeAll(async () => {
      const inOpen = await newBooking();
      await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([inOpen.id]));
      const production = await bookingKit(h, a, { mode: 'PRODUCTION' });
      const remove = h.carriers.intercept(carrierRejection('no'));
      const failed = await book(h, a, production.body(await production.parcels(1)));
      remove();
      const foreignKit = await bookingKit(h, b);
      const foreign = await book(h, b, foreignKit.body(await foreignKit.parcels(1)));
      f = { inOpen: inOpen.id, failed: failed.id, failedDefinition: production.carrierDefinitionId, otherDefinition: (await newBooking(other)).id, foreign: foreign.id };
    });
    const cases: [string, (ok: string, f: Record<string, string>) => Record<string, unknown>, string, string?][] = [
      ['an unknown carrier definition', (ok) => dispatchBody([ok], { carrierDefinitionId: unknown }), 'body/carrierDefinitionId'],
      ['an unknown booking', (ok) => dispatchBody([ok, unknown]), 'body/shipmentBookingIds/1'],
      ["another account's booking", (ok, f) => dispatchBody([ok, f.foreign]), 'body/shipmentBookingIds/1'],
      ['a booking of another carrier definition', (ok, f) => dispatchBody([ok, f.otherDefinition]), 'body/shipmentBookingIds/1'],
      ['a booking already in an OPEN dispatch', (ok, f) => dispatchBody([ok, f.inOpen]), 'body/shipmentBookingIds/1'],
      ['a FAILED booking', (_ok, f) => dispatchBody([f.failed], { carrierDefinitionId: f.failedDefinition }), 'body/shipmentBookingIds/0'],
      ['a window that ends before it starts', (ok) => dispatchBody([ok], { pickupWindowFrom: '17:00', pickupWindowTo: '09:00' }), 'body/pickupWindowTo'],
      ['a time that is not a time of day', (ok) => dispatchBody([ok], { pickupWindowFrom: '25:00' }), 'body/pickupWindowFrom'],
      ['an unknown pickup address', (ok) => dispatchBody([ok], { pickupAddressId: unknown }), 'body/pickupAddressId'],
      ['no bookings (schema)', () => dispatchBody([]), 'body/shipmentBookingIds', 'validation-error'],
    ];
    it.each(cases)('%s', async (_name, bodyOf, field, slug = 'rule-violation') => {
      const ok = await newBooking();
      const res = await h.http.post('/v1/shipment-dispatches').set('Authorization', a.auth).send(bodyOf(ok.id, f));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
      expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
      expect((await getBooking(ok.id)).status).toBe('BOOKED');
    });
  });

  it('replaces an OPEN dispatch: removed bookings return to BOOKED, added ones become DISPATCHED', async () => {
    const [one, two, three] = [await newBooking(), await newBooking(), await newBooking()];
    const dispatchId = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id, two.id]));
    const res = await h.http.put(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth).send(dispatchBody([two.id, three.id], { pickupDate: '2026-01-03' }));
    expect(res.status).toBe(204);
    expect((await getBooking(one.id)).status).toBe('BOOKED');
    expect(await getBooking(one.id)).not.toHaveProperty('shipmentDispatchId');
    expect(bookingEvents(one.id)).toEqual(['CREATED', 'DISPATCHED', 'UPDATED']);
    expect(await getBooking(two.id)).toMatchObject({ status: 'DISPATCHED', shipmentDispatchId: dispatchId });
    expect(bookingEvents(two.id)).toEqual(['CREATED', 'DISPATCHED']);
    expect(await getBooking(three.id)).toMatchObject({ status: 'DISPATCHED', shipmentDispatchId: dispatchId });
    expect((await h.http.get(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth)).body).toMatchObject({ pickupDate: '2026-01-03', shipmentBookingIds: [two.id, three.id] });
  });

  it('deletes an OPEN dispatch and returns its bookings to BOOKED', async () => {
    const one = await newBooking();
    const dispatchId = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id]));
    expect((await h.http.delete(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth)).status).toBe(204);
    expect((await h.http.get(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth)).status).toBe(404);
    expect(await getBooking(one.id)).toMatchObject({ status: 'BOOKED' });
    const again = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id]));
    expect((await getBooking(one.id)).shipmentDispatchId).toBe(again);
  });

  it('closes a dispatch into a manifest with a MANIFEST PDF listing every parcel; bookings become MANIFESTED', async () => {
    const one = await newBooking(kit, 2);
    const two = await newBooking(kit, 1, { weight: 11, weightUnit: 'LB' });
    const dispatchId = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id, two.id]));
    const created = await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', a.auth);
    expect(created.status).toBe(201);
    const manifestId = created.body.id;
    const manifest = await h.http.get(`/v1/shipment-manifests/${manifestId}`).set('Authorization', a.auth);
    expect(manifest.body).toMatchObject({
      id: manifestId,
      shipmentDispatchId: dispatchId,
      carrierDefinitionId: kit.carrierDefinitionId,
      carrierId: one.carrierId,
      shipmentBookingIds: [one.id, two.id],
      parcelCount: 3,
      totalWeightKg: 9.99,
    });
    const dispatch = await h.http.get(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth);
    expect(dispatch.body).toMatchObject({ status: 'CLOSED', shipmentManifestId: manifestId });
    for (const booking of [one, two]) {
      expect(await getBooking(booking.id)).toMatchObject({ status: 'MANIFESTED', shipmentDispatchId: dispatchId });
      expect(bookingEvents(booking.id)).toEqual(['CREATED', 'DISPATCHED', 'MANIFESTED']);
    }
    expect(events.some((e) => e.topic === 'SHIPMENT_MANIFEST' && e.type === 'CREATED' && e.payload.id === manifestId)).toBe(true);

    const document = await h.http.get(`/v1/documents?group_id=${manifestId}`).set('Authorization', a.auth);
    expect(document.body.items).toEqual([expect.objectContaining({ id: manifest.body.documentId, type: 'MANIFEST', groupType: 'SHIPMENT_MANIFEST', contentType: 'PDF', specimen: true })]);
    const file = await download(h, a, manifest.body.documentId);
    expect(file.contentType).toBe('application/pdf');
    const text = await pdfText(file.bytes);
    for (const number of [...one.trackingNumbers, ...two.trackingNumbers]) expect(text).toContain(number);

    const listed = await h.http.get(`/v1/shipment-manifests?shipment_dispatch_id=${dispatchId}`).set('Authorization', a.auth);
    expect(listed.body.items.map((m: { id: string }) => m.id)).toEqual([manifestId]);
    expect((await h.http.get('/v1/shipment-dispatches?status=CLOSED').set('Authorization', a.auth)).body.items.map((d: { id: string }) => d.id)).toEqual([dispatchId]);

    // A CLOSED dispatch is final; its bookings cannot be dispatched again.
    const replace = await h.http.put(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth).send(dispatchBody([one.id]));
    const remove = await h.http.delete(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', a.auth);
    const again = await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', a.auth);
    for (const res of [replace, remove, again]) {
      expect(res.status).toBe(400);
      expect(res.body.properties.violations[0].field).toBe('path/shipment-dispatch-id');
    }
    const redispatch = await h.http.post('/v1/shipment-dispatches').set('Authorization', a.auth).send(dispatchBody([one.id]));
    expect(redispatch.status).toBe(400);
    expect(redispatch.body.detail).toContain('MANIFESTED');
  });

  it('answers 404 for an unknown dispatch and isolates accounts', async () => {
    expect((await h.http.post(`/v1/shipment-dispatches/${unknown}/shipment-manifests`).set('Authorization', a.auth)).status).toBe(404);
    const one = await newBooking();
    const dispatchId = await createVia(h, a, '/v1/shipment-dispatches', dispatchBody([one.id]));
    expect((await h.http.get(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.put(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', b.auth).send(dispatchBody([one.id]))).status).toBe(404);
    expect((await h.http.delete(`/v1/shipment-dispatches/${dispatchId}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.get('/v1/shipment-dispatches').set('Authorization', b.auth)).body.items).toEqual([]);
    const manifest = await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', a.auth);
    expect((await h.http.get(`/v1/shipment-manifests/${manifest.body.id}`).set('Authorization', b.auth)).status).toBe(404);
    expect((await h.http.get('/v1/shipment-manifests').set('Authorization', b.auth)).body.items).toEqual([]);
    expect((await h.http.get(`/v1/shipment-manifests/${manifest.body.id}`).set('Authorization', a.auth)).status).toBe(200);
  });
});
