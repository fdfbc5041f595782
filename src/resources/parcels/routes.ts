import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { Parcel } from './model.js';
import type { ParcelService } from './service.js';

export function parcelRoutes(parcels: ParcelService): HandlerMap {
  return crudRoutes(
    parcels,
    { create: 'createParcel', list: 'listParcels', get: 'getParcel', replace: 'replaceParcel', remove: 'deleteParcel' },
    {
      idParam: 'parcel-id',
      filter: (query) => {
        const { shipment_booking_id: bookingId, reference } = query as { shipment_booking_id?: string; reference?: string };
        if (!bookingId && !reference) return undefined;
        return (p: Parcel) => (!bookingId || p.shipmentBookingId === bookingId) && (!reference || p.reference === reference);
      },
    },
  );
}
