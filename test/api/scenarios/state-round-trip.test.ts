import { describe, expect, it } from 'vitest';
import { book, bookingKit, download } from '../../support/booking-fixtures.js';
import { createHarness, newAccount } from '../../support/harness.js';
import { renewToken } from '../../support/shipping-fixtures.js';

/**
 * A state exported over HTTP (JSON) and imported into a fresh mock restores the whole shipping
 * picture: bookings, their documents, trackers that keep progressing, billing usage.
 */
describe('state export/import of a shipping flow', () => {
  it('restores bookings, label bytes, trackers and usage exactly', async () => {
    const h = createHarness({ tokenSecret: 's'.repeat(32) });
    const account = await newAccount(h);
    const kit = await bookingKit(h, account, { mode: 'PRODUCTION' });
    const booking = await book(h, account, kit.body(await kit.parcels(2)));
    h.clock.advance(86_400_000);
    const label = await download(h, await renewToken(h, account), booking.documentIds[0]);
    expect(label.bytes.length).toBeGreaterThan(1000);
    const state = (await h.http.get('/__admin/state')).body;

    const other = createHarness({ tokenSecret: 's'.repeat(32) });
    expect((await other.http.put('/__admin/state').send(state)).status).toBe(204);
    const auth = (await renewToken(other, account)).auth;
    const restored = await other.http.get(`/v1/shipment-bookings/${booking.id}`).set('Authorization', auth);
    expect(restored.body).toEqual(booking);
    const copy = await download(other, { ...account, auth }, booking.documentIds[0]);
    expect(copy.contentType).toBe(label.contentType);
    expect(copy.bytes.equals(label.bytes)).toBe(true);

    const report = async (target: typeof h) => (await target.http.get('/v1/reports').set('Authorization', (await renewToken(target, account)).auth)).body.usage;
    expect(await report(other)).toEqual(await report(h));

    for (const target of [h, other]) target.clock.advance(14 * 86_400_000);
    const trackerOf = async (target: typeof h) =>
      (await target.http.get(`/v1/trackers?shipment_booking_id=${booking.id}`).set('Authorization', (await renewToken(target, account)).auth)).body.items.map((t: { status: string; events: unknown[] }) => [t.status, t.events.length]);
    expect(await trackerOf(other)).toEqual(await trackerOf(h));
    expect((await trackerOf(other))[0][0]).toBe('DELIVERED');
  });
});
