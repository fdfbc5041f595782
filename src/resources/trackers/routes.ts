import { created, noContent, ok, type HandlerMap } from '../shared/operation-handler.js';
import { accountOf, pageArgs } from '../shared/crud-routes.js';
import type { TrackerInput } from './model.js';
import type { TrackerService } from './service.js';

export function trackerRoutes(trackers: TrackerService): HandlerMap {
  return {
    // contract/DECISIONS.md "Tracker creation rules": an existing tracker's id is returned, still 201.
    createTracker: (ctx) => created(trackers.create(accountOf(ctx.principal), ctx.body).tracker.id),
    listTrackers: (ctx) =>
      ok(
        trackers.list(accountOf(ctx.principal), pageArgs(ctx.query), {
          trackingNumber: ctx.query.tracking_number,
          shipmentBookingId: ctx.query.shipment_booking_id,
          status: ctx.query.status,
        }),
      ),
    getTracker: (ctx) => ok(trackers.get(accountOf(ctx.principal), ctx.path['tracker-id'] as string)),
    deleteTracker(ctx) {
      trackers.remove(accountOf(ctx.principal), ctx.path['tracker-id'] as string);
      return noContent();
    },
  };
}
