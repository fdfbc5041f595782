import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import type { AddressService } from '../addresses/service.js';
import type { CarrierDefinitionService } from '../carrier-definitions/service.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { ShipmentBookingService } from '../shipment-bookings/service.js';
import type { ShipmentDispatch, ShipmentDispatchInput } from './model.js';

/** HH:MM → minutes; the contract's pattern allows 24:00–29:59, which no clock shows. */
const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const LAST_MINUTE = 23 * 60 + 59;

/**
 * Shipment Dispatches: BOOKED bookings of one Carrier Definition grouped for a pickup
 * (contract/DECISIONS.md "Dispatch rules"). A booking is in at most one OPEN dispatch and is
 * DISPATCHED while it is there; replacing the dispatch moves bookings in and out (back to
 * BOOKED), deleting it returns them all to BOOKED. A CLOSED dispatch (its manifest was
 * created) can be neither replaced nor deleted. Events: SHIPMENT_DISPATCH CREATED/UPDATED/DELETED,
 * and SHIPMENT_BOOKING DISPATCHED / UPDATED for each booking that moves.
 *
 * @example
 * const dispatch = dispatches.create(accountId, { carrierDefinitionId, shipmentBookingIds: [bookingId], pickupDate: '2026-01-16' });
 * bookings.get(accountId, bookingId).status // 'DISPATCHED'
 */
export function createShipmentDispatchService(
  core: ResourceDeps,
  deps: { bookings: ShipmentBookingService; carrierDefinitions: CarrierDefinitionService; addresses: AddressService },
) {
  const { bookings } = deps;

  function assertOpen(dispatch: ShipmentDispatch, verb: string): void {
    if (dispatch.status === 'CLOSED') {
      throw ruleViolation('path/shipment-dispatch-id', `Shipment Dispatch ${dispatch.id} is CLOSED by Shipment Manifest ${dispatch.shipmentManifestId} and cannot be ${verb}`);
    }
  }

  function check(accountId: string, input: ShipmentDispatchInput, previous?: ShipmentDispatch): void {
    if (previous) assertOpen(previous, 'replaced');
    if (!deps.carrierDefinitions.find(accountId, input.carrierDefinitionId)) {
      throw ruleViolation('body/carrierDefinitionId', `${input.carrierDefinitionId} is not a Carrier Definition of this account`);
    }
    for (const field of ['pickupWindowFrom', 'pickupWindowTo'] as const) {
      const time = input[field];
      if (time !== undefined && minutesOf(time) > LAST_MINUTE) throw ruleViolation(`body/${field}`, `${time} is not a time of day (00:00 to 23:59)`);
    }
    if (input.pickupWindowFrom && input.pickupWindowTo && minutesOf(input.pickupWindowFrom) >= minutesOf(input.pickupWindowTo)) {
      throw ruleViolation('body/pickupWindowTo', `the pickup window must end after it starts (${input.pickupWindowFrom}–${input.pickupWindowTo})`);
    }
    if (input.pickupAddressId && !deps.addresses.find(accountId, input.pickupAddressId)) {
      throw ruleViolation('body/pickupAddressId', `Address ${input.pickupAddressId} does not exist in this account`);
    }
    input.shipmentBookingIds.forEach((bookingId, i) => {
      const field = `body/shipmentBookingIds/${i}`;
      const booking = bookings.find(accountId, bookingId);
      if (!booking) throw ruleViolation(field, `${bookingId} is not a Shipment Booking of this account`);
      if (booking.carrierDefinitionId !== input.carrierDefinitionId) {
        throw ruleViolation(field, `Shipment Booking ${bookingId} was booked with Carrier Definition ${booking.carrierDefinitionId}, not ${input.carrierDefinitionId}`);
      }
      const inThisDispatch = previous !== undefined && booking.shipmentDispatchId === previous.id;
      if (booking.status === 'DISPATCHED' && !inThisDispatch) {
        throw ruleViolation(field, `Shipment Booking ${bookingId} is already in the OPEN Shipment Dispatch ${booking.shipmentDispatchId}`);
      }
      if (booking.status !== 'BOOKED' && booking.status !== 'DISPATCHED') {
        throw ruleViolation(field, `Shipment Booking ${bookingId} is ${booking.status}; only BOOKED bookings can be dispatched`);
      }
    });
  }

  const base = createAccountResources<ShipmentDispatchInput, ShipmentDispatch>(core, {
    collection: 'shipment-dispatches',
    topic: 'SHIPMENT_DISPATCH',
    label: 'Shipment Dispatch',
    check,
    checkDelete: (_accountId, dispatch) => assertOpen(dispatch, 'deleted'),
    build: (input, meta) => ({ ...meta, status: 'OPEN', ...input }),
  });

  const dispatch = (accountId: string, bookingId: string, dispatchId: string) =>
    bookings.setStatus(accountId, bookingId, { status: 'DISPATCHED', shipmentDispatchId: dispatchId }, 'DISPATCHED');
  const release = (accountId: string, bookingId: string) => bookings.setStatus(accountId, bookingId, { status: 'BOOKED' }, 'UPDATED');

  return {
    ...base,
    create(accountId: string, input: ShipmentDispatchInput): ShipmentDispatch {
      const created = base.create(accountId, input);
      for (const bookingId of created.shipmentBookingIds) dispatch(accountId, bookingId, created.id);
      return created;
    },
    replace(accountId: string, id: string, input: ShipmentDispatchInput): ShipmentDispatch {
      const previous = base.get(accountId, id);
      const replaced = base.replace(accountId, id, input);
      for (const bookingId of previous.shipmentBookingIds) if (!replaced.shipmentBookingIds.includes(bookingId)) release(accountId, bookingId);
      for (const bookingId of replaced.shipmentBookingIds) if (!previous.shipmentBookingIds.includes(bookingId)) dispatch(accountId, bookingId, id);
      return replaced;
    },
    remove(accountId: string, id: string): ShipmentDispatch {
      const removed = base.remove(accountId, id);
      for (const bookingId of removed.shipmentBookingIds) release(accountId, bookingId);
      return removed;
    },
    /** Closes an OPEN dispatch into its manifest (the manifest service moves the bookings on). */
    close(accountId: string, id: string, shipmentManifestId: string): ShipmentDispatch {
      const open = base.get(accountId, id);
      assertOpen(open, 'closed again');
      return base.save(accountId, { ...open, status: 'CLOSED', shipmentManifestId });
    },
    assertOpen,
  };
}

export type ShipmentDispatchService = ReturnType<typeof createShipmentDispatchService>;
