import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { carrierRejection } from '../../src/carriers/faults.js';
import { createApp } from '../../src/app/create-app.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { importState } from '../../src/admin/state.js';
import { createLogger } from '../../src/logging/logger.js';
import { createHarness, newAccount, type Harness, type TestAccount } from '../support/harness.js';
import { book, bookingKit } from '../support/booking-fixtures.js';
import { captureEvents, renewToken, schemaErrors, type CapturedEvent } from '../support/shipping-fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const JOURNEY = ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];

/** A fresh mock with one account and one booking of `parcels` parcels. */
async function booked(options: { mode?: 'STAGING' | 'PRODUCTION'; parcels?: number; harness?: Harness } = {}) {
  const h = options.harness ?? createHarness();
  const events = captureEvents(h);
  const account = await newAccount(h);
  const kit = await bookingKit(h, account, { mode: options.mode });
  const booking = await book(h, account, kit.body(await kit.parcels(options.parcels ?? 1)));
  return { h, events, account, kit, booking };
}

const trackerSteps = (events: CapturedEvent[], trackerId?: string) =>
  events.filter((e) => e.topic === 'TRACKER' && e.type === 'UPDATED' && (!trackerId || e.payload.id === trackerId)).map((e) => e.payload.status);

/** Moves the virtual clock and renews the account's token (4 h lifetime) in place. */
async function advance(h: Harness, account: TestAccount, ms: number) {
  h.clock.advance(ms);
  account.auth = (await renewToken(h, account)).auth;
}

describe('trackers', () => {
  it('starts one tracker per booked parcel at CREATED, with the planned delivery', async () => {
    const { h, events, account, booking } = await booked({ parcels: 2 });
    expect(booking.trackerIds).toHaveLength(2);
    for (const [i, id] of booking.trackerIds.entries()) {
      const tracker = await h.http.get(`/v1/trackers/${id}`).set('Authorization', account.auth);
      expect(tracker.status).toBe(200);
      expect(tracker.body).toMatchObject({
        id,
        trackingNumber: booking.trackingNumbers[i],
        carrierId: booking.carrierId,
        shipmentBookingId: booking.id,
        parcelId: booking.parcels[i].parcelId,
        status: 'CREATED',
        events: [{ status: 'CREATED', occurredAt: booking.createdAt, description: expect.any(String), location: 'Berlin, DE' }],
      });
      expect(Date.parse(tracker.body.estimatedDeliveryAt)).toBeGreaterThan(Date.parse(booking.createdAt));
      expect(tracker.body).not.toHaveProperty('deliveredAt');
    }
    const created = events.filter((e) => e.topic === 'TRACKER' && e.type === 'CREATED');
    expect(created.map((e) => e.payload.id)).toEqual(booking.trackerIds);
    for (const e of created) expect(schemaErrors(h, 'Tracker', e.payload)).toEqual([]);
  });

  it.each(['STAGING', 'PRODUCTION'] as const)('advances a %s tracker to DELIVERED as the clock moves, one TRACKER UPDATED per step', async (mode) => {
    const { h, events, account, booking } = await booked({ mode });
    const [trackerId] = booking.trackerIds;
    const plan = await h.http.get(`/v1/trackers/${trackerId}`).set('Authorization', account.auth);
    const deliveredAt = Date.parse(plan.body.estimatedDeliveryAt);

    // Step by step: 4 h → PICKED_UP, 10 h → IN_TRANSIT, then the delivery day.
    await advance(h, account, 4 * HOUR);
    expect(trackerSteps(events, trackerId)).toEqual(['PICKED_UP']);
    await advance(h, account, 6 * HOUR);
    expect(trackerSteps(events, trackerId)).toEqual(['PICKED_UP', 'IN_TRANSIT']);
    expect((await h.http.get(`/v1/trackers/${trackerId}`).set('Authorization', account.auth)).body.status).toBe('IN_TRANSIT');

    await advance(h, account, deliveredAt - h.clock.epochMs());
    expect(trackerSteps(events, trackerId)).toEqual(JOURNEY.slice(1));
    const tracker = await h.http.get(`/v1/trackers/${trackerId}`).set('Authorization', account.auth);
    expect(tracker.body).toMatchObject({ status: 'DELIVERED', deliveredAt: plan.body.estimatedDeliveryAt, updatedAt: plan.body.estimatedDeliveryAt });
    expect(tracker.body.events.map((e: { status: string }) => e.status)).toEqual(JOURNEY);
    expect(tracker.body.events.at(-1).location).toBe('München, DE');
    const occurred = tracker.body.events.map((e: { occurredAt: string }) => Date.parse(e.occurredAt));
    expect([...occurred].sort((x, y) => x - y)).toEqual(occurred);

    await advance(h, account, 10 * DAY);
    await h.http.get(`/v1/trackers/${trackerId}`).set('Authorization', account.auth);
    expect(trackerSteps(events, trackerId)).toHaveLength(4);
  });

  it('emits every intermediate step in order, once, when the clock jumps past several of them', async () => {
    const { h, events, account, booking } = await booked({ parcels: 3 });
    await advance(h, account, 30 * DAY);
    for (const id of booking.trackerIds) expect(trackerSteps(events, id)).toEqual(JOURNEY.slice(1));
    const payloads = events.filter((e) => e.topic === 'TRACKER' && e.type === 'UPDATED');
    for (const e of payloads) expect(schemaErrors(h, 'Tracker', e.payload)).toEqual([]);
    // Each payload is the tracker after its own step, not the final state.
    expect(payloads.filter((e) => e.payload.id === booking.trackerIds[0]).map((e) => (e.payload.events as unknown[]).length)).toEqual([2, 3, 4, 5]);
    const list = await h.http.get('/v1/trackers?limit=10').set('Authorization', account.auth);
    expect(list.body.items.map((t: { status: string }) => t.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
    expect(payloads).toHaveLength(12);
  });

  it('records every step of trackers booked at different times in one account once, in time order, with one clock timer for the account', async () => {
    const { h, events, account, kit, booking } = await booked({ parcels: 2 });
    await advance(h, account, 5 * HOUR);
    const later = await book(h, account, kit.body(await kit.parcels(1)));
    // A deleted tracker records no more steps; the account's timer still serves the others.
    const beforeDelete = trackerSteps(events, booking.trackerIds[1]);
    expect((await h.http.delete(`/v1/trackers/${booking.trackerIds[1]}`).set('Authorization', account.auth)).status).toBe(204);
    const due = await h.http.get('/__admin/clock/due?limit=50').set('X-Shipmock-Admin', '1').expect(200);
    expect(due.body.items.filter((i: { kind: string; accountId: string }) => i.kind === 'tracker-step' && i.accountId === account.accountId)).toHaveLength(1);
    // Hour by hour: each step published in the hour it falls due.
    const steps = events.filter((e) => e.topic === 'TRACKER' && e.type === 'UPDATED');
    for (let hour = 0; hour < 30 * 24; hour++) {
      h.clock.advance(HOUR);
      const now = h.clock.epochMs();
      const fresh = events.filter((e) => e.topic === 'TRACKER' && e.type === 'UPDATED').slice(steps.length);
      for (const e of fresh) {
        const step = (e.payload.events as { occurredAt: string }[]).at(-1)!;
        expect(Date.parse(step.occurredAt)).toBeLessThanOrEqual(now);
        expect(Date.parse(step.occurredAt)).toBeGreaterThan(now - HOUR);
      }
      steps.push(...fresh);
    }
    account.auth = (await renewToken(h, account)).auth;
    expect(trackerSteps(events, booking.trackerIds[0])).toEqual(JOURNEY.slice(1));
    expect(trackerSteps(events, later.trackerIds[0])).toEqual(JOURNEY.slice(1));
    expect(trackerSteps(events, booking.trackerIds[1])).toEqual(beforeDelete);
    // In time order across the account's trackers.
    const times = steps.map((e) => Date.parse((e.payload.events as { occurredAt: string }[]).at(-1)!.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const list = await h.http.get('/v1/trackers?limit=10').set('Authorization', account.auth);
    expect(list.body.items.map((t: { status: string }) => t.status)).toEqual(['DELIVERED', 'DELIVERED']);
    const after = await h.http.get('/__admin/clock/due?limit=50').set('X-Shipmock-Admin', '1').expect(200);
    expect(after.body.items.filter((i: { kind: string }) => i.kind === 'tracker-step')).toEqual([]);
  });

  it('keeps the recorded history when the clock is set back', async () => {
    const { h, events, account, booking } = await booked();
    const start = h.clock.epochMs();
    await advance(h, account, 12 * HOUR);
    h.clock.set(start + HOUR);
    const tracker = await h.http.get(`/v1/trackers/${booking.trackerIds[0]}`).set('Authorization', account.auth);
    expect(tracker.body.status).toBe('IN_TRANSIT');
    expect(trackerSteps(events)).toEqual(['PICKED_UP', 'IN_TRANSIT']);
  });

  it('catches up on read where no timer ran (a state imported into another mock), publishing the missed steps in order', async () => {
    const { h, account, booking } = await booked();
    const silent = createLogger({ level: 'silent', format: 'json' });
    const runtime = createRuntime({ seed: 1, clock: { mode: 'manual' }, responseValidation: 'error' }, silent);
    const { app } = createApp(runtime);
    importState(runtime, h.state.export());
    const seen: CapturedEvent[] = [];
    runtime.events.subscribe((e) => seen.push(e));
    runtime.clock.advance(11 * HOUR);
    expect(trackerSteps(seen)).toEqual([]);
    const token = await request(app).post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send({ grantType: 'client_credentials' });
    const res = await request(app).get(`/v1/trackers/${booking.trackerIds[0]}`).set('Authorization', `Bearer ${token.body.accessToken}`);
    expect(res.body.status).toBe('IN_TRANSIT');
    expect(trackerSteps(seen)).toEqual(['PICKED_UP', 'IN_TRANSIT']);
    // From then on the timer is armed again.
    runtime.clock.advance(30 * DAY);
    expect(trackerSteps(seen)).toEqual(JOURNEY.slice(1));
    runtime.dispose();
  });

  it('resumes pending steps after PUT /__admin/state, as a restart does: scans are published with nobody reading', async () => {
    const { h } = await booked();
    const exported = await h.http.get('/__admin/state').expect(200);
    const other = createHarness();
    const seen: CapturedEvent[] = [];
    other.events.subscribe((e) => seen.push(e));
    await other.http.put('/__admin/state').set('X-Shipmock-Admin', '1').send(exported.body).expect(204);
    await other.http.post('/__admin/clock/advance').set('X-Shipmock-Admin', '1').send({ duration: 'PT11H' }).expect(200);
    expect(trackerSteps(seen)).toEqual(['PICKED_UP', 'IN_TRANSIT']);
    await other.http.post('/__admin/clock/advance').set('X-Shipmock-Admin', '1').send({ duration: 'P30D' }).expect(200);
    expect(trackerSteps(seen)).toEqual(JOURNEY.slice(1));
    other.dispose();
    h.dispose();
  });

  it('creates trackers by tracking number: existing → same id, unknown or foreign → 400, wrong carrier → 400', async () => {
    const { h, account, booking } = await booked();
    const other = await newAccount(h, { alias: 'B' });
    const number = booking.trackingNumbers[0];
    const again = await h.http.post('/v1/trackers').set('Authorization', account.auth).send({ trackingNumber: number, carrierId: booking.carrierId });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(booking.trackerIds[0]);
    expect((await h.http.get('/v1/trackers').set('Authorization', account.auth)).body.items).toHaveLength(1);

    const cases: [TestAccount, Record<string, unknown>, string][] = [
      [account, { trackingNumber: '000000000000' }, 'body/trackingNumber'],
      [other, { trackingNumber: number }, 'body/trackingNumber'],
      [account, { trackingNumber: number, carrierId: '8a550a57-ddd8-48de-9c6b-2064d3987c03' }, 'body/carrierId'],
    ];
    for (const [who, body, field] of cases) {
      const res = await h.http.post('/v1/trackers').set('Authorization', who.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.properties.violations[0].field).toBe(field);
    }
  });

  it('deletes a tracker (404 afterwards, gone from the booking) and tracks the number again with its history so far', async () => {
    const { h, events, account, booking } = await booked();
    const [old] = booking.trackerIds;
    expect((await h.http.delete(`/v1/trackers/${old}`).set('Authorization', account.auth)).status).toBe(204);
    expect((await h.http.get(`/v1/trackers/${old}`).set('Authorization', account.auth)).status).toBe(404);
    expect(events.some((e) => e.topic === 'TRACKER' && e.type === 'DELETED' && e.payload.id === old)).toBe(true);
    expect((await h.http.get(`/v1/shipment-bookings/${booking.id}`).set('Authorization', account.auth)).body).not.toHaveProperty('trackerIds');

    await advance(h, account, 11 * HOUR);
    expect(trackerSteps(events, old)).toEqual([]);
    const created = await h.http.post('/v1/trackers').set('Authorization', account.auth).send({ trackingNumber: booking.trackingNumbers[0] });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe(old);
    const tracker = await h.http.get(`/v1/trackers/${created.body.id}`).set('Authorization', account.auth);
    expect(tracker.body.events.map((e: { status: string }) => e.status)).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT']);
    expect((await h.http.get(`/v1/shipment-bookings/${booking.id}`).set('Authorization', account.auth)).body.trackerIds).toEqual([created.body.id]);
  });

  it('lists with filters status, shipment_booking_id and tracking_number (status sees fresh deliveries)', async () => {
    const { h, account, kit, booking } = await booked({ parcels: 2 });
    await advance(h, account, 30 * DAY);
    const later = await book(h, account, kit.body(await kit.parcels(1)));
    const get = async (query: string) =>
      (await h.http.get(`/v1/trackers?${query}`).set('Authorization', account.auth)).body.items.map((t: { id: string }) => t.id);
    expect(await get('status=DELIVERED')).toEqual(booking.trackerIds);
    expect(await get('status=CREATED')).toEqual(later.trackerIds);
    expect(await get(`shipment_booking_id=${later.id}`)).toEqual(later.trackerIds);
    expect(await get(`tracking_number=${booking.trackingNumbers[1]}`)).toEqual([booking.trackerIds[1]]);
    expect(await get('limit=1')).toEqual([booking.trackerIds[0]]);
  });

  it.each([
    ['EXCEPTION', ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'EXCEPTION']],
    ['RETURNED', ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'EXCEPTION', 'RETURNED']],
    ['LOST', ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'LOST']],
  ])('ends the journey in %s under the tracker-exception scenario, for parcels booked while it is active', async (outcome, journey) => {
    const h = createHarness();
    const events = captureEvents(h);
    const account = await newAccount(h);
    const kit = await bookingKit(h, account);
    h.scenarios.activate('tracker-exception', { accountId: account.accountId, params: { outcome } });
    const unlucky = await book(h, account, kit.body(await kit.parcels(1)));
    h.scenarios.deactivate('tracker-exception');
    const lucky = await book(h, account, kit.body(await kit.parcels(1)));
    await advance(h, account, 30 * DAY);
    const tracker = await h.http.get(`/v1/trackers/${unlucky.trackerIds[0]}`).set('Authorization', account.auth);
    expect(tracker.body.status).toBe(outcome);
    expect(tracker.body.events.map((e: { status: string }) => e.status)).toEqual(journey);
    expect(tracker.body).not.toHaveProperty('deliveredAt');
    expect(trackerSteps(events, unlucky.trackerIds[0])).toEqual(journey.slice(1));
    expect((await h.http.get(`/v1/trackers/${lucky.trackerIds[0]}`).set('Authorization', account.auth)).body.status).toBe('DELIVERED');
  });

  it('gives no tracker to a FAILED booking', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const kit = await bookingKit(h, account, { mode: 'PRODUCTION' });
    h.carriers.intercept(carrierRejection('no'));
    const failed = await book(h, account, kit.body(await kit.parcels(1)));
    expect(failed.status).toBe('FAILED');
    expect((await h.http.get('/v1/trackers').set('Authorization', account.auth)).body.items).toEqual([]);
  });

  it('plans the same journey for the same seed', async () => {
    const journeyOf = async (seed: number) => {
      const { h, account, booking } = await booked({ harness: createHarness({ seed }) });
      return (await h.http.get(`/v1/trackers/${booking.trackerIds[0]}`).set('Authorization', account.auth)).body.estimatedDeliveryAt;
    };
    expect(await journeyOf(7)).toBe(await journeyOf(7));
  });

  it('isolates accounts: 404 in get and delete, absent from lists', async () => {
    const { h, account, booking } = await booked();
    const other = await newAccount(h, { alias: 'B' });
    const [id] = booking.trackerIds;
    expect((await h.http.get(`/v1/trackers/${id}`).set('Authorization', other.auth)).status).toBe(404);
    expect((await h.http.delete(`/v1/trackers/${id}`).set('Authorization', other.auth)).status).toBe(404);
    expect((await h.http.get('/v1/trackers').set('Authorization', other.auth)).body.items).toEqual([]);
    expect((await h.http.get(`/v1/trackers/${id}`).set('Authorization', account.auth)).status).toBe(200);
  });
});
