import type { DomainDeps } from './domain-deps.js';

/**
 * Which Shipment Bookings reference a declaration. A referenced Customs or Dangerous Goods
 * Declaration is frozen (contract/DECISIONS.md "Referenced declarations are frozen"): its data
 * was sent to the carrier. Kept beside the resource, in the account's scope, because the
 * declaration's own schema has no field for it.
 */
interface ReferenceEntry {
  id: string;
  shipmentBookingIds: string[];
}

export interface BookingReferences {
  /** Records that a booking references the resource (idempotent). */
  mark(accountId: string, id: string, shipmentBookingId: string): void;
  /** Forgets one booking's reference (e.g. a cancelled booking). */
  release(accountId: string, id: string, shipmentBookingId: string): void;
  /** Ids of the bookings referencing the resource, oldest first. */
  bookingsOf(accountId: string, id: string): string[];
  /** Drops every reference to a deleted resource. */
  forget(accountId: string, id: string): void;
}

/** @example const refs = createBookingReferences(core, 'customs-declaration-references') */
export function createBookingReferences(core: Pick<DomainDeps, 'store'>, collection: string): BookingReferences {
  const entries = (accountId: string) => core.store.account(accountId).collection<ReferenceEntry>(collection);
  return {
    mark(accountId, id, shipmentBookingId) {
      const found = entries(accountId).get(id);
      if (!found) entries(accountId).insert({ id, shipmentBookingIds: [shipmentBookingId] });
      else if (!found.shipmentBookingIds.includes(shipmentBookingId)) {
        entries(accountId).update({ id, shipmentBookingIds: [...found.shipmentBookingIds, shipmentBookingId] });
      }
    },
    release(accountId, id, shipmentBookingId) {
      const found = entries(accountId).get(id);
      if (!found) return;
      const rest = found.shipmentBookingIds.filter((b) => b !== shipmentBookingId);
      if (rest.length) entries(accountId).update({ id, shipmentBookingIds: rest });
      else entries(accountId).delete(id);
    },
    bookingsOf: (accountId, id) => entries(accountId).get(id)?.shipmentBookingIds ?? [],
    forget(accountId, id) {
      entries(accountId).delete(id);
    },
  };
}
