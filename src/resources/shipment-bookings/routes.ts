import { created, ok, type HandlerMap, type OperationContext } from '../shared/operation-handler.js';
import { accountOf, pageArgs } from '../shared/crud-routes.js';
import type { BookingContext } from './booking-workflow.js';
import type { InlineShipmentBookingInput, ShipmentBookingInput } from './model.js';
import type { ShipmentBookingService } from './service.js';

/** Who is billed and which operation runs (scenario rules for labels and trackers may match it). */
const contextOf = (ctx: OperationContext): BookingContext => ({ companyId: ctx.principal.companyId, operationId: ctx.operation.operationId });

export function shipmentBookingRoutes(bookings: ShipmentBookingService): HandlerMap {
  return {
    createShipmentBooking: async (ctx) => created((await bookings.book(accountOf(ctx.principal), ctx.body as ShipmentBookingInput, contextOf(ctx))).id),
    createInlineShipmentBooking: async (ctx) =>
      created((await bookings.bookInline(accountOf(ctx.principal), ctx.body as InlineShipmentBookingInput, contextOf(ctx))).id),
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
