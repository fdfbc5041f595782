import { expect } from 'vitest';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { call, expectStatus, until, type ChildMock } from './child-mock.js';

/**
 * Every step of each tracker's journey (CREATED, then UPDATED with 2…5 events) reached the
 * receiver exactly once, whichever process recorded and sent it, and no process has a delivery
 * left to send.
 */
export async function expectEachTrackerStepDeliveredOnce(mocks: ChildMock[], receiver: WebhookReceiver, trackerIds: string[], journeyLength: number): Promise<void> {
  const expected = trackerIds.length * journeyLength;
  await until('every tracker event reached the receiver', () => receiver.received.length, (count) => count >= expected, 30_000);
  for (const mock of mocks) {
    await until(
      'no process has a delivery left to send',
      async () => (await expectStatus(call(mock.url, 'GET', '/__admin/deliveries?limit=1', { admin: true }), 200, 'deliveries')).counts,
      (counts: { PENDING: number; IN_FLIGHT: number; RETRYING: number }) => counts.PENDING + counts.IN_FLIGHT + counts.RETRYING === 0,
      30_000,
    );
  }
  expect(receiver.received).toHaveLength(expected);
  expect(receiver.received.filter((request) => request.nth > 0), 'an event delivered twice').toEqual([]);
  const steps = receiver.received.map((request) => `${(request.body as { payload: { id: string } }).payload.id} ${(request.body as { type: string }).type} ${(request.body as { payload: { events: unknown[] } }).payload.events.length}`).sort();
  expect(steps).toEqual(trackerIds.flatMap((id) => [`${id} CREATED 1`, ...[2, 3, 4, 5].map((n) => `${id} UPDATED ${n}`)]).sort());
}
