import type { ResourceDeps } from '../shared/domain-deps.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { ParcelService } from '../parcels/service.js';
import type { ParcelItem, ParcelItemInput } from './model.js';
import { ruleViolation } from '../../errors/problem.js';

/** Items one Parcel may hold (contract: Parcel.itemIds maxItems; contract/DECISIONS.md). */
export const MAX_ITEMS_PER_PARCEL = 100;

/**
 * Parcel Items: each names a Parcel of the same account (400 otherwise) and the Parcel's
 * itemIds follows every create, move and delete. Items of a booked Parcel cannot change.
 * Deleting a Parcel deletes its items (registered as a parcel removal cascade).
 *
 * @example
 * const item = items.create(accountId, { parcelId, description: 'Paperback novel', quantity: 3 });
 * parcels.get(accountId, parcelId).itemIds // [item.id]
 */
export function createParcelItemService(core: ResourceDeps, deps: { parcels: ParcelService }) {
  const { parcels } = deps;
  const base = createAccountResources<ParcelItemInput, ParcelItem>(core, {
    collection: 'parcel-items',
    topic: 'PARCEL_ITEM',
    label: 'Parcel Item',
    build: (input, meta) => ({ ...meta, ...input }),
    check(accountId, input, previous) {
      const parcel = parcels.assertExists(accountId, input.parcelId, 'body/parcelId');
      parcels.assertNotBooked(parcel, 'body/parcelId', 'given items');
      if (previous && previous.parcelId !== input.parcelId) {
        const from = parcels.find(accountId, previous.parcelId);
        if (from) parcels.assertNotBooked(from, 'path/item-id', 'changed');
      }
    },
  });

  /** Parcel.itemIds is bounded in the contract (maxItems MAX_ITEMS_PER_PARCEL). */
  function assertRoom(accountId: string, parcelId: string): void {
    if ((parcels.find(accountId, parcelId)?.itemIds?.length ?? 0) >= MAX_ITEMS_PER_PARCEL) {
      throw ruleViolation('body/parcelId', `a Parcel holds at most ${MAX_ITEMS_PER_PARCEL} items`);
    }
  }

  const self = {
    ...base,
    create(accountId: string, input: ParcelItemInput): ParcelItem {
      assertRoom(accountId, input.parcelId);
      const item = base.create(accountId, input);
      parcels.attachItem(accountId, item.parcelId, item.id);
      return item;
    },
    replace(accountId: string, id: string, input: ParcelItemInput): ParcelItem {
      const previous = base.get(accountId, id);
      if (previous.parcelId !== input.parcelId) assertRoom(accountId, input.parcelId);
      const item = base.replace(accountId, id, input);
      if (previous.parcelId !== item.parcelId) {
        parcels.detachItem(accountId, previous.parcelId, id);
        parcels.attachItem(accountId, item.parcelId, id);
      }
      return item;
    },
    remove(accountId: string, id: string): ParcelItem {
      const item = base.get(accountId, id);
      const parcel = parcels.find(accountId, item.parcelId);
      if (parcel) parcels.assertNotBooked(parcel, 'path/item-id', 'changed');
      base.remove(accountId, id);
      parcels.detachItem(accountId, item.parcelId, id);
      return item;
    },
    /** The items of one parcel, in the order of its itemIds. */
    ofParcel(accountId: string, parcelId: string): ParcelItem[] {
      const ids = parcels.find(accountId, parcelId)?.itemIds ?? [];
      return ids.map((id) => base.find(accountId, id)).filter((item): item is ParcelItem => item !== undefined);
    },
  };

  // A deleted Parcel takes its items with it (each publishes PARCEL_ITEM DELETED).
  parcels.addRemovalCascade((accountId, parcel) => {
    for (const item of self.ofParcel(accountId, parcel.id)) base.remove(accountId, item.id);
  });
  return self;
}

export type ParcelItemService = ReturnType<typeof createParcelItemService>;
