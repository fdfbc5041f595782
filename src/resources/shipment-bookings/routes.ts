import { created, ok, type HandlerMap, type RequestContext } from '../shared/operation-handler.js';
import { accountOf, pageArgs } from '../shared/crud-routes.js';
import type { BookingContext } from './booking-workflow.js';
import type { ShipmentBookingService } from './service.js';

/** Who is billed, which operation runs (scenario rules for labels and trackers may match it), how the carrier's latency is waited. */
const contextOf = (ctx: RequestContext): BookingContext => ({ companyId: ctx.principal.companyId, operationId: ctx.operation.operationId, wait: ctx.waitOutside });

export function shipmentBookingRoutes(bookings: ShipmentBookingService): HandlerMap {
  return {
    createShipmentBooking: async (ctx) => created((await bookings.book(accountOf(ctx.principal), ctx.body, contextOf(ctx))).id),
    createInlineShipmentBooking: async (ctx) =>
      created((await bookings.bookInline(accountOf(ctx.principal), ctx.body, contextOf(ctx))).id),
    listShipmentBookings: (ctx) =>
      ok(
        bookings.list(accountOf(ctx.principal), pageArgs(ctx.query), {
          status: ctx.query.status,
          trackingNumber: ctx.query.tracking_number,
          reference: ctx.query.reference,
        }),
      ),
    getShipmentBooking: (ctx) => ok(bookings.get(accountOf(ctx.principal), ctx.path['shipment-booking-id'] as string)),
  };
}
