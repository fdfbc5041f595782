import type { RunningMock } from '../../src/server/start-mock.js';
import { carriers } from './booking-fixtures.js';
import { call, type LiveAccount } from './live-mock.js';
import { berlin, munich } from './shipping-fixtures.js';

/** A booking through the real API (definitions, a label channel, addresses, a parcel). */
export async function liveBooking(mock: RunningMock, account: LiveAccount, labelFormat: 'PDF' | 'PNG' | 'ZPL' = 'PNG'): Promise<{ id: string; trackingNumber: string }> {
  const create = async (path: string, body: unknown) => {
    const answer = await call(mock, 'POST', path, { auth: account.auth, body });
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
    return answer.body.id as string;
  };
  const carrierDefinitionId = await create('/v1/carrier-definitions', { carrierId: carriers.dhl, name: 'DHL' });
  const serviceDefinitionId = await create('/v1/service-definitions', { carrierDefinitionId, serviceId: carriers.dhlPaket, name: 'Paket' });
  const shipmentChannelId = await create('/v1/shipment-channels', { name: `${labelFormat} labels`, documentRendering: { labelFormat, labelSize: labelFormat === 'ZPL' ? 'LABEL_4X6' : 'A6' } });
  const sender = await create('/v1/addresses', berlin);
  const receiver = await create('/v1/addresses', munich);
  const parcel = await create('/v1/parcels', { weight: 2.5, reference: 'P-1' });
  const id = await create('/v1/shipment-bookings', {
    serviceDefinitionId,
    shipmentChannelId,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: sender },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: receiver },
    ],
    parcelIds: [parcel],
    reference: 'ORDER-1',
  });
  const booking = await call(mock, 'GET', `/v1/shipment-bookings/${id}`, { auth: account.auth });
  return { id, trackingNumber: booking.body.parcels[0].trackingNumber };
}
